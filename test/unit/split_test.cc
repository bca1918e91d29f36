/*
 * choose_split: a permutation, a left size within the fill limits, the same
 * answer for the same input, the least summed margin among the cuts of its own
 * order, and two well-separated clusters end up on different pages.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "geodesy.h"
#include "sphere_bounds.h"
#include "split.h"

namespace
{

using namespace geoidx;

struct SplitResult
{
	std::vector<size_t> order;
	size_t left = 0;
};

/* Scratch filled with garbage first: the result must not depend on it. */
SplitResult
run_split(const std::vector<Box3> &boxes, size_t min_fill, unsigned char garbage)
{
	size_t n = boxes.size();
	SplitResult r;
	r.order.assign(n, static_cast<size_t>(-1));
	std::vector<Box3> scratch(2 * n + 1);
	std::vector<double> keys(n + 1);
	std::memset(static_cast<void *>(scratch.data()), garbage, scratch.size() * sizeof(Box3));
	std::memset(static_cast<void *>(keys.data()), garbage, keys.size() * sizeof(double));
	r.left = static_cast<size_t>(-1);
	choose_split(boxes.data(), n, min_fill, r.order.data(), &r.left, scratch.data(), keys.data());
	return r;
}

Box3
cover(const std::vector<Box3> &boxes, const std::vector<size_t> &order, size_t from, size_t to)
{
	Box3 b = box_empty();
	for (size_t i = from; i < to; i++)
		box_extend(&b, boxes[order[i]]);
	return b;
}

Vec3
point_near(std::mt19937_64 &rng, double lon, double lat, double spread)
{
	std::uniform_real_distribution<double> u(-spread, spread);
	LonLat ll;
	normalize_like_geography(lon + u(rng), lat + u(rng), &ll);
	return unit_vector(geographic_point(ll));
}

} // namespace

TEST(Split, PermutationFillAndDeterminism)
{
	std::mt19937_64 rng(99);
	std::uniform_real_distribution<double> lon(-180, 180), lat(-90, 90), spread(0.0, 20.0);
	long cases = 0;
	for (int iter = 0; iter < 1500; iter++)
	{
		size_t n = 2 + rng() % 250;
		double clon = lon(rng), clat = lat(rng), s = spread(rng);
		std::vector<Box3> boxes;
		for (size_t i = 0; i < n; i++)
		{
			Box3 b = box_of(point_near(rng, clon, clat, s));
			if (rng() % 3 == 0) /* an inner page's entry: a small box */
				box_extend(&b, point_near(rng, clon, clat, s));
			boxes.push_back(b);
		}
		if (iter % 10 == 0) /* many identical entries */
			for (size_t i = 0; i < n; i += 2)
				boxes[i] = boxes[0];
		size_t min_fill = 1 + rng() % (n / 2);
		SplitResult r = run_split(boxes, min_fill, 0x00);

		std::vector<size_t> sorted = r.order;
		std::sort(sorted.begin(), sorted.end());
		for (size_t i = 0; i < n; i++)
			ASSERT_EQ(sorted[i], i) << "not a permutation, n=" << n;
		ASSERT_GE(r.left, min_fill) << "n=" << n;
		ASSERT_LE(r.left, n - min_fill) << "n=" << n;

		SplitResult again = run_split(boxes, min_fill, 0xA5);
		ASSERT_EQ(again.order, r.order);
		ASSERT_EQ(again.left, r.left);

		/* least summed margin among the allowed cuts of its own order */
		std::vector<double> left_margin(n + 1, 0.0), right_margin(n + 1, 0.0);
		Box3 acc = box_empty();
		for (size_t k = 1; k <= n; k++)
		{
			box_extend(&acc, boxes[r.order[k - 1]]);
			left_margin[k] = box_margin(acc);
		}
		acc = box_empty();
		for (size_t k = n; k-- > 0;)
		{
			box_extend(&acc, boxes[r.order[k]]);
			right_margin[k] = box_margin(acc);
		}
		double chosen = left_margin[r.left] + right_margin[r.left];
		ASSERT_EQ(chosen, box_margin(cover(boxes, r.order, 0, r.left)) +
							  box_margin(cover(boxes, r.order, r.left, n)));
		for (size_t k = min_fill; k + min_fill <= n; k++)
			ASSERT_GE(left_margin[k] + right_margin[k], chosen)
				<< "cut " << k << " beats " << r.left;
		cases++;
	}
	RecordProperty("cases", std::to_string(cases));
}

TEST(Split, DegenerateSizes)
{
	std::vector<Box3> two = {box_of(Vec3{1, 0, 0}), box_of(Vec3{0, 1, 0})};
	SplitResult r = run_split(two, 1, 0);
	EXPECT_EQ(r.left, 1u);
	EXPECT_NE(r.order[0], r.order[1]);
	/* min_fill beyond n/2 or 0 is clamped, never yields an empty page for n >= 2 */
	std::vector<Box3> three = {box_of(Vec3{1, 0, 0}), box_of(Vec3{0, 1, 0}), box_of(Vec3{0, 0, 1})};
	for (size_t mf : {0u, 1u, 2u, 5u})
	{
		r = run_split(three, mf, 0);
		EXPECT_GE(r.left, 1u) << mf;
		EXPECT_LE(r.left, 2u) << mf;
	}
}

TEST(Split, SeparatesTwoWellSeparatedClusters)
{
	std::mt19937_64 rng(2);
	std::uniform_real_distribution<double> lon(-180, 180), lat(-60, 60);
	long cases = 0;
	for (int iter = 0; iter < 1000; iter++)
	{
		/* two clusters 0.01 degree wide, their centres at least 5 degrees apart */
		double alon = lon(rng), alat = lat(rng), blon, blat;
		do
		{
			blon = lon(rng);
			blat = lat(rng);
		} while (st_distance(geographic_point({alon, alat}), geographic_point({blon, blat}),
							 false) < 5 * 111000.0);
		size_t na = 5 + rng() % 150, nb = 5 + rng() % 150;
		std::vector<Box3> boxes;
		std::vector<int> cluster;
		for (size_t i = 0; i < na + nb; i++)
		{
			bool a = i < na;
			boxes.push_back(box_of(point_near(rng, a ? alon : blon, a ? alat : blat, 0.01)));
			cluster.push_back(a ? 0 : 1);
		}
		/* shuffle the entries, keeping track of which cluster each is in */
		for (size_t i = boxes.size(); i > 1; i--)
		{
			size_t j = rng() % i;
			std::swap(boxes[i - 1], boxes[j]);
			std::swap(cluster[i - 1], cluster[j]);
		}
		size_t min_fill = 1 + rng() % std::min(na, nb);
		SplitResult r = run_split(boxes, min_fill, 0);
		int left_cluster = cluster[r.order[0]];
		for (size_t i = 0; i < boxes.size(); i++)
			ASSERT_EQ(cluster[r.order[i]], i < r.left ? left_cluster : 1 - left_cluster)
				<< "clusters of " << na << " and " << nb << " mixed, min_fill " << min_fill;
		ASSERT_EQ(r.left, left_cluster == 0 ? na : nb);
		cases++;
	}
	RecordProperty("cases", std::to_string(cases));
}

/*
 * NULL and EMPTY rows have empty boxes. They must sort after every point (no
 * NaN key from inf + -inf), and when there are enough of them the cheapest cut
 * puts them all on one page and the points on the other.
 */
TEST(Split, EmptyBoxesSortLastAndSeparate)
{
	std::mt19937_64 rng(7);
	std::vector<Box3> boxes;
	std::vector<bool> empty;
	for (int i = 0; i < 300; i++)
	{
		bool e = (i % 3 == 0);
		empty.push_back(e);
		boxes.push_back(e ? box_empty() : box_of(point_near(rng, 10.0, 50.0, 5.0)));
	}
	SplitResult r = run_split(boxes, 90, 0);
	ASSERT_GE(r.left, 90u);
	ASSERT_LE(r.left, 210u);
	size_t first_empty = boxes.size();
	for (size_t k = 0; k < r.order.size(); k++)
		if (empty[r.order[k]])
		{
			first_empty = k;
			break;
		}
	for (size_t k = first_empty; k < r.order.size(); k++)
		EXPECT_TRUE(empty[r.order[k]]) << "a point sorted after an empty box at " << k;
	EXPECT_EQ(first_empty, 200u);
	/* the cheapest cut leaves every empty on the right page (a point or two may join them) */
	EXPECT_LE(r.left, 200u);
	EXPECT_GE(r.left, 180u);

	/* only empty boxes: still a valid split with both pages non-empty */
	std::vector<Box3> all_empty(50, box_empty());
	r = run_split(all_empty, 15, 1);
	EXPECT_GE(r.left, 15u);
	EXPECT_LE(r.left, 35u);
	std::vector<size_t> sorted = r.order;
	std::sort(sorted.begin(), sorted.end());
	for (size_t i = 0; i < sorted.size(); i++)
		EXPECT_EQ(sorted[i], i);
}
