/*
 * The geometry->geography cast for points, with the expected values worked out
 * by hand from PostGIS's rules (liblwgeom/lwgeodetic.c):
 *
 * ptarray_nudge_geodetic: a coordinate beyond a bound by at most 1e-10 is set
 *   to the bound (no NOTICE).
 * ptarray_force_geodetic: only if x < -180 || x > 180 || y < -90 || y > 90
 *   are BOTH coordinates passed through the normalisers (and a NOTICE says so).
 * longitude_degrees_normalize: remainder(lon, +-360) beyond +-360, then one
 *   +-360 shift into [-180, 180], then -180 -> 180 (and -360 -> 0).
 * latitude_degrees_normalize: remainder(lat, +-360) beyond +-360, then
 *   reflections lat -> +-180 - lat: the result has the same sine, in [-90, 90];
 *   the longitude is NOT moved to the other side of the pole.
 * geographic_point_init: deg2rad(d) = M_PI * d / 180, then the radian
 *   normalisers, which turn -pi into pi.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include "geodesy.h"

namespace
{

using namespace geoidx;

struct Case
{
	double x, y;
	CoordCheck check;
	double lon, lat;
};

std::string
describe(double x, double y)
{
	std::ostringstream s;
	s.precision(17);
	s << "POINT(" << x << " " << y << ")";
	return s.str();
}

} // namespace

TEST(Normalize, HandWorkedCases)
{
	const CoordCheck in = CoordCheck::in_range, co = CoordCheck::coerced;
	const Case cases[] = {
		/* in range: untouched, including lon -180 */
		{0, 0, in, 0, 0},
		{-180, 0, in, -180, 0},
		{180, 0, in, 180, 0},
		{-180, -90, in, -180, -90},
		{180, 90, in, 180, 90},
		{12.5, -45.25, in, 12.5, -45.25},
		/* nudged onto the bound, no NOTICE, -180 stays -180 */
		{180 + 5e-11, 0, in, 180, 0},
		{-180 - 5e-11, 0, in, -180, 0},
		{10, 90 + 9e-11, in, 10, 90},
		{10, -90 - 9e-11, in, 10, -90},
		{180 + 5e-11, 90 + 5e-11, in, 180, 90},
		/* longitude wrapped */
		{190, 0, co, -170, 0},
		{-190, 0, co, 170, 0},
		{181, 10, co, -179, 10},
		{-181, 10, co, 179, 10},
		{270, 1, co, -90, 1},
		{360, 0, co, 0, 0},
		{-360, 0, co, 0, 0},
		{720, 5, co, 0, 5},
		{540, 0, co, 180, 0},  /* remainder(540, 360) = -180 (ties to even), then -180 -> 180 */
		{-540, 0, co, 180, 0}, /* remainder(-540, -360) = 180 */
		{900, 0, co, 180, 0},  /* remainder(900, 360) = 180 */
		{1e6, 0, co, -80, 0},  /* 1e6 - 2778 * 360 */
		{-1e6, 0, co, 80, 0},
		/* latitude reflected, longitude kept */
		{0, 100, co, 0, 80},
		{10, 100, co, 10, 80},
		{0, -95, co, 0, -85},
		{0, 91, co, 0, 89},
		{0, 180, co, 0, 0},
		{0, -180, co, 0, 0},
		{0, 200, co, 0, -20},
		{0, -200, co, 0, 20},
		{0, 270, co, 0, -90},
		{0, -270, co, 0, 90},
		{0, 360, co, 0, 0},
		{0, 405, co, 0, 45},
		{0, 450, co, 0, 90},
		{0, 100.5, co, 0, 79.5},
		/* both, and lon -180 of a coerced point becomes 180 */
		{190, 100, co, -170, 80},
		{-180, 95, co, 180, 85},
		{-180 - 5e-11, 95, co, 180, 85},
		{-180, -100, co, 180, -80},
	};
	for (const Case &c : cases)
	{
		LonLat out{-999, -999};
		CoordCheck r = normalize_like_geography(c.x, c.y, &out);
		EXPECT_EQ(static_cast<int>(r), static_cast<int>(c.check)) << describe(c.x, c.y);
		EXPECT_EQ(out.lon, c.lon) << describe(c.x, c.y);
		EXPECT_EQ(out.lat, c.lat) << describe(c.x, c.y);
	}
}

TEST(Normalize, BeyondTheNudgeToleranceWraps)
{
	LonLat out;
	/* 1e-9 beyond: not nudged, so wrapped to the other side */
	EXPECT_EQ(normalize_like_geography(180 + 1e-9, 0, &out), CoordCheck::coerced);
	EXPECT_NEAR(out.lon, -180 + 1e-9, 1e-13);
	EXPECT_GT(out.lon, -180);
	EXPECT_EQ(normalize_like_geography(-180 - 1e-9, 0, &out), CoordCheck::coerced);
	EXPECT_NEAR(out.lon, 180 - 1e-9, 1e-13);
	EXPECT_EQ(normalize_like_geography(0, 90 + 1e-9, &out), CoordCheck::coerced);
	EXPECT_NEAR(out.lat, 90 - 1e-9, 1e-13);
	EXPECT_LT(out.lat, 90);
	EXPECT_EQ(normalize_like_geography(0, -90 - 1e-9, &out), CoordCheck::coerced);
	EXPECT_NEAR(out.lat, -90 + 1e-9, 1e-13);
}

TEST(Normalize, NotFiniteIsRefusedAndOutputUntouched)
{
	const double nan = std::numeric_limits<double>::quiet_NaN();
	const double inf = std::numeric_limits<double>::infinity();
	const double bad[][2] = {{nan, 0},  {0, nan},   {inf, 0},    {-inf, 0}, {0, inf},
							 {0, -inf}, {nan, nan}, {inf, -inf}, {nan, 95}, {190, inf}};
	for (const auto &b : bad)
	{
		LonLat out{1.5, 2.5};
		EXPECT_EQ(normalize_like_geography(b[0], b[1], &out), CoordCheck::not_finite)
			<< describe(b[0], b[1]);
		EXPECT_EQ(out.lon, 1.5);
		EXPECT_EQ(out.lat, 2.5);
	}
}

/*
 * Properties that follow from the rules: in-range input is returned bit for
 * bit; otherwise lon' = lon (mod 360) in (-180, 180] and sin(lat') = sin(lat)
 * with lat' in [-90, 90].
 */
TEST(Normalize, RandomInputsFollowTheRules)
{
	std::mt19937_64 rng(190);
	std::uniform_real_distribution<double> lon_in(-180, 180), lat_in(-90, 90), wide(-5000, 5000);
	for (int i = 0; i < 200000; i++)
	{
		LonLat out;
		double x = lon_in(rng), y = lat_in(rng);
		ASSERT_EQ(normalize_like_geography(x, y, &out), CoordCheck::in_range);
		ASSERT_EQ(out.lon, x);
		ASSERT_EQ(out.lat, y);

		x = wide(rng);
		y = i % 2 ? wide(rng) : lat_in(rng);
		bool outside = x < -180 || x > 180 || y < -90 || y > 90;
		CoordCheck r = normalize_like_geography(x, y, &out);
		ASSERT_EQ(r, outside ? CoordCheck::coerced : CoordCheck::in_range) << describe(x, y);
		ASSERT_GE(out.lon, -180);
		ASSERT_LE(out.lon, 180);
		ASSERT_GE(out.lat, -90);
		ASSERT_LE(out.lat, 90);
		if (outside)
		{
			ASSERT_NE(out.lon, -180) << describe(x, y);
		}
		double turns = (x - out.lon) / 360;
		ASSERT_NEAR(turns, std::round(turns), 1e-12) << describe(x, y);
		ASSERT_NEAR(std::sin(out.lat * M_PI / 180), std::sin(y * M_PI / 180), 1e-12)
			<< describe(x, y);
	}
}

TEST(Normalize, GeographicPointRadians)
{
	GeoPoint p = geographic_point({180, 0});
	EXPECT_EQ(p.lon, M_PI);
	/* -180 degrees is -pi radians, which longitude_radians_normalize turns into pi */
	p = geographic_point({-180, 0});
	EXPECT_EQ(p.lon, M_PI);
	p = geographic_point({90, 45});
	EXPECT_DOUBLE_EQ(p.lon, M_PI / 2);
	EXPECT_DOUBLE_EQ(p.lat, M_PI / 4);
	p = geographic_point({-90, -90});
	EXPECT_DOUBLE_EQ(p.lon, -M_PI / 2);
	EXPECT_EQ(p.lat, -M_PI_2);
	p = geographic_point({0, 90});
	EXPECT_EQ(p.lat, M_PI_2);
	/* deg2rad is M_PI * d / 180, in that order */
	std::mt19937_64 rng(1);
	std::uniform_real_distribution<double> lon(-179.9, 179.9), lat(-89.9, 89.9);
	for (int i = 0; i < 10000; i++)
	{
		LonLat ll{lon(rng), lat(rng)};
		p = geographic_point(ll);
		ASSERT_EQ(p.lon, M_PI * ll.lon / 180.0);
		ASSERT_EQ(p.lat, M_PI * ll.lat / 180.0);
	}
}
