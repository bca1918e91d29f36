#include "disc_estimate.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "geodesy.h"

namespace
{

using geoidx::Box3;
using geoidx::LonLat;
using geoidx::Vec3;

Vec3
unit_of(LonLat ll)
{
	return geoidx::unit_vector(geoidx::geographic_point(ll));
}

/* Points spread evenly (by area) over a lon/lat patch, and their box. */
struct Patch
{
	std::vector<Vec3> points;
	Box3 box;
};

Patch
even_patch(std::mt19937_64 &rng, LonLat corner, double dlon, double dlat, int n)
{
	std::uniform_real_distribution<double> u(0.0, 1.0);
	Patch p{{}, geoidx::box_empty()};
	double s0 = std::sin(corner.lat * M_PI / 180.0);
	double s1 = std::sin(std::min(90.0, corner.lat + dlat) * M_PI / 180.0);
	for (int i = 0; i < n; i++)
	{
		double lon = corner.lon + dlon * u(rng);
		if (lon > 180.0)
			lon -= 360.0;
		double lat = std::asin(s0 + (s1 - s0) * u(rng)) * 180.0 / M_PI;
		Vec3 v = unit_of({lon, lat});
		p.points.push_back(v);
		geoidx::box_extend(&p.box, v);
	}
	return p;
}

/* Exact metres on the mean sphere, what DiscEstimate's chord stands for. */
double
sphere_metres(const Vec3 &a, const Vec3 &b)
{
	return geoidx::chord2_to_angle(geoidx::chord2(a, b)) * geoidx::kSphereRadius;
}

/*
 * A box with any point in the disc never gets a share of 0: the tree walk
 * skips a box of share 0, so a 0 there would lose its rows from the estimate.
 * And a box no point of which is in the disc by a margin gets 0 only when
 * that is provable, never from sampling alone.
 */
TEST(DiscEstimate, ZeroOnlyWhenProvablyOutside)
{
	std::mt19937_64 rng(42);
	std::uniform_real_distribution<double> u(0.0, 1.0);
	int checked = 0;
	for (int i = 0; i < 3000; i++)
	{
		LonLat corner{360.0 * u(rng) - 180.0, 170.0 * u(rng) - 85.0};
		double size = std::pow(10.0, -3.0 + 4.0 * u(rng)); /* 0.001 to 10 degrees */
		Patch p = even_patch(rng, corner, size, size, 50);
		/* a disc centred at one of the points, or near the patch */
		Vec3 c = p.points[0];
		LonLat cl{corner.lon + size * (2.0 * u(rng) - 0.5),
				  corner.lat + size * (2.0 * u(rng) - 0.5)};
		if (cl.lat > 90.0 || cl.lat < -90.0 || cl.lon > 180.0 || cl.lon < -180.0)
			continue;
		if (i % 2)
			c = unit_of(cl);
		double radius = std::pow(10.0, 1.0 + 6.0 * u(rng));
		geoidx::GeoPoint g{std::atan2(c.y, c.x), std::asin(std::clamp(c.z, -1.0, 1.0))};
		geoidx::DiscEstimate d = geoidx::disc_estimate(g, radius, true);
		bool any_in = std::any_of(p.points.begin(), p.points.end(),
								  [&](const Vec3 &v) { return sphere_metres(c, v) <= radius; });
		double share = geoidx::box_share_in_disc(d, p.box);
		ASSERT_GE(share, 0.0);
		ASSERT_LE(share, 1.0);
		if (any_in)
		{
			ASSERT_GT(share, 0.0) << "a box holding a point in the disc, radius " << radius;
			checked++;
		}
		if (share == 0.0)
		{
			ASSERT_EQ(geoidx::classify_box(d.test, p.box), geoidx::Verdict::outside);
		}
	}
	EXPECT_GT(checked, 1000);
}

/* The sampled share is close to the share of evenly spread points actually in the disc. */
TEST(DiscEstimate, ShareOfAnEvenPatch)
{
	std::mt19937_64 rng(7);
	std::uniform_real_distribution<double> u(0.0, 1.0);
	int compared = 0;
	double worst = 0.0;
	for (int i = 0; i < 400; i++)
	{
		LonLat corner{360.0 * u(rng) - 180.0, 150.0 * u(rng) - 75.0};
		double size = std::pow(10.0, -2.0 + 2.0 * u(rng)); /* 0.01 to 1 degree */
		Patch p = even_patch(rng, corner, size, size, 4000);
		/* a disc about as large as the patch, centred inside it */
		LonLat cl{corner.lon + size * u(rng), corner.lat + size * u(rng)};
		if (cl.lon > 180.0)
			cl.lon -= 360.0;
		double radius = size * 111000.0 * (0.2 + 0.6 * u(rng));
		geoidx::DiscEstimate d = geoidx::disc_estimate(geoidx::geographic_point(cl), radius, true);
		Vec3 c = unit_of(cl);
		double in = std::count_if(p.points.begin(), p.points.end(),
								  [&](const Vec3 &v) { return sphere_metres(c, v) <= radius; });
		double actual = in / p.points.size();
		if (actual < 0.05)
			continue;
		double share = geoidx::box_share_in_disc(d, p.box);
		worst = std::max(worst, std::max(share / actual, actual / share));
		compared++;
	}
	EXPECT_GT(compared, 300);
	/* an 8 x 8 sample of the patch: an estimate (1.7x at worst here), well within the planner's 3x
	 */
	EXPECT_LT(worst, 2.0) << "the worst ratio of the sampled share to the actual share";
}

/* A disc far smaller than the box: the ratio of the areas, not 0. */
TEST(DiscEstimate, SmallDiscInALargeBox)
{
	std::mt19937_64 rng(3);
	Patch p = even_patch(rng, {10.0, 40.0}, 10.0, 10.0, 20000);
	LonLat centre{15.03, 45.02};
	double radius = 20000.0;
	geoidx::DiscEstimate d = geoidx::disc_estimate(geoidx::geographic_point(centre), radius, true);
	Vec3 c = unit_of(centre);
	double in = std::count_if(p.points.begin(), p.points.end(),
							  [&](const Vec3 &v) { return sphere_metres(c, v) <= radius; });
	double actual = in / p.points.size();
	double share = geoidx::box_share_in_disc(d, p.box);
	ASSERT_GT(actual, 0.0);
	EXPECT_GT(share, actual / 3.0);
	EXPECT_LT(share, actual * 3.0);
}

/* Provable verdicts: a box wholly inside gets 1, one far away 0. */
TEST(DiscEstimate, ProvableVerdicts)
{
	std::mt19937_64 rng(5);
	Patch p = even_patch(rng, {-0.01, 51.49}, 0.02, 0.02, 100);
	geoidx::DiscEstimate near =
		geoidx::disc_estimate(geoidx::geographic_point({0.0, 51.5}), 10000.0, true);
	EXPECT_EQ(geoidx::box_share_in_disc(near, p.box), 1.0);
	geoidx::DiscEstimate far =
		geoidx::disc_estimate(geoidx::geographic_point({2.35, 48.85}), 10000.0, true);
	EXPECT_EQ(geoidx::box_share_in_disc(far, p.box), 0.0);
	EXPECT_EQ(geoidx::box_share_in_disc(near, geoidx::box_empty()), 0.0);
	for (const Vec3 &v : p.points)
	{
		EXPECT_TRUE(geoidx::vector_in_disc(near, v));
		EXPECT_FALSE(geoidx::vector_in_disc(far, v));
	}
}

} // namespace
