/*
 * The degree box of a search circle against brute force: points generated on
 * and around the circle's boundary (PROJ's geod_direct for the spheroid, the
 * spherical direct formula for the sphere) that ST_DWithin accepts, in either
 * argument order, must lie in the box. Plus the special cases (poles,
 * antimeridian, zero and infinite radii) and the area ratio used for estimates.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <geodesic.h>
#include <random>

#include "degree_box.h"
#include "sphere_bounds.h"

namespace
{

using namespace geoidx;

constexpr double kDeg = M_PI / 180.0;

const geod_geodesic &
wgs84()
{
	static const geod_geodesic g = []
	{
		geod_geodesic init;
		geod_init(&init, kWgs84A, kWgs84F);
		return init;
	}();
	return g;
}

double
wrap_lon(double lon)
{
	while (lon > 180.0)
		lon -= 360.0;
	while (lon < -180.0)
		lon += 360.0;
	return lon;
}

/* The point at distance d (metres) and azimuth az (degrees) from c. */
LonLat
direct(LonLat c, double az, double d, bool use_spheroid)
{
	LonLat p;
	if (use_spheroid)
	{
		geod_direct(&wgs84(), c.lat, c.lon, az, d, &p.lat, &p.lon, nullptr);
	}
	else
	{
		double s = d / kSphereRadius, phi0 = c.lat * kDeg, a = az * kDeg;
		double sin_phi = std::sin(phi0) * std::cos(s) + std::cos(phi0) * std::sin(s) * std::cos(a);
		sin_phi = std::max(-1.0, std::min(1.0, sin_phi));
		double phi = std::asin(sin_phi);
		double dl = std::atan2(std::sin(a) * std::sin(s) * std::cos(phi0),
							   std::cos(s) - std::sin(phi0) * sin_phi);
		p.lat = phi / kDeg;
		p.lon = c.lon + dl / kDeg;
	}
	p.lon = wrap_lon(p.lon);
	p.lat = std::max(-90.0, std::min(90.0, p.lat));
	return p;
}

bool
in_box(const DegreeBox &b, LonLat p)
{
	return b.xmin <= p.lon && p.lon <= b.xmax && b.ymin <= p.lat && p.lat <= b.ymax;
}

bool
in_pieces(const DegreeBox *b, int n, LonLat p)
{
	for (int i = 0; i < n; i++)
		if (in_box(b[i], p))
			return true;
	return false;
}

bool
within_either_order(LonLat c, LonLat p, double radius, bool use_spheroid)
{
	LonLat pc, pp;
	normalize_like_geography(c.lon, c.lat, &pc);
	normalize_like_geography(p.lon, p.lat, &pp);
	GeoPoint gc = geographic_point(pc), gp = geographic_point(pp);
	return st_dwithin(gc, gp, radius, use_spheroid) || st_dwithin(gp, gc, radius, use_spheroid);
}

struct Counts
{
	long within = 0;
	long checked = 0;
};

/* Every generated point that is within the radius must be in the box (and in the pieces). */
void
check_circle(LonLat c, double radius, bool use_spheroid, std::mt19937_64 &rng, int nazimuths,
			 Counts *counts)
{
	DegreeBox box = search_box(c, radius, use_spheroid);
	DegreeBox pieces[2];
	int npieces = search_box_pieces(c, radius, use_spheroid, pieces);
	ASSERT_LE(box.xmin, box.xmax);
	ASSERT_LE(box.ymin, box.ymax);
	ASSERT_GE(box.xmin, -180.0);
	ASSERT_LE(box.xmax, 180.0);
	ASSERT_GE(box.ymin, -90.0);
	ASSERT_LE(box.ymax, 90.0);
	ASSERT_TRUE(in_box(box, c));

	std::uniform_real_distribution<double> uaz(0.0, 360.0);
	/* Relative offsets around the boundary, and a few well inside. */
	static const double kScale[] = {1.0 - 1e-3,  1.0 - 1e-7,  1.0 - 1e-10, 1.0 - 1e-13, 1.0,
									1.0 + 1e-13, 1.0 + 1e-10, 1.0 + 1e-7,  0.5,         0.999};
	for (int i = 0; i < nazimuths; i++)
	{
		/* Half the azimuths on a regular grid (the extremes are near 0, 90, 180, 270). */
		double az = (i % 2 == 0) ? 360.0 * i / nazimuths : uaz(rng);
		for (double k : kScale)
		{
			LonLat p = direct(c, az, radius * k, use_spheroid);
			counts->checked++;
			if (!within_either_order(c, p, radius, use_spheroid))
				continue;
			counts->within++;
			ASSERT_TRUE(in_box(box, p))
				<< "centre " << c.lon << " " << c.lat << " radius " << radius << " spheroid "
				<< use_spheroid << " point " << p.lon << " " << p.lat << " box " << box.xmin << " "
				<< box.ymin << " " << box.xmax << " " << box.ymax;
			ASSERT_TRUE(in_pieces(pieces, npieces, p));
		}
	}
	/*
	 * The easternmost and westernmost points of the boundary: a coarse scan of
	 * the azimuth, then a ternary search of the longitude offset around the best.
	 */
	if (!(box.xmin == -180.0 && box.xmax == 180.0))
		for (int side = -1; side <= 1; side += 2)
		{
			auto offset = [&](double az)
			{ return side * (wrap_lon(direct(c, az, radius, use_spheroid).lon - c.lon)); };
			double best = 0.0, best_off = -HUGE_VAL;
			for (int k = 0; k < 360; k++)
				if (offset(k) > best_off)
				{
					best_off = offset(k);
					best = k;
				}
			double lo = best - 1.0, hi = best + 1.0;
			for (int it = 0; it < 100; it++)
			{
				double m1 = lo + (hi - lo) / 3.0, m2 = hi - (hi - lo) / 3.0;
				if (offset(m1) < offset(m2))
					lo = m1;
				else
					hi = m2;
			}
			for (double k : {1.0 - 1e-12, 1.0, 1.0 + 1e-12})
			{
				LonLat p = direct(c, (lo + hi) / 2.0, radius * k, use_spheroid);
				counts->checked++;
				if (within_either_order(c, p, radius, use_spheroid))
				{
					counts->within++;
					ASSERT_TRUE(in_box(box, p)) << "extreme longitude: centre " << c.lon << " "
												<< c.lat << " radius " << radius;
				}
			}
		}
	/* Absolute extremes: the exact boundary on the meridian through the centre, plus 1 mm. */
	for (double az : {0.0, 180.0, 90.0, 270.0})
		for (double extra : {-1e-3, 0.0, 1e-9})
		{
			LonLat p = direct(c, az, radius + extra, use_spheroid);
			counts->checked++;
			if (within_either_order(c, p, radius, use_spheroid))
			{
				counts->within++;
				ASSERT_TRUE(in_box(box, p));
			}
		}
}

LonLat
random_centre(std::mt19937_64 &rng)
{
	std::uniform_real_distribution<double> ulon(-180.0, 180.0), ulat(-90.0, 90.0), u01(0.0, 1.0);
	double r = u01(rng);
	LonLat c{ulon(rng), ulat(rng)};
	if (r < 0.1)
		c.lat =
			(u01(rng) < 0.5 ? -1 : 1) * (90.0 - std::pow(10.0, -8.0 * u01(rng))); /* near a pole */
	else if (r < 0.2)
		c.lon = (u01(rng) < 0.5 ? -1 : 1) *
				(180.0 - std::pow(10.0, -8.0 * u01(rng))); /* antimeridian */
	else if (r < 0.23)
		c.lat = (u01(rng) < 0.5 ? -90.0 : 90.0);
	else if (r < 0.26)
		c.lon = (u01(rng) < 0.5 ? -180.0 : 180.0);
	return c;
}

double
random_radius(std::mt19937_64 &rng)
{
	std::uniform_real_distribution<double> u(-3.0, 7.35); /* 1 mm .. 22,000 km */
	return std::pow(10.0, u(rng));
}

TEST(DegreeBox, ContainsEverythingWithinTheRadiusSpheroid)
{
	std::mt19937_64 rng(20240611);
	Counts counts;
	for (int i = 0; i < 1500; i++)
	{
		check_circle(random_centre(rng), random_radius(rng), true, rng, 64, &counts);
		if (HasFatalFailure())
			return;
	}
	EXPECT_GT(counts.within, counts.checked / 2);
}

TEST(DegreeBox, ContainsEverythingWithinTheRadiusSphere)
{
	std::mt19937_64 rng(77);
	Counts counts;
	for (int i = 0; i < 1500; i++)
	{
		check_circle(random_centre(rng), random_radius(rng), false, rng, 64, &counts);
		if (HasFatalFailure())
			return;
	}
	EXPECT_GT(counts.within, counts.checked / 2);
}

/* Uniform points around the box: whatever ST_DWithin accepts is inside. */
TEST(DegreeBox, RandomPointsNearTheBox)
{
	std::mt19937_64 rng(5);
	std::uniform_real_distribution<double> u01(0.0, 1.0);
	long within = 0;
	for (int i = 0; i < 2000; i++)
	{
		LonLat c = random_centre(rng);
		double radius = std::pow(10.0, 1.0 + 5.5 * u01(rng));
		bool sph = (i % 2) == 0;
		DegreeBox b = search_box(c, radius, sph);
		double w = b.xmax - b.xmin, h = b.ymax - b.ymin;
		for (int j = 0; j < 200; j++)
		{
			LonLat p{wrap_lon(b.xmin - 0.05 * w + 1.1 * w * u01(rng)),
					 std::max(-90.0, std::min(90.0, b.ymin - 0.05 * h + 1.1 * h * u01(rng)))};
			if (within_either_order(c, p, radius, sph))
			{
				within++;
				ASSERT_TRUE(in_box(b, p)) << c.lon << " " << c.lat << " r " << radius;
			}
		}
	}
	EXPECT_GT(within, 100000);
}

/* Not much larger than the circle: the box of a small circle is its tight bound plus slack. */
TEST(DegreeBox, TightForSmallCircles)
{
	for (double lat : {0.0, 30.0, -60.0, 80.0})
	{
		LonLat c{10.0, lat};
		double radius = 10000.0;
		DegreeBox b = search_box(c, radius, true);
		double north = direct(c, 0.0, radius, true).lat - lat;
		EXPECT_LT(b.ymax - lat, north * 1.02);
		EXPECT_GT(b.ymax - lat, north);
		double east = 0.0;
		for (int az = 0; az < 36000; az++)
			east = std::max(east, direct(c, az / 100.0, radius, true).lon - c.lon);
		EXPECT_GT(b.xmax - c.lon, east);
		EXPECT_LT(b.xmax - c.lon, east * 1.02); /* the sphere bound of a spheroid distance */
	}
}

TEST(DegreeBox, SpecialCases)
{
	/* Infinite radius: everything. */
	DegreeBox all = search_box({12.0, 34.0}, HUGE_VAL, true);
	EXPECT_EQ(all.xmin, -180.0);
	EXPECT_EQ(all.xmax, 180.0);
	EXPECT_EQ(all.ymin, -90.0);
	EXPECT_EQ(all.ymax, 90.0);
	EXPECT_EQ(far_central_angle(HUGE_VAL, false), M_PI);
	EXPECT_EQ(far_central_angle(3e7, true), M_PI);

	/* Zero radius: a tiny box around the centre. */
	DegreeBox zero = search_box({12.0, 34.0}, 0.0, true);
	EXPECT_LT(zero.xmin, 12.0);
	EXPECT_GT(zero.xmax, 12.0);
	EXPECT_LT(zero.xmax - zero.xmin, 1e-4);
	EXPECT_LT(zero.ymax - zero.ymin, 1e-4);

	/* A cap over a pole: all longitudes, up to the pole. */
	DegreeBox pole = search_box({45.0, 89.99}, 5000.0, true);
	EXPECT_EQ(pole.xmin, -180.0);
	EXPECT_EQ(pole.xmax, 180.0);
	EXPECT_EQ(pole.ymax, 90.0);
	EXPECT_LT(pole.ymin, 89.99 - 0.04);
	EXPECT_GT(pole.ymin, 89.99 - 0.05);
	DegreeBox south = search_box({0.0, -90.0}, 1000.0, false);
	EXPECT_EQ(south.ymin, -90.0);
	EXPECT_EQ(south.xmax - south.xmin, 360.0);

	/* Crossing the antimeridian: all longitudes in one box, two pieces for estimates. */
	DegreeBox am = search_box({179.99, 10.0}, 5000.0, true);
	EXPECT_EQ(am.xmin, -180.0);
	EXPECT_EQ(am.xmax, 180.0);
	DegreeBox pieces[2];
	ASSERT_EQ(search_box_pieces({179.99, 10.0}, 5000.0, true, pieces), 2);
	EXPECT_LT(pieces[0].xmin, 179.99);
	EXPECT_EQ(pieces[0].xmax, 180.0);
	EXPECT_EQ(pieces[1].xmin, -180.0);
	EXPECT_GT(pieces[1].xmax, -180.0);
	EXPECT_LT(pieces[1].xmax, -179.9);
	ASSERT_EQ(search_box_pieces({-180.0, 10.0}, 5000.0, true, pieces), 2);
	ASSERT_EQ(search_box_pieces({0.0, 10.0}, 5000.0, true, pieces), 1);

	/* Not a radius: treated as everything rather than as garbage. */
	DegreeBox nan = search_box({1.0, 2.0}, std::nan(""), true);
	EXPECT_EQ(nan.xmax - nan.xmin, 360.0);
}

TEST(DegreeBox, FarAngleBoundsEveryDistance)
{
	/* No pair with a central angle above far_central_angle(d) is within d. */
	std::mt19937_64 rng(3);
	std::uniform_real_distribution<double> ulon(-180.0, 180.0), ulat(-90.0, 90.0);
	for (int i = 0; i < 200000; i++)
	{
		LonLat a{ulon(rng), ulat(rng)}, b{ulon(rng), ulat(rng)};
		GeoPoint ga = geographic_point(a), gb = geographic_point(b);
		double angle = sphere_central_angle(ga, gb);
		for (bool sph : {true, false})
		{
			double d = st_distance(ga, gb, sph);
			ASSERT_LE(angle, far_central_angle(d, sph));
		}
	}
}

TEST(DegreeBox, CircleFraction)
{
	for (double lat : {0.0, 45.0, -70.0})
	{
		DegreeBox pieces[2];
		int n = search_box_pieces({20.0, lat}, 1000.0, true, pieces);
		double f = circle_fraction(1000.0, pieces, n);
		EXPECT_NEAR(f, M_PI / 4.0, 0.01) << lat;
	}
	/* Over a pole the box is a polar cap band, bigger than the circle but not absurdly. */
	DegreeBox pieces[2];
	int n = search_box_pieces({0.0, 90.0}, 100000.0, true, pieces);
	double f = circle_fraction(100000.0, pieces, n);
	EXPECT_GT(f, 0.9);
	EXPECT_LE(f, 1.0);
	n = search_box_pieces({0.0, 0.0}, HUGE_VAL, true, pieces);
	EXPECT_EQ(circle_fraction(HUGE_VAL, pieces, n), 1.0);
	EXPECT_NEAR(circle_area_sr(M_PI * kSphereRadius), 4.0 * M_PI, 1e-12);
	EXPECT_NEAR(box_area_sr({-180.0, -90.0, 180.0, 90.0}), 4.0 * M_PI, 1e-12);
	n = search_box_pieces({179.999, 10.0}, 1000.0, false, pieces);
	ASSERT_EQ(n, 2);
	EXPECT_NEAR(circle_fraction(1000.0, pieces, n), M_PI / 4.0, 0.01);
}

} // namespace
