/*
 * Region keys against brute force: point_in_region must equal the comparison
 * PostgreSQL would make on PostGIS's own numbers (ST_DWithin for within and
 * outside, the rounded ST_Distance with float8 semantics for the distance
 * modes), and a box verdict must agree with every point inside the box.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "geodesy.h"
#include "region.h"

namespace
{

using namespace geoidx;

/* What PostgreSQL computes for the predicate, from the exact PostGIS-equivalent functions. */
bool
reference(RegionMode m, GeoPoint c, GeoPoint p, double r, bool spheroid)
{
	if (m == RegionMode::within)
		return st_dwithin(c, p, r, spheroid);
	if (m == RegionMode::outside)
		return !st_dwithin(c, p, r, spheroid);
	double d = st_distance(c, p, spheroid);
	if (std::isnan(r)) /* float8: NaN sorts above every number */
		return m == RegionMode::dist_lt || m == RegionMode::dist_le;
	switch (m)
	{
		case RegionMode::dist_gt:
			return d > r;
		case RegionMode::dist_ge:
			return d >= r;
		case RegionMode::dist_lt:
			return d < r;
		default:
			return d <= r;
	}
}

LonLat
random_point(std::mt19937_64 &rng)
{
	std::uniform_real_distribution<double> u(-1.0, 1.0);
	std::uniform_real_distribution<double> lon(-180.0, 180.0);
	return LonLat{lon(rng), std::asin(u(rng)) * 180.0 / M_PI};
}

LonLat
near(std::mt19937_64 &rng, LonLat c, double spread_deg)
{
	std::uniform_real_distribution<double> u(-spread_deg, spread_deg);
	LonLat out;
	normalize_like_geography(c.lon + u(rng), c.lat + u(rng), &out);
	return out;
}

} // namespace

TEST(Region, PointsEqualBruteForce)
{
	std::mt19937_64 rng(42);
	const double radii[] = {0.0, 1.0, 1234.5, 1e5, 5e6, 2.2e7};
	long checked = 0, inside = 0;
	for (int q = 0; q < 300; q++)
	{
		LonLat cl = random_point(rng);
		GeoPoint c = geographic_point(cl);
		for (double r : radii)
			for (int mode = 0; mode < kRegionModes; mode++)
				for (bool spheroid : {true, false})
				{
					RegionTest t = region_test(c, r, spheroid, static_cast<RegionMode>(mode));
					for (int i = 0; i < 40; i++)
					{
						/* a third near the boundary: at the exact distance of a point, +-1 ulp-ish
						 */
						LonLat pl =
							(i % 3 == 0) ? random_point(rng) : near(rng, cl, r / 1e5 + 0.01);
						GeoPoint p = geographic_point(pl);
						double rr = r;
						if (i % 5 == 0)
							rr = st_distance(c, p, spheroid); /* exactly on the bound */
						RegionTest tt =
							rr == r ? t
									: region_test(c, rr, spheroid, static_cast<RegionMode>(mode));
						bool want = reference(static_cast<RegionMode>(mode), c, p, rr, spheroid);
						/* the form with the vector precomputed (the k-NN scan's) agrees too */
						ASSERT_EQ(point_in_region_at(tt, pl, p, unit_vector(p)), want)
							<< "mode " << mode << " r " << rr;
						ASSERT_EQ(point_in_region(tt, pl), want)
							<< "mode " << mode << " r " << rr << " centre " << cl.lon << " "
							<< cl.lat << " point " << pl.lon << " " << pl.lat;
						checked++;
						inside += want;
					}
				}
	}
	EXPECT_GT(inside, checked / 10);
	EXPECT_LT(inside, checked - checked / 10);
}

/*
 * With the point first (geoidx_outside(pos, centre, ...)), within and outside
 * must be ST_DWithin(point, centre) to the last bit, also on the sphere, where
 * PostGIS's angle is not symmetric: bounds exactly at a point's distance in
 * either order.
 */
TEST(Region, PointFirstFollowsTheArgumentOrder)
{
	std::mt19937_64 rng(5);
	long asymmetric = 0;
	for (int q = 0; q < 20000; q++)
	{
		LonLat cl = random_point(rng);
		LonLat pl = (q % 2) ? near(rng, cl, 0.5) : random_point(rng);
		GeoPoint c = geographic_point(cl), p = geographic_point(pl);
		for (bool spheroid : {false, true})
			for (double r :
				 {kSphereRadius * sphere_central_angle(p, c),
				  kSphereRadius * sphere_central_angle(c, p), st_distance(p, c, spheroid)})
				for (RegionMode m : {RegionMode::within, RegionMode::outside})
				{
					RegionTest t = region_test(c, r, spheroid, m, true);
					bool want = st_dwithin(p, c, r, spheroid) == (m == RegionMode::within);
					ASSERT_EQ(point_in_region(t, pl), want) << q;
					RegionTest u = region_test(c, r, spheroid, m, false);
					bool want_c = st_dwithin(c, p, r, spheroid) == (m == RegionMode::within);
					ASSERT_EQ(point_in_region(u, pl), want_c) << q;
					asymmetric += want != want_c;
				}
	}
	/* the orders do differ sometimes, so the flag is not a no-op */
	EXPECT_GT(asymmetric, 0);
}

TEST(Region, OddBoundsFollowFloat8)
{
	std::mt19937_64 rng(3);
	const double nan = std::numeric_limits<double>::quiet_NaN();
	const double inf = std::numeric_limits<double>::infinity();
	for (double r : {-1.0, -inf, nan, inf, 0.0})
		for (int mode = 2; mode < kRegionModes; mode++)
		{
			LonLat cl = random_point(rng);
			GeoPoint c = geographic_point(cl);
			RegionTest t = region_test(c, r, true, static_cast<RegionMode>(mode));
			for (int i = 0; i < 200; i++)
			{
				LonLat pl = i == 0 ? cl : random_point(rng);
				ASSERT_EQ(point_in_region(t, pl), reference(static_cast<RegionMode>(mode), c,
															geographic_point(pl), r, true))
					<< "mode " << mode << " r " << r;
			}
		}
}

/*
 * ST_DWithin compares distance <= radius, so a NaN or negative radius has no
 * point within and every point outside (PostGIS answers false, whatever the
 * points); circle.cc makes the outside of an EMPTY centre so.
 */
TEST(Region, NoRadiusHasEverythingOutside)
{
	std::mt19937_64 rng(5);
	const double nan = std::numeric_limits<double>::quiet_NaN();
	const double inf = std::numeric_limits<double>::infinity();
	for (double r : {-1.0, -1e-300, -inf, nan})
		for (RegionMode mode : {RegionMode::within, RegionMode::outside})
			for (bool spheroid : {true, false})
			{
				LonLat cl = random_point(rng);
				RegionTest t = region_test(geographic_point(cl), r, spheroid, mode);
				const bool in = mode == RegionMode::outside;
				for (int i = 0; i < 200; i++)
				{
					LonLat pl = i == 0 ? cl : random_point(rng);
					ASSERT_EQ(point_in_region(t, pl), in) << "r " << r;
					Box3 b = box_of(unit_vector(geographic_point(pl)));
					ASSERT_EQ(classify_region(t, b), in ? Verdict::inside : Verdict::outside);
				}
			}
}

TEST(Region, BoxVerdictsAgreeWithEveryPoint)
{
	std::mt19937_64 rng(11);
	long decided = 0;
	for (int q = 0; q < 2000; q++)
	{
		LonLat cl = random_point(rng);
		GeoPoint c = geographic_point(cl);
		std::uniform_real_distribution<double> logr(0.0, 7.3);
		double r = std::pow(10.0, logr(rng));
		RegionMode mode = static_cast<RegionMode>(q % kRegionModes);
		RegionTest t = region_test(c, r, true, mode);
		/* a cluster of points somewhere around the centre */
		LonLat at = near(rng, cl, r / 5e4);
		std::vector<LonLat> pts;
		Box3 box = box_empty();
		for (int i = 0; i < 30; i++)
		{
			LonLat p = near(rng, at, r / 4e5 + 1e-4);
			pts.push_back(p);
			box_extend(&box, unit_vector(geographic_point(p)));
		}
		Verdict v = classify_region(t, box);
		if (v == Verdict::maybe)
			continue;
		decided++;
		for (const LonLat &p : pts)
			ASSERT_EQ(reference(mode, c, geographic_point(p), r, true), v == Verdict::inside)
				<< "mode " << static_cast<int>(mode) << " r " << r;
	}
	EXPECT_GT(decided, 500);
	/* an empty box (a page of NULL / EMPTY rows) holds no point whatever the mode */
	RegionTest t = region_test(geographic_point({0, 0}), 10.0, true, RegionMode::outside);
	EXPECT_EQ(classify_region(t, box_empty()), Verdict::outside);
	EXPECT_TRUE(empty_in_region(t));
	EXPECT_FALSE(
		empty_in_region(region_test(geographic_point({0, 0}), 10.0, true, RegionMode::dist_gt)));
}
