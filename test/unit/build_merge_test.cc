#include "build_merge.h"

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

namespace
{

using geoidx::BuildPoint;
using geoidx::BuildRunHead;

/* Rows as a table scan hands them out: duplicate keys, NULL/EMPTY's all-ones key, every kind. */
std::vector<BuildPoint>
random_rows(std::mt19937_64 &rng, size_t n)
{
	std::vector<BuildPoint> rows;
	for (size_t i = 0; i < n; i++)
	{
		uint64_t key = rng() % 5 == 0 ? ~UINT64_C(0) : rng() % 3 == 0 ? rng() % 8 : rng();
		uint32_t block = (uint32_t) (i / 200);
		uint16_t offset = (uint16_t) (1 + i % 200);
		int kind = (int) (rng() % 4);
		rows.push_back({key, geoidx::build_tid_kind(block, offset, kind), (double) i, -(double) i});
	}
	return rows;
}

/* The order the serial build writes, worked out from the columns the tuplesort path compares. */
std::vector<BuildPoint>
reference_order(std::vector<BuildPoint> rows)
{
	std::sort(rows.begin(), rows.end(),
			  [](const BuildPoint &a, const BuildPoint &b)
			  {
				  return std::make_tuple(a.key, a.tid & geoidx::kBuildTidMask) <
						 std::make_tuple(b.key, b.tid & geoidx::kBuildTidMask);
			  });
	return rows;
}

/*
 * Rows dealt to participants in blocks (as a parallel heap scan does), each
 * participant's share cut into runs of at most run_len and sorted, then merged
 * through buffers of buffer_len records refilled as they run dry: the merged
 * stream is the serial order, record for record (kinds and coordinates too).
 */
void
check_merge(std::mt19937_64 &rng, size_t n, size_t participants, size_t run_len, size_t buffer_len)
{
	std::vector<BuildPoint> rows = random_rows(rng, n);
	std::vector<std::vector<BuildPoint>> shares(participants);
	for (size_t start = 0; start < n; start += 64)
	{
		auto &share = shares[rng() % participants];
		share.insert(share.end(), rows.begin() + start, rows.begin() + std::min(n, start + 64));
	}
	std::vector<std::vector<BuildPoint>> runs;
	for (auto &share : shares)
		for (size_t start = 0; start < share.size(); start += run_len)
		{
			runs.emplace_back(share.begin() + start,
							  share.begin() + std::min(share.size(), start + run_len));
			geoidx::sort_build_points(runs.back().data(), runs.back().size());
		}

	std::vector<size_t> read(runs.size(), 0);
	std::vector<BuildRunHead> heads(runs.size());
	auto refill = [&](size_t i)
	{
		size_t len = std::min(buffer_len, runs[i].size() - read[i]);
		heads[i] = {runs[i].data() + read[i], runs[i].data() + read[i] + len};
		read[i] += len;
	};
	for (size_t i = 0; i < runs.size(); i++)
		refill(i);
	std::vector<BuildPoint> merged;
	for (;;)
	{
		size_t i = geoidx::build_merge_pick(heads.data(), heads.size());
		if (i == heads.size())
			break;
		merged.push_back(*heads[i].next++);
		if (heads[i].next == heads[i].end)
			refill(i);
	}

	std::vector<BuildPoint> want = reference_order(rows);
	ASSERT_EQ(merged.size(), want.size());
	for (size_t k = 0; k < want.size(); k++)
	{
		ASSERT_EQ(merged[k].key, want[k].key) << k;
		ASSERT_EQ(merged[k].tid, want[k].tid) << k;
		ASSERT_EQ(merged[k].x, want[k].x) << k;
		ASSERT_EQ(merged[k].y, want[k].y) << k;
	}
}

TEST(BuildMerge, MergedRunsAreTheSerialOrder)
{
	std::mt19937_64 rng(20261204);
	check_merge(rng, 0, 1, 10, 4);
	check_merge(rng, 1, 3, 10, 4);
	check_merge(rng, 1000, 1, 1000, 1000); /* one run: the serial sort itself */
	check_merge(rng, 1000, 2, 1000, 7);
	check_merge(rng, 5000, 3, 333, 1);
	check_merge(rng, 20000, 3, 1024, 256);
	check_merge(rng, 100000, 2, 4096, 100);
	check_merge(rng, 100000, 5, 50000, 2048);
}

TEST(BuildMerge, EmptyAndExhaustedRunsAreSkipped)
{
	BuildPoint a[] = {{5, 1, 0, 0}, {9, 1, 0, 0}};
	BuildPoint b[] = {{5, 0, 0, 0}};
	BuildRunHead heads[] = {{a, a}, {a, a + 2}, {b, b + 1}, {b + 1, b + 1}};
	EXPECT_EQ(geoidx::build_merge_pick(heads, 4), 2u); /* key 5 tie: the lower TID */
	heads[2].next++;
	EXPECT_EQ(geoidx::build_merge_pick(heads, 4), 1u);
	heads[1].next = heads[1].end;
	EXPECT_EQ(geoidx::build_merge_pick(heads, 4), 4u);
	EXPECT_EQ(geoidx::build_merge_pick(heads, 0), 0u);
}

TEST(BuildMerge, TheKindIsNotPartOfTheOrder)
{
	BuildPoint low = {7, geoidx::build_tid_kind(3, 1, 5), 0, 0};
	BuildPoint high = {7, geoidx::build_tid_kind(3, 2, 0), 0, 0};
	EXPECT_TRUE(geoidx::build_point_before(low, high));
	EXPECT_FALSE(geoidx::build_point_before(high, low));
	EXPECT_FALSE(geoidx::build_point_before(low, low));
}

} // namespace
