#include "region_order.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "cell_region.h"
#include "cells.h"
#include "geodesy.h"

namespace
{

using geoidx::Box3;
using geoidx::RegionRef;
using geoidx::RegionSlot;
using geoidx::Vec3;

constexpr size_t kBoxes = geoidx::kCellRegionBoxes;

Vec3
random_unit(std::mt19937_64 &rng)
{
	std::uniform_real_distribution<double> u(-1.0, 1.0);
	return geoidx::unit_vector(
		geoidx::geographic_point(geoidx::LonLat{180.0 * u(rng), std::asin(u(rng)) * 180.0 / M_PI}));
}

/*
 * Partitions as a table range-partitioned on geoidx_cell(pos, level) has
 * them: the level's cells cut into count ranges at random points, a default
 * partition (no region), and one range that holds no cell.
 */
struct Partitions
{
	std::vector<Box3> boxes;
	std::vector<RegionRef> refs;
};

Partitions
make_partitions(std::mt19937_64 &rng, int level, size_t count)
{
	uint64_t cells = geoidx::cells_at_level(level);
	std::vector<uint64_t> cuts{0, cells};
	std::uniform_int_distribution<uint64_t> any(1, cells - 1);
	while (cuts.size() < count + 1)
		cuts.push_back(any(rng));
	std::sort(cuts.begin(), cuts.end());
	Partitions p;
	p.boxes.resize((count + 2) * kBoxes);
	std::vector<size_t> n;
	for (size_t i = 0; i < count; i++)
		n.push_back(
			geoidx::cell_range_boxes(cuts[i], cuts[i + 1], level, &p.boxes[i * kBoxes], kBoxes));
	n.push_back(0); /* a range with no cell */
	for (size_t i = 0; i <= count; i++)
	{
		const Box3 *b = &p.boxes[i * kBoxes];
		p.refs.push_back(RegionRef{b, n[i], geoidx::region_hull(b, n[i]), true});
	}
	p.refs.push_back(RegionRef{nullptr, 0, geoidx::box_empty(), false}); /* the default partition */
	std::shuffle(p.refs.begin(), p.refs.end(), rng);
	return p;
}

double
expected_bound(const RegionRef &r, const Vec3 *q, bool spheroid, double slack)
{
	if (q == nullptr || !r.known)
		return 0.0;
	return std::max(0.0, geoidx::region_lower_bound(r.boxes, r.n, *q, spheroid) - slack);
}

/* Every partition once, in nondecreasing order of exactly region_lower_bound's metres. */
TEST(RegionOrder, HandsOutEveryPartitionInTheOrderOfItsBound)
{
	std::mt19937_64 rng(20261206);
	size_t checked = 0;
	for (int round = 0; round < 60; round++)
	{
		int level = 3 + (int) (rng() % 6);
		Partitions p = make_partitions(rng, level, 4 + rng() % 64);
		size_t count = p.refs.size();
		std::vector<RegionSlot> near(count), sorted(count);
		for (int k = 0; k < 60; k++)
		{
			Vec3 q = random_unit(rng);
			if (k % 5 == 0)
			{
				/* the antipode of a region: its bound past the monotone range */
				const RegionRef &r = p.refs[rng() % count];
				if (r.n > 0)
					q = Vec3{-(r.hull.lo[0] + r.hull.hi[0]) / 2, -(r.hull.lo[1] + r.hull.hi[1]) / 2,
							 -(r.hull.lo[2] + r.hull.hi[2]) / 2};
			}
			const Vec3 *qp = k % 17 == 3 ? nullptr : &q; /* a NULL or EMPTY centre */
			bool spheroid = k % 2 == 0;
			double slack = (k % 3 == 0) ? 0.0 : (k % 3 == 1 ? 1500.0 : 2.0e6);
			geoidx::RegionOrder o;
			geoidx::region_order_start(&o, p.refs.data(), count, qp, spheroid, slack, near.data(),
									   sorted.data());
			std::vector<bool> seen(count, false);
			double last = -1.0;
			size_t child;
			double bound;
			size_t handed = 0;
			while (geoidx::region_order_next(&o, &child, &bound))
			{
				ASSERT_LT(child, count);
				ASSERT_FALSE(seen[child]) << "partition " << child << " twice";
				seen[child] = true;
				ASSERT_EQ(bound, expected_bound(p.refs[child], qp, spheroid, slack))
					<< "round " << round << " query " << k << " partition " << child;
				ASSERT_GE(bound, last) << "out of order at partition " << child;
				last = bound;
				geoidx::region_order_take(&o);
				handed++;
				checked++;
			}
			ASSERT_EQ(handed, count);
		}
	}
	EXPECT_GT(checked, 100000u);
}

/*
 * Within ~1e-7 rad of the antipode a farther chord can have the nearer metre
 * bound (the antipodal slack of metres_lower_bound grows faster than the
 * angle): partitions there are ordered by their metres. Point-sized regions
 * 1e-8 to 1e-6 rad from the antipode of the centre, in shuffled order.
 */
TEST(RegionOrder, OrdersByMetresNearTheAntipode)
{
	std::mt19937_64 rng(7);
	std::vector<Box3> boxes;
	for (double x = 1e-8; x < 1e-6; x *= 1.15)
		boxes.push_back(geoidx::box_of(Vec3{x, 0.0, -std::sqrt(1.0 - x * x)}));
	std::shuffle(boxes.begin(), boxes.end(), rng);
	std::vector<RegionRef> refs;
	for (const Box3 &b : boxes)
		refs.push_back(RegionRef{&b, 1, b, true});
	std::vector<RegionSlot> near(refs.size()), sorted(refs.size());
	const Vec3 q{0.0, 0.0, 1.0};
	for (bool spheroid : {false, true})
	{
		geoidx::RegionOrder o;
		geoidx::region_order_start(&o, refs.data(), refs.size(), &q, spheroid, 0.0, near.data(),
								   sorted.data());
		size_t child, handed = 0;
		double bound, last = -1.0;
		bool reversed = false; /* a farther chord with a nearer bound: what the test is about */
		double last_raw = -1.0;
		while (geoidx::region_order_next(&o, &child, &bound))
		{
			ASSERT_EQ(bound, expected_bound(refs[child], &q, spheroid, 0.0));
			ASSERT_GE(bound, last);
			double raw = geoidx::min_chord2(refs[child].hull, q);
			reversed = reversed || raw < last_raw;
			last = bound;
			last_raw = raw;
			geoidx::region_order_take(&o);
			handed++;
		}
		EXPECT_EQ(handed, refs.size());
		EXPECT_TRUE(reversed) << "no chord order differs from the metre order here";
	}
}

/*
 * What it is for: a centre inside one of 64 partitions, and the two nearest
 * partitions handed out, reads the boxes of a few partitions, not of 64.
 */
TEST(RegionOrder, ReadsTheBoxesOfTheNearPartitionsOnly)
{
	std::mt19937_64 rng(64);
	Partitions p = make_partitions(rng, 8, 64);
	size_t count = p.refs.size();
	std::vector<RegionSlot> near(count), sorted(count);
	size_t reads = 0, queries = 2000;
	for (size_t k = 0; k < queries; k++)
	{
		Vec3 q = random_unit(rng);
		geoidx::RegionOrder o;
		geoidx::region_order_start(&o, p.refs.data(), count, &q, true, 0.0, near.data(),
								   sorted.data());
		size_t child;
		double bound;
		for (int i = 0; i < 2 && geoidx::region_order_next(&o, &child, &bound); i++)
			geoidx::region_order_take(&o);
		reads += o.box_reads;
	}
	double mean = (double) reads / (double) queries;
	EXPECT_LT(mean, 12.0) << "partitions whose boxes were read, of " << count;
	EXPECT_GE(mean, 2.0);
}

} // namespace
