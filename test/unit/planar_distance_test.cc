/*
 * The planar k-NN's bounds (planar_distance.h) against brute force: a box of
 * the vectors of random raw points (wrapped, a turn away, beyond a pole)
 * must bound below the planar distance from any target to each of them, as
 * a point entry's vector is placed (the geography cast) and as a shape's box
 * holds its raw rectangle (its image); and a point target's distance is
 * PostGIS's arithmetic.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "cast_vector.h"
#include "geodesy.h"
#include "planar_distance.h"
#include "shape_bounds.h"

namespace
{

using namespace geoidx;

TEST(PlanarDistance, PointDistanceIsPostgisArithmetic)
{
	const PlanarTarget t{3.0, 3.0, 4.0, 4.0, true};
	EXPECT_EQ(planar_point_distance(t, 0.0, 0.0), 5.0);
	EXPECT_EQ(planar_point_distance(t, 0.1, 0.2),
			  std::sqrt((3.0 - 0.1) * (3.0 - 0.1) + (4.0 - 0.2) * (4.0 - 0.2)));
	/* a box target: the distance to the box, 0 inside */
	const PlanarTarget b{0.0, 10.0, 0.0, 10.0, false};
	EXPECT_EQ(planar_point_distance(b, 5.0, 5.0), 0.0);
	EXPECT_EQ(planar_point_distance(b, 13.0, 14.0), 5.0);
}

TEST(PlanarDistance, RangeHoldsEveryVector)
{
	std::mt19937_64 rng(12);
	std::uniform_real_distribution<double> u(0.0, 1.0);
	for (int k = 0; k < 20000; k++)
	{
		const double lon = -180.0 + 360.0 * u(rng), lat = -90.0 + 180.0 * u(rng);
		const double w = (k % 3 == 0 ? 40.0 : 0.5) * u(rng);
		Box3 b = box_empty();
		std::vector<LonLat> pts;
		for (int j = 0; j < 8; j++)
		{
			LonLat ll{lon + w * u(rng), std::clamp(lat + w * (u(rng) - 0.5), -90.0, 90.0)};
			if (j == 0 && k % 7 == 0)
				ll.lat = k % 2 ? 90.0 : -90.0;
			pts.push_back(ll);
			box_extend(&b, unit_vector(geographic_point(ll)));
		}
		const LonLatRange r = box_lonlat_range(b);
		for (const LonLat &p : pts)
		{
			ASSERT_LE(r.lat_min, p.lat);
			ASSERT_GE(r.lat_max, p.lat);
			if (r.lon_max - r.lon_min >= 360.0 || std::fabs(p.lat) == 90.0)
				continue;
			const double turns = std::floor((p.lon - r.lon_min) / 360.0);
			const double lon_in = p.lon - 360.0 * turns;
			ASSERT_LE(lon_in, r.lon_max + 1e-9) << p.lon << " " << r.lon_min << " " << r.lon_max;
		}
	}
}

TEST(PlanarDistance, BoxBoundIsBelowEveryEntry)
{
	std::mt19937_64 rng(4326);
	std::uniform_real_distribution<double> u(0.0, 1.0);
	long checked = 0, tight = 0;
	for (int k = 0; k < 3000; k++)
	{
		/* raw points around somewhere, written a turn away or beyond a pole now and then */
		const double cx = -180.0 + 360.0 * u(rng), cy = -88.0 + 176.0 * u(rng);
		const double w = (k % 4 == 0 ? 20.0 : 0.3) * u(rng);
		std::vector<LonLat> raw;
		Box3 points = box_empty(), shapes = box_empty();
		for (int j = 0; j < 16; j++)
		{
			double x = cx + w * (u(rng) - 0.5), y = cy + w * (u(rng) - 0.5);
			if (j % 5 == 1)
				x += 360.0 * (1 + (k % 3));
			if (j % 7 == 2)
				y = (y > 0 ? 180.0 - y : -180.0 - y); /* beyond the pole nearest it */
			raw.push_back(LonLat{x, y});
			box_extend(&points, cast_vector(x, y));
			box_extend(&shapes, degree_box_image(DegreeBox{x, y, x, y}));
		}
		for (int i = 0; i < 6; i++)
		{
			const double tx = -540.0 + 1080.0 * u(rng), ty = -200.0 + 400.0 * u(rng);
			const double tw = i % 2 ? 0.0 : 5.0 * u(rng);
			const PlanarTarget t{tx, tx + tw, ty, ty + tw, tw == 0.0};
			const double bp = planar_box_bound(t, points), bs = planar_box_bound(t, shapes);
			for (const LonLat &p : raw)
			{
				const double d = planar_point_distance(t, p.lon, p.lat);
				ASSERT_LE(bp, d) << "point entry " << p.lon << " " << p.lat << " target " << tx
								 << " " << ty;
				ASSERT_LE(bs, d) << "shape entry " << p.lon << " " << p.lat << " target " << tx
								 << " " << ty;
				/* and each alone: a box that holds nothing else */
				ASSERT_LE(planar_box_bound(t, box_of(cast_vector(p.lon, p.lat))), d)
					<< "a point entry alone " << p.lon << " " << p.lat;
				ASSERT_LE(
					planar_box_bound(t, degree_box_image(DegreeBox{p.lon, p.lat, p.lon, p.lat})), d)
					<< "a shape entry alone " << p.lon << " " << p.lat;
				checked++;
			}
			/* the bound is no vacuous zero: near targets get near bounds */
			const PlanarTarget near{cx + 2.0 * w + 1.0, cx + 2.0 * w + 1.0, cy, cy, true};
			tight += planar_box_bound(near, points) > 0.5;
		}
	}
	EXPECT_GT(checked, 250000);
	EXPECT_GT(tight, 3000);
}

} // namespace
