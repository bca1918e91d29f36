#include "cell_region.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "cells.h"
#include "geodesy.h"

namespace
{

using geoidx::Box3;
using geoidx::LonLat;
using geoidx::Vec3;

constexpr size_t kBoxes = geoidx::kCellRegionBoxes;

LonLat
random_point(std::mt19937_64 &rng)
{
	std::uniform_real_distribution<double> u(-1.0, 1.0);
	return {180.0 * u(rng), std::asin(u(rng)) * 180.0 / M_PI};
}

bool
in_some_box(const Box3 *b, size_t n, const Vec3 &v)
{
	for (size_t i = 0; i < n; i++)
		if (geoidx::box_contains(b[i], v))
			return true;
	return false;
}

/* A random range of cells at level: a few cells, a stretch of the curve, or open at one end. */
void
random_range(std::mt19937_64 &rng, int level, uint64_t *lo, uint64_t *hi)
{
	uint64_t n = geoidx::cells_at_level(level);
	std::uniform_int_distribution<uint64_t> any(0, n);
	uint64_t a = any(rng), b = any(rng);
	*lo = std::min(a, b);
	*hi = std::max(a, b);
	switch (rng() % 4)
	{
		case 0:
			*hi = std::min(n, *lo + 1 + rng() % 5); /* a few cells */
			break;
		case 1:
			*lo = 0; /* FROM (MINVALUE) */
			break;
		case 2:
			*hi = ~UINT64_C(0); /* TO (MAXVALUE) */
			break;
		default:
			break;
	}
}

} // namespace

/*
 * Every point whose cell lies in the range is in one of the range's boxes,
 * and no point of the range is nearer to a centre than the region's bound:
 * the exact distance (PROJ on the spheroid, or the sphere) of 2,000 random
 * points against 300 random ranges at levels 0 to 12 and 30, from random
 * centres.
 */
TEST(CellRegion, NoPointOfTheRangeIsNearerThanItsBound)
{
	std::mt19937_64 rng(20261205);
	std::vector<LonLat> pts;
	for (int i = 0; i < 2000; i++)
		pts.push_back(random_point(rng));
	size_t inside = 0, tight = 0;
	for (int r = 0; r < 300; r++)
	{
		int level = r % 14 == 13 ? geoidx::kMaxCellLevel : r % 13;
		uint64_t lo, hi;
		random_range(rng, level, &lo, &hi);
		Box3 boxes[kBoxes];
		size_t n = geoidx::cell_range_boxes(lo, hi, level, boxes, kBoxes);
		ASSERT_LE(n, kBoxes);
		ASSERT_EQ(n == 0, lo >= std::min(hi, geoidx::cells_at_level(level)));
		LonLat c = random_point(rng);
		geoidx::GeoPoint gc = geoidx::geographic_point(c);
		Vec3 q = geoidx::unit_vector(gc);
		double sphere_bound = geoidx::region_lower_bound(boxes, n, q, false);
		double spheroid_bound = geoidx::region_lower_bound(boxes, n, q, true);
		double nearest = std::numeric_limits<double>::infinity();
		for (const LonLat &p : pts)
		{
			geoidx::GeoPoint gp = geoidx::geographic_point(p);
			Vec3 v = geoidx::unit_vector(gp);
			uint64_t cell = geoidx::cell_of(v, level);
			if (cell < lo || cell >= hi)
				continue;
			inside++;
			ASSERT_TRUE(in_some_box(boxes, n, v)) << "level " << level << " cell " << cell;
			double m = geoidx::spheroid_distance(gc, gp);
			ASSERT_LE(spheroid_bound, m) << "level " << level << " [" << lo << ", " << hi << ")";
			ASSERT_LE(sphere_bound, geoidx::st_distance(gc, gp, false));
			nearest = std::min(nearest, m);
		}
		/* the bound is of use: often within a third of the nearest point the range holds */
		if (nearest < std::numeric_limits<double>::infinity() && spheroid_bound > 0.66 * nearest)
			tight++;
	}
	EXPECT_GT(inside, 100000u);
	EXPECT_GT(tight, 50u);
}

/* A centre in the range is at 0; an empty range holds nothing, at an endless distance. */
TEST(CellRegion, ACentreInsideIsAtZeroAndAnEmptyRangeAtInfinity)
{
	std::mt19937_64 rng(7);
	for (int i = 0; i < 500; i++)
	{
		int level = i % 31;
		LonLat c = random_point(rng);
		Vec3 q = geoidx::unit_vector(geoidx::geographic_point(c));
		uint64_t cell = geoidx::cell_of(q, level);
		Box3 boxes[kBoxes];
		size_t n = geoidx::cell_range_boxes(cell, cell + 1, level, boxes, kBoxes);
		ASSERT_EQ(n, 1u);
		EXPECT_EQ(geoidx::region_lower_bound(boxes, n, q, true), 0.0);
		n = geoidx::cell_list_boxes(&cell, 1, level, boxes, kBoxes);
		ASSERT_EQ(n, 1u);
		EXPECT_EQ(geoidx::region_lower_bound(boxes, n, q, true), 0.0);
		EXPECT_EQ(geoidx::cell_range_boxes(cell, cell, level, boxes, kBoxes), 0u);
	}
	Box3 boxes[kBoxes];
	EXPECT_EQ(geoidx::region_lower_bound(boxes, 0, Vec3{1, 0, 0}, true),
			  std::numeric_limits<double>::infinity());
	/* past the last cell of a level there is none */
	uint64_t past = geoidx::cells_at_level(3);
	EXPECT_EQ(geoidx::cell_range_boxes(past, past + 10, 3, boxes, kBoxes), 0u);
	size_t n = geoidx::cell_list_boxes(&past, 1, 3, boxes, kBoxes);
	EXPECT_EQ(geoidx::region_lower_bound(boxes, n, Vec3{1, 0, 0}, true),
			  std::numeric_limits<double>::infinity());
}

/* The whole sphere at any level is the six faces, and every point is in a box at 0 m. */
TEST(CellRegion, TheWholeRangeIsTheSphere)
{
	std::mt19937_64 rng(11);
	for (int level : {0, 1, 5, 30})
	{
		Box3 boxes[kBoxes];
		size_t n = geoidx::cell_range_boxes(0, ~UINT64_C(0), level, boxes, kBoxes);
		EXPECT_EQ(n, 6u) << level;
		for (int i = 0; i < 200; i++)
		{
			Vec3 v = geoidx::unit_vector(geoidx::geographic_point(random_point(rng)));
			ASSERT_TRUE(in_some_box(boxes, n, v));
			ASSERT_EQ(geoidx::region_lower_bound(boxes, n, v, true), 0.0);
		}
	}
}

/* A list of cells: every point of a listed cell is in a box, and no nearer than the bound. */
TEST(CellRegion, AListOfCellsBoundsItsPoints)
{
	std::mt19937_64 rng(99);
	for (int r = 0; r < 100; r++)
	{
		int level = 1 + r % 9;
		std::vector<uint64_t> cells;
		for (int i = 0; i < 1 + r % 30; i++)
			cells.push_back(rng() % geoidx::cells_at_level(level));
		Box3 boxes[kBoxes];
		size_t n = geoidx::cell_list_boxes(cells.data(), cells.size(), level, boxes, kBoxes);
		geoidx::GeoPoint gc = geoidx::geographic_point(random_point(rng));
		Vec3 q = geoidx::unit_vector(gc);
		double bound = geoidx::region_lower_bound(boxes, n, q, true);
		for (int i = 0; i < 3000; i++)
		{
			geoidx::GeoPoint gp = geoidx::geographic_point(random_point(rng));
			Vec3 v = geoidx::unit_vector(gp);
			if (std::find(cells.begin(), cells.end(), geoidx::cell_of(v, level)) == cells.end())
				continue;
			ASSERT_TRUE(in_some_box(boxes, n, v));
			ASSERT_LE(bound, geoidx::spheroid_distance(gc, gp));
		}
	}
}

/*
 * The ranges of a covering hold the cell of every point within the radius
 * (point_within decides), are ascending, apart and at most kPruneRanges (or
 * 2, which merges neighbours), and
 * are far from the whole sphere for a small circle: random centres, radii
 * from 1 m to 15,000 km, levels 0 to 30, points near the circle's edge.
 */
TEST(CellRegion, CoveringRangesHoldEveryPointWithin)
{
	std::mt19937_64 rng(314);
	std::uniform_real_distribution<double> u01(0.0, 1.0);
	size_t checked = 0, small = 0;
	for (int r = 0; r < 400; r++)
	{
		LonLat c = random_point(rng);
		if (r % 17 == 0)
			c = {r % 2 ? 180.0 : -180.0, r % 3 ? 89.99 : 0.0}; /* antimeridian, pole */
		double radius = std::pow(10.0, 7.2 * u01(rng));        /* 1 m .. 15,800 km */
		int level = r % 31;
		bool spheroid = r % 2 == 0;
		geoidx::GeoPoint g = geoidx::geographic_point(c);
		uint64_t lo[geoidx::kPruneRanges], hi[geoidx::kPruneRanges];
		size_t n =
			geoidx::covering_ranges(g, radius, spheroid, level, lo, hi, geoidx::kPruneRanges);
		ASSERT_GE(n, 1u);
		ASSERT_LE(n, geoidx::kPruneRanges);
		uint64_t total = 0;
		for (size_t i = 0; i < n; i++)
		{
			ASSERT_LT(lo[i], hi[i]);
			ASSERT_LE(hi[i], geoidx::cells_at_level(level));
			if (i > 0)
			{
				ASSERT_LT(hi[i - 1], lo[i]) << "ranges must be ascending and apart";
			}
			total += hi[i] - lo[i];
		}
		if (radius < 500000.0 && level >= 4 && total * 4 < geoidx::cells_at_level(level))
			small++;
		geoidx::RadiusTest t = geoidx::radius_test(g, radius, spheroid);
		double dlat = std::min(180.0, 1.2 * radius / 111000.0 + 1e-6);
		for (int k = 0; k < 300; k++)
		{
			/* a point near the circle, or anywhere */
			LonLat p = k % 3 == 0
						   ? random_point(rng)
						   : LonLat{c.lon + 360.0 * (u01(rng) - 0.5) * std::min(1.0, dlat / 30.0),
									c.lat + dlat * (2 * u01(rng) - 1)};
			p.lat = std::max(-90.0, std::min(90.0, p.lat));
			p.lon = std::remainder(p.lon, 360.0);
			if (!geoidx::point_within(t, p))
				continue;
			uint64_t cell =
				geoidx::cell_of(geoidx::unit_vector(geoidx::geographic_point(p)), level);
			bool in = false;
			for (size_t i = 0; i < n; i++)
				in |= cell >= lo[i] && cell < hi[i];
			ASSERT_TRUE(in) << "centre " << c.lon << " " << c.lat << " radius " << radius
							<< " level " << level << " point " << p.lon << " " << p.lat;
			checked++;
		}
	}
	EXPECT_GT(checked, 10000u);
	EXPECT_GT(small, 50u);
	/* an endless radius is every cell */
	uint64_t lo[1], hi[1];
	ASSERT_EQ(geoidx::covering_ranges(geoidx::geographic_point({0, 0}),
									  std::numeric_limits<double>::infinity(), true, 5, lo, hi, 1),
			  1u);
	EXPECT_EQ(lo[0], 0u);
	EXPECT_EQ(hi[0], geoidx::cells_at_level(5));
}
