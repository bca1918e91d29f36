#include "build_sort.h"

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

namespace
{

using geoidx::BuildPoint;

/*
 * The tuplesort path sorts int8 columns (key ^ sign bit, block << 16 | offset)
 * as signed integers; the flat path must give the same order for every key,
 * the extremes and NULL/EMPTY's all-ones key included.
 */
TEST(BuildSort, SameOrderAsTheTuplesortColumns)
{
	std::mt19937_64 rng(20261202);
	for (size_t n : {0, 1, 2, 17, 1000, 100000})
	{
		std::vector<BuildPoint> pts;
		for (size_t i = 0; i < n; i++)
		{
			uint64_t key;
			switch (rng() % 6)
			{
				case 0:
					key = ~UINT64_C(0);
					break; /* NULL or EMPTY */
				case 1:
					key = rng() % 4;
					break; /* duplicates at the bottom */
				case 2:
					key = (UINT64_C(1) << 63) + rng() % 4;
					break;
				default:
					key = rng();
					break;
			}
			uint32_t block = (uint32_t) (rng() % 3 == 0 ? rng() : rng() % 50);
			uint16_t offset = (uint16_t) (1 + rng() % 300);
			int kind = key == ~UINT64_C(0) ? 1 + (int) (rng() % 2) : 0;
			pts.push_back({key, geoidx::build_tid_kind(block, offset, kind), (double) i, 0.0});
		}
		std::vector<BuildPoint> want = pts;
		std::stable_sort(want.begin(), want.end(),
						 [](const BuildPoint &a, const BuildPoint &b)
						 {
							 auto cols = [](const BuildPoint &p)
							 {
								 int64_t key = (int64_t) (p.key ^ (UINT64_C(1) << 63));
								 int64_t tid = (int64_t) (p.tid & geoidx::kBuildTidMask);
								 return std::make_tuple(key, tid);
							 };
							 return cols(a) < cols(b);
						 });
		geoidx::sort_build_points(pts.data(), pts.size());
		ASSERT_EQ(pts.size(), want.size());
		for (size_t i = 0; i < pts.size(); i++)
		{
			/* equal (key, TID) pairs cannot occur in a build; compare those and the record */
			ASSERT_EQ(pts[i].key, want[i].key) << i;
			ASSERT_EQ(pts[i].tid & geoidx::kBuildTidMask, want[i].tid & geoidx::kBuildTidMask) << i;
		}
	}
}

TEST(BuildSort, KindRidesAlong)
{
	BuildPoint p[2] = {{5, geoidx::build_tid_kind(2, 1, 2), 1.0, 2.0},
					   {5, geoidx::build_tid_kind(1, 9, 1), 3.0, 4.0}};
	geoidx::sort_build_points(p, 2);
	EXPECT_EQ(p[0].tid >> geoidx::kBuildKindShift, 1u);
	EXPECT_EQ(p[0].x, 3.0);
	EXPECT_EQ(p[1].tid >> geoidx::kBuildKindShift, 2u);
	EXPECT_EQ(p[1].tid & geoidx::kBuildTidMask, (UINT64_C(2) << 16) | 1);
}

} // namespace
