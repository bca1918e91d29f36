#include "cells.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "geodesy.h"
#include "hilbert.h"

namespace
{

using geoidx::LonLat;
using geoidx::Vec3;

Vec3
unit_of(LonLat ll)
{
	return geoidx::unit_vector(geoidx::geographic_point(ll));
}

/* Points spread over the sphere, with the poles, the antimeridian and face edges and corners. */
std::vector<LonLat>
probe_points(std::mt19937_64 &rng, size_t n)
{
	std::uniform_real_distribution<double> u(-1.0, 1.0);
	std::vector<LonLat> pts = {
		{0, 0},   {0, 90},      {0, -90},      {180, 0}, {-180, 12.5},        {45, 0},
		{-45, 0}, {135, 35.26}, {45, 35.2644}, {90, 45}, {179.9999, 89.9999}, {-135, -35.2643897}};
	while (pts.size() < n)
		pts.push_back({180.0 * u(rng), std::asin(u(rng)) * 180.0 / M_PI});
	return pts;
}

/* A cell's box holds every point whose cell it is; and the cells nest. */
TEST(Cells, ABoxHoldsItsPointsAndCellsNest)
{
	std::mt19937_64 rng(20261204);
	for (const LonLat &ll : probe_points(rng, 20000))
	{
		Vec3 v = unit_of(ll);
		EXPECT_EQ(geoidx::cell_of(v, geoidx::kMaxCellLevel), geoidx::hilbert_key(v));
		for (int level = 0; level <= geoidx::kMaxCellLevel; level++)
		{
			uint64_t cell = geoidx::cell_of(v, level);
			ASSERT_LT(cell >> (2 * level), 6u);
			ASSERT_TRUE(geoidx::box_contains(geoidx::cell_box(cell, level), v))
				<< ll.lon << " " << ll.lat << " level " << level;
			if (level > 0)
			{
				ASSERT_EQ(cell >> 2, geoidx::cell_of(v, level - 1));
			}
		}
	}
}

/* At a level, the cells are 6 * 4^level, and the boxes of two cells far apart do not meet. */
TEST(Cells, BoxesAreTheirCellsNotMore)
{
	for (int level : {0, 1, 2, 3})
	{
		uint64_t n = UINT64_C(6) << (2 * level);
		std::vector<geoidx::Box3> boxes;
		for (uint64_t c = 0; c < n; c++)
			boxes.push_back(geoidx::cell_box(c, level));
		/* the boxes' centres are distinct cells: no two cells map to one place */
		for (uint64_t c = 0; c < n; c++)
		{
			const geoidx::Box3 &b = boxes[c];
			Vec3 mid = {(b.lo[0] + b.hi[0]) / 2, (b.lo[1] + b.hi[1]) / 2, (b.lo[2] + b.hi[2]) / 2};
			double len = std::sqrt(geoidx::dot(mid, mid));
			Vec3 u = {mid.x / len, mid.y / len, mid.z / len};
			EXPECT_EQ(geoidx::cell_of(u, level), c) << "level " << level;
		}
	}
}

/*
 * Every point within the radius (the exact test, point_within, decides) has
 * its cell among the covering cells: many random points near the circle's
 * edge, inside and out, for centres at the poles, the antimeridian, face
 * corners and at random, radii from 1 m to 3,000 km, levels 0 to 30.
 */
TEST(Cells, TheCoveringHoldsTheCellOfEveryPointWithin)
{
	std::mt19937_64 rng(42);
	std::uniform_real_distribution<double> u01(0.0, 1.0);
	std::vector<uint64_t> cells(100000);
	size_t checked = 0;
	for (const LonLat &c : probe_points(rng, 60))
		for (double radius : {1.0, 150.0, 20000.0, 400000.0, 3000000.0})
			for (int level : {0, 3, 8, 13, 18, 24, 30})
			{
				/* a face is ~10,000 km across: at most ~100 cells across the circle */
				if (radius > 100.0 * 1e7 / (double) (UINT64_C(1) << level))
					continue;
				bool spheroid = (checked & 1) == 0;
				geoidx::GeoPoint g = geoidx::geographic_point(c);
				size_t n = 0;
				if (!geoidx::covering_cells(g, radius, spheroid, level, cells.data(), cells.size(),
											&n))
					continue; /* too many at that level: the caller's error */
				ASSERT_GT(n, 0u);
				ASSERT_TRUE(std::is_sorted(cells.begin(), cells.begin() + n));
				geoidx::RadiusTest t = geoidx::radius_test(g, radius, spheroid);
				/* points within ~1.3 radii of the centre, in degrees of latitude and of longitude
				 */
				double dlat = 1.3 * radius / 111000.0 + 1e-6;
				double dlon =
					std::min(180.0, dlat / std::max(1e-3, std::cos(c.lat * M_PI / 180.0)));
				for (int k = 0; k < 400; k++)
				{
					LonLat p = {c.lon + dlon * (2 * u01(rng) - 1),
								c.lat + dlat * (2 * u01(rng) - 1)};
					p.lat = std::max(-90.0, std::min(90.0, p.lat));
					if (p.lon > 180)
						p.lon -= 360;
					if (p.lon < -180)
						p.lon += 360;
					if (!geoidx::point_within(t, p))
						continue;
					uint64_t cell = geoidx::cell_of(unit_of(p), level);
					ASSERT_TRUE(std::binary_search(cells.begin(), cells.begin() + n, cell))
						<< "centre " << c.lon << " " << c.lat << " radius " << radius << " level "
						<< level << " point " << p.lon << " " << p.lat;
					checked++;
				}
			}
	EXPECT_GT(checked, 20000u);
}

/* The covering is not the whole sphere: small circles touch few cells. */
TEST(Cells, SmallCirclesTouchFewCells)
{
	std::vector<uint64_t> cells(100000);
	size_t n = 0;
	geoidx::GeoPoint nyc = geoidx::geographic_point({-73.9857, 40.7484});
	ASSERT_TRUE(geoidx::covering_cells(nyc, 1.0, true, 20, cells.data(), cells.size(), &n));
	EXPECT_LE(n, 4u); /* a level-20 cell is ~10 m across */
	ASSERT_TRUE(geoidx::covering_cells(nyc, 1000.0, true, 10, cells.data(), cells.size(), &n));
	EXPECT_LE(n, 4u); /* ~10 km cells */
	ASSERT_TRUE(geoidx::covering_cells(nyc, 100000.0, true, 10, cells.data(), cells.size(), &n));
	EXPECT_GT(n, 100u);
	EXPECT_LT(n, 800u); /* pi * 100^2 km^2 over ~85 km^2 cells, and the rim */
	ASSERT_TRUE(geoidx::covering_cells(nyc, 100000.0, true, 0, cells.data(), cells.size(), &n));
	EXPECT_EQ(n, 1u);
	/* a pole touches the four cells around it at every level */
	geoidx::GeoPoint pole = geoidx::geographic_point({0, 90});
	ASSERT_TRUE(geoidx::covering_cells(pole, 1.0, true, 16, cells.data(), cells.size(), &n));
	EXPECT_EQ(n, 4u);
	/* the whole sphere at level 2: all 96 cells; too many at level 12 */
	ASSERT_TRUE(geoidx::covering_cells(nyc, 2.1e7, true, 2, cells.data(), cells.size(), &n));
	EXPECT_EQ(n, 96u);
	EXPECT_FALSE(geoidx::covering_cells(nyc, 2.1e7, true, 12, cells.data(), cells.size(), &n));
}

} // namespace
