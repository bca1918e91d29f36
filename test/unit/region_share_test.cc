/*
 * The statistics-free rules of the region estimates against brute force: the
 * share of a sample of rows for which the predicate holds, computed with
 * PostGIS's own arithmetic (st_dwithin, the rounded st_distance) and
 * PostgreSQL's float8 comparisons (NaN equal to itself and above every
 * number, as float8_cmp_internal orders them), never with the rules' code.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "geodesy.h"
#include "region.h"
#include "region_share.h"

namespace
{

using namespace geoidx;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

/* PostgreSQL's float8_cmp_internal: NaN = NaN, NaN > every number. */
int
float8_cmp(double a, double b)
{
	if (std::isnan(a))
		return std::isnan(b) ? 0 : 1;
	if (std::isnan(b))
		return -1;
	return a > b ? 1 : (a < b ? -1 : 0);
}

/* The predicate for one row, as SQL evaluates it. */
bool
holds(RegionMode m, GeoPoint c, GeoPoint p, double r, bool spheroid)
{
	switch (m)
	{
		case RegionMode::within:
			return st_dwithin(c, p, r, spheroid);
		case RegionMode::outside:
			return !st_dwithin(c, p, r, spheroid);
		case RegionMode::dist_gt:
			return float8_cmp(st_distance(c, p, true), r) > 0;
		case RegionMode::dist_ge:
			return float8_cmp(st_distance(c, p, true), r) >= 0;
		case RegionMode::dist_lt:
			return float8_cmp(st_distance(c, p, true), r) < 0;
		case RegionMode::dist_le:
			return float8_cmp(st_distance(c, p, true), r) <= 0;
		case RegionMode::box_meets:
			break; /* not a mode of a circle */
	}
	return false;
}

LonLat
random_point(std::mt19937_64 &rng)
{
	std::uniform_real_distribution<double> u(-1.0, 1.0);
	return LonLat{180.0 * u(rng), std::asin(u(rng)) * 180.0 / M_PI};
}

/* Rows around a centre: the centre itself (distance 0), its antipode, and random points. */
std::vector<GeoPoint>
sample(std::mt19937_64 &rng, LonLat c, int n)
{
	std::vector<GeoPoint> rows;
	rows.push_back(geographic_point(c));
	rows.push_back(geographic_point(LonLat{c.lon > 0 ? c.lon - 180.0 : c.lon + 180.0, -c.lat}));
	for (int i = 0; i < n; i++)
		rows.push_back(geographic_point(random_point(rng)));
	return rows;
}

/* A random centre and a sample of rows around it. */
struct Scene
{
	GeoPoint c;
	std::vector<GeoPoint> rows;
};

Scene
scene(std::mt19937_64 &rng, int n)
{
	LonLat cl = random_point(rng);
	return Scene{geographic_point(cl), sample(rng, cl, n)};
}

/* Call check(c, rows, rng) for `scenes` random centres with a sample of n rows each. */
template <typename Check>
void
for_each_scene(unsigned seed, int scenes, int n, Check check)
{
	std::mt19937_64 rng(seed);
	for (int q = 0; q < scenes; q++)
	{
		Scene sc = scene(rng, n);
		check(sc.c, sc.rows, rng);
	}
}

/* The share of rows for which the predicate holds. */
double
share(RegionMode m, GeoPoint c, const std::vector<GeoPoint> &rows, double r, bool spheroid)
{
	long n = 0;
	for (const GeoPoint &p : rows)
		n += holds(m, c, p, r, spheroid);
	return (double) n / (double) rows.size();
}

const RegionMode kDistanceModes[] = {RegionMode::dist_gt, RegionMode::dist_ge, RegionMode::dist_lt,
									 RegionMode::dist_le};

} // namespace

/* A bound that decides every row alike gives that share; one that does not is left to estimate. */
TEST(RegionShare, DecidedBoundsEqualBruteForce)
{
	for_each_scene(
		41, 20, 300,
		[](const GeoPoint &c, const std::vector<GeoPoint> &rows, std::mt19937_64 &)
		{
			for (RegionMode m : kDistanceModes)
				for (double r : {kNaN, -kNaN, -1.0, -1e-300, -kInf, -0.0, 0.0, 1e5, 1e7, kInf})
				{
					double got;
					double want = share(m, c, rows, r, true);
					if (bound_decides_share(m, r, &got))
						EXPECT_EQ(got, want) << "mode " << (int) m << " bound " << r;
					else
						/* left to the statistics: the bound must be a number >= 0 (or -0) */
						EXPECT_TRUE(r >= 0.0) << "mode " << (int) m << " bound " << r;
				}
		});
	/* NaN and negative bounds are always decided: the predicate is constant there */
	double s;
	for (RegionMode m : kDistanceModes)
		for (double r : {kNaN, -1.0, -kInf})
			EXPECT_TRUE(bound_decides_share(m, r, &s)) << "mode " << (int) m << " bound " << r;
}

/* A disc's or its complement's radius never decides by itself: a bad one is an error. */
TEST(RegionShare, DiscRadiiAreNeverDecided)
{
	double s;
	for (RegionMode m : {RegionMode::within, RegionMode::outside})
		for (double r : {kNaN, -1.0, 0.0, 1e5, kInf})
			EXPECT_FALSE(bound_decides_share(m, r, &s));
}

/* invalid exactly for the radii geoidx refuses (NaN, below 0); everything only if all are within.
 */
TEST(RegionShare, DiscRadiusRulesEqualBruteForce)
{
	EXPECT_EQ(classify_disc_radius(kNaN), DiscRadius::invalid);
	EXPECT_EQ(classify_disc_radius(-1e-300), DiscRadius::invalid);
	EXPECT_EQ(classify_disc_radius(-kInf), DiscRadius::invalid);
	EXPECT_EQ(classify_disc_radius(-0.0), DiscRadius::estimate); /* -0 >= 0: no error */
	EXPECT_EQ(classify_disc_radius(0.0), DiscRadius::estimate);
	EXPECT_EQ(classify_disc_radius(1e6), DiscRadius::estimate);
	EXPECT_EQ(classify_disc_radius(kInf), DiscRadius::everything);

	std::mt19937_64 rng(43);
	/* the farthest pairs there are: antipodes, pole to pole, near-antipodes on the equator */
	std::vector<std::pair<LonLat, LonLat>> pairs = {{{0, 90}, {0, -90}},
													{{0, 0}, {180, 0}},
													{{10, 0}, {-170.0000001, 0}},
													{{45, 30}, {-135, -30}}};
	for (int i = 0; i < 20000; i++)
	{
		LonLat a = random_point(rng);
		pairs.push_back({a, random_point(rng)});
		pairs.push_back({a, LonLat{a.lon > 0 ? a.lon - 180.0 : a.lon + 180.0, -a.lat}});
	}
	for (double r : {M_PI * kSphereRadius, 2.0e7, 2.001e7, 2.0016e7, 1e9, kInf})
	{
		if (classify_disc_radius(r) != DiscRadius::everything)
			continue;
		for (const auto &pr : pairs)
			for (bool spheroid : {true, false})
			{
				GeoPoint a = geographic_point(pr.first), b = geographic_point(pr.second);
				ASSERT_TRUE(st_dwithin(a, b, r, spheroid)) << "r " << r;
			}
	}
	/* and the threshold is no looser than needed: below it some pair is beyond */
	double below = std::nextafter(M_PI * kSphereRadius, 0.0) * (1.0 - 1e-3);
	EXPECT_NE(classify_disc_radius(below), DiscRadius::everything);
	bool some_beyond = false;
	for (const auto &pr : pairs)
		some_beyond |=
			!st_dwithin(geographic_point(pr.first), geographic_point(pr.second), below, false);
	EXPECT_TRUE(some_beyond);
}

/* The share of each region is the disc's share or its complement, as counted row by row. */
TEST(RegionShare, RegionOfDiscEqualsBruteForce)
{
	for_each_scene(
		47, 30, 400,
		[](const GeoPoint &c, const std::vector<GeoPoint> &rows, std::mt19937_64 &rng)
		{
			double r = std::uniform_real_distribution<double>(1e5, 1.9e7)(rng);
			double disc = share(RegionMode::within, c, rows, r, true);
			for (int m = 0; m < kRegionModes; m++)
			{
				RegionMode mode = (RegionMode) m;
				EXPECT_NEAR(region_share_of_disc(mode, disc), share(mode, c, rows, r, true), 1e-12)
					<< "mode " << m << " r " << r;
			}
			/* +Infinity: no statistics needed once the disc holds everything */
			ASSERT_EQ(classify_disc_radius(kInf), DiscRadius::everything);
			for (RegionMode m : kDistanceModes)
				EXPECT_EQ(region_share_of_disc(m, 1.0), share(m, c, rows, kInf, true));
		});
}

/* A ring is its outer disc without its inner one; an inverted ring holds nothing. */
TEST(RegionShare, RingEqualsBruteForce)
{
	for_each_scene(53, 30, 400,
				   [](const GeoPoint &c, const std::vector<GeoPoint> &rows, std::mt19937_64 &rng)
				   {
					   std::uniform_real_distribution<double> u(0.0, 1.9e7);
					   double r1 = u(rng), r2 = u(rng);
					   long n = 0;
					   for (const GeoPoint &p : rows)
						   n += st_dwithin(c, p, r2, true) && !st_dwithin(c, p, r1, true);
					   double want = (double) n / (double) rows.size();
					   double got = ring_share(share(RegionMode::within, c, rows, r2, true),
											   share(RegionMode::within, c, rows, r1, true));
					   EXPECT_NEAR(got, want, 1e-12) << r1 << " " << r2;
					   EXPECT_GE(got, 0.0);
				   });
}

/* Unknown regions: a disc and its complement share out all rows, the disc few of them. */
TEST(RegionShare, UnknownRegionsAreComplements)
{
	EXPECT_DOUBLE_EQ(unknown_region_share(false) + unknown_region_share(true), 1.0);
	EXPECT_EQ(unknown_region_share(false), kDefaultShare);
	EXPECT_LT(unknown_region_share(false), 0.5);
}

TEST(RegionShare, ClampGivesAShare)
{
	EXPECT_EQ(clamp_share(kNaN), 0.0);
	EXPECT_EQ(clamp_share(-kInf), 0.0);
	EXPECT_EQ(clamp_share(-1e-9), 0.0);
	EXPECT_EQ(clamp_share(kInf), 1.0);
	EXPECT_EQ(clamp_share(1.0 + 1e-9), 1.0);
	EXPECT_EQ(clamp_share(0.25), 0.25);
	EXPECT_EQ(clamp_share(0.0), 0.0);
}
