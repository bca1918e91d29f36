/*
 * Geodesy against references that do not come from geoidx itself: the
 * published test geodesics of PROJ / GeographicLib (Karney), PROJ's own
 * description of EPSG:4326, PostGIS's ticket #4081, and an independent
 * long-double evaluation of the great-circle angle.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <geodesic.h>
#include <proj.h>
#include <random>

#include "geodesy.h"

namespace
{

using namespace geoidx;

/* The geometry->geography cast followed by geographic_point_init, as PostGIS does it. */
GeoPoint
cast_point(double lon, double lat)
{
	LonLat ll;
	EXPECT_NE(normalize_like_geography(lon, lat, &ll), CoordCheck::not_finite);
	return geographic_point(ll);
}

uint64_t
bits(double v)
{
	uint64_t u;
	std::memcpy(&u, &v, sizeof u);
	return u;
}

/*
 * PROJ src/tests/geodtest.cpp (C. Karney, MIT licence), table `testcases`:
 * lat1, lon1, lat2, lon2 and s12 of 20 geodesics on WGS84 taken from
 * GeographicLib's GeodTest.dat. PROJ checks s12 to 1e-8 m.
 */
struct GeodCase
{
	double lat1, lon1, lat2, lon2, s12;
};

const GeodCase kGeodTest[] = {
	{35.60777, -139.44815, -11.17491, -69.95921, 8935244.5604818305},
	{55.52454, 106.05087, 77.03196, 197.18234, 4105086.1713924406},
	{-21.97856, 142.59065, 41.84138, 98.56635, 8394328.894657671},
	{-66.99028, 112.2363, -12.70631, 285.90344, 11150344.2312080241},
	{-17.42761, 173.34268, -15.84784, 5.93557, 16076603.1631180673},
	{32.84994, 48.28919, -56.28556, 202.29132, 16727068.9438164461},
	{6.96833, 52.74123, -7.39675, 206.17291, 17102477.2496958388},
	{-50.56724, -16.30485, -33.56571, -94.97412, 6455670.5118668696},
	{-58.93002, -8.90775, -8.91104, 133.13503, 11756066.0219864627},
	{-68.82867, -74.28391, -50.63005, -8.36685, 3956936.926063544},
	{-10.62672, -32.0898, 5.883, -134.31681, 11470869.3864563009},
	{-21.76221, 166.90563, 48.72884, 213.97627, 9098627.3986554915},
	{-19.79938, -174.47484, -11.99349, -154.35109, 2319004.8601169389},
	{-11.95887, -116.94513, 4.57352, 7.16501, 13834722.5801401374},
	{-87.85331, 85.66836, 66.48646, 16.09921, 17286615.3147144645},
	{1.74708, 128.32011, -11.16617, 11.87109, 12942901.1241347408},
	{-25.72959, -144.90758, -57.70581, -269.17879, 9413446.7452453107},
	{-41.22777, 122.32875, -7.57291, 130.37946, 3812686.035106021},
	{11.01307, 138.25278, 6.62726, 247.05981, 11911190.819018408},
	{-29.47124, 95.14681, -27.46601, -69.15955, 13487015.8381145492},
};

/* The GeodSolveNN regression cases of the same file that are WGS84 inverse problems. */
struct GeodSolveCase
{
	const char *name;
	double lat1, lon1, lat2, lon2, s12, tol;
};

const GeodSolveCase kGeodSolve[] = {
	{"GeodSolve0", 40.6, -73.8, 49.01666667, 2.55, 5853226, 0.5},
	{"GeodSolve4 short line", 36.493349428792, 0, 36.49334942879201, .0000008, 0.072, 0.5e-3},
	{"GeodSolve6a", 88.202499451857, 0, -88.202499451857, 179.981022032992859592, 20003898.214,
	 0.5e-3},
	{"GeodSolve6b", 89.262080389218, 0, -89.262080389218, 179.992207982775375662, 20003925.854,
	 0.5e-3},
	{"GeodSolve6c", 89.333123580033, 0, -89.333123580032997687, 179.99295812360148422, 20003926.881,
	 0.5e-3},
	{"GeodSolve9", 56.320923501171, 0, -56.320923501171, 179.664747671772880215, 19993558.287,
	 0.5e-3},
	{"GeodSolve10", 52.784459512564, 0, -52.784459512563990912, 179.634407464943777557,
	 19991596.095, 0.5e-3},
	{"GeodSolve11", 48.522876735459, 0, -48.52287673545898293, 179.599720456223079643, 19989144.774,
	 0.5e-3},
	{"GeodSolve33a", 0, 0, 0, 179, 19926189, 0.5},
	{"GeodSolve33b", 0, 0, 0, 179.5, 19980862, 0.5},
	{"GeodSolve33c half meridian", 0, 0, 0, 180, 20003931, 0.5},
	{"GeodSolve33d", 0, 0, 1, 180, 19893357, 0.5},
	{"GeodSolve59", 5, 0.00000000000001, 10, 180, 18345191.174332713, 5e-9},
	{"GeodSolve74", 54.1589, 15.3872, 54.1591, 15.3877, 39.527686385, 5e-9},
	{"GeodSolve76 Wellington-Salamanca", -(41 + 19 / 60.0), 174 + 49 / 60.0, 40 + 58 / 60.0,
	 -(5 + 30 / 60.0), 19960543.857179, 0.5e-6},
	{"GeodSolve78", 27.2, 0.0, -27.1, 179.5, 19974354.765767, 0.5e-6},
	{"GeodSolve80 same point", 20.001, 0, 20.001, 0, 0, 1e-8},
	{"GeodSolve80 pole, lon apart", 90, 0, 90, 180, 0, 1e-8},
	{"GeodSolve92", 37.757540000000006, -122.47018, 37.75754, -122.470177, 0.264, 0.5e-3},
};

} // namespace

/* PostGIS ticket #4081: the boundary must fall where PostGIS puts it. */
TEST(Geodesy, TicketPostgis4081Boundary)
{
	GeoPoint a = geographic_point({1, 2});
	GeoPoint b = geographic_point({1, 1});
	EXPECT_TRUE(st_dwithin(a, b, 110576, true));
	EXPECT_FALSE(st_dwithin(a, b, 110575, true));
	/* and in the other argument order */
	EXPECT_TRUE(st_dwithin(b, a, 110576, true));
	EXPECT_FALSE(st_dwithin(b, a, 110575, true));
}

/* PostGIS takes a and b from PROJ for EPSG:4326 (spheroid_init_from_srid), f = (a - b) / a. */
TEST(Geodesy, Wgs84ConstantsAreWhatProjReportsForEpsg4326)
{
	PJ_CONTEXT *ctx = proj_context_create();
	ASSERT_NE(ctx, nullptr);
	PJ *crs = proj_create(ctx, "EPSG:4326");
	ASSERT_NE(crs, nullptr) << "PROJ cannot resolve EPSG:4326 (proj.db missing?)";
	PJ *ellps = proj_get_ellipsoid(ctx, crs);
	ASSERT_NE(ellps, nullptr);
	double a = 0, b = 0, inv_f = 0;
	int b_computed = 0;
	ASSERT_TRUE(proj_ellipsoid_get_parameters(ctx, ellps, &a, &b, &b_computed, &inv_f));
	proj_destroy(ellps);
	proj_destroy(crs);
	proj_context_destroy(ctx);

	EXPECT_EQ(bits(a), bits(kWgs84A)) << "a = " << a;
	EXPECT_EQ(bits(b), bits(kWgs84B)) << std::setprecision(17) << "b = " << b;
	EXPECT_DOUBLE_EQ(inv_f, 298.257223563);
	/* lwspheroid.c spheroid_init: f = (a - b) / a, radius = (2a + b) / 3 */
	EXPECT_EQ(bits((a - b) / a), bits(kWgs84F));
	EXPECT_EQ(bits((2.0 * a + b) / 3.0), bits(kSphereRadius));
}

TEST(Geodesy, SphereRadiusIsMeanRadius)
{
	EXPECT_NEAR(kSphereRadius, 6371008.771415059, 1e-9);
	/* A quarter of the equator and of a meridian, and one degree, on that sphere. */
	const double r = 6371008.771415059;
	EXPECT_NEAR(st_distance(cast_point(0, 0), cast_point(90, 0), false), r * M_PI / 2, 1e-8);
	EXPECT_NEAR(st_distance(cast_point(0, 0), cast_point(0, 90), false), r * M_PI / 2, 1e-8);
	EXPECT_NEAR(st_distance(cast_point(0, 0), cast_point(0, 1), false), r * M_PI / 180, 1e-8);
	EXPECT_NEAR(st_distance(cast_point(0, -90), cast_point(0, 90), false), r * M_PI, 1e-8);
	EXPECT_NEAR(st_distance(cast_point(10, 20), cast_point(-170, -20), false), r * M_PI, 1e-6);
	/* The spheroid is not the sphere: 1 degree of meridian at the equator is ~110574 m. */
	EXPECT_NEAR(st_distance(cast_point(0, 0), cast_point(0, 1), true), 110574.389, 1e-3);
}

TEST(Geodesy, PublishedGeodesicsThroughSpheroidDistance)
{
	int n = 0;
	for (const GeodCase &c : kGeodTest)
	{
		GeoPoint p = cast_point(c.lon1, c.lat1);
		GeoPoint q = cast_point(c.lon2, c.lat2);
		EXPECT_NEAR(spheroid_distance(p, q), c.s12, 1e-8) << "GeodTest row " << n;
		EXPECT_NEAR(spheroid_distance(q, p), c.s12, 1e-8) << "GeodTest row " << n << " reversed";
		EXPECT_NEAR(st_distance(p, q, true), c.s12, 1e-8 + 5e-9) << "GeodTest row " << n;
		n++;
	}
	for (const GeodSolveCase &c : kGeodSolve)
	{
		GeoPoint p = cast_point(c.lon1, c.lat1);
		GeoPoint q = cast_point(c.lon2, c.lat2);
		EXPECT_NEAR(spheroid_distance(p, q), c.s12, c.tol) << c.name;
		EXPECT_NEAR(spheroid_distance(q, p), c.s12, c.tol) << c.name << " reversed";
	}
}

/* geography_distance: round(distance * 1e8) / 1e8 of the PROJ geodesic. */
TEST(Geodesy, StDistanceRoundsGeodesicTo10nm)
{
	struct geod_geodesic g;
	geod_init(&g, 6378137.0, 1 / 298.257223563);
	std::mt19937_64 rng(4081);
	std::uniform_real_distribution<double> lon(-180, 180), z(-1, 1), small(-1e-3, 1e-3);
	for (int i = 0; i < 20000; i++)
	{
		double lon1 = lon(rng), lat1 = std::asin(z(rng)) * 180 / M_PI;
		double lon2 = i % 2 ? lon(rng) : lon1 + small(rng);
		double lat2 = i % 2 ? std::asin(z(rng)) * 180 / M_PI : lat1 + small(rng);
		if (std::fabs(lat2) > 90)
			lat2 = lat1;
		if (std::fabs(lon2) > 180)
			lon2 = lon1;
		GeoPoint p = cast_point(lon1, lat1), q = cast_point(lon2, lat2);
		double s12;
		geod_inverse(&g, lat1, lon1, lat2, lon2, &s12, nullptr, nullptr);
		double d = st_distance(p, q, true);
		/* Multiples of 10 nm ... */
		EXPECT_NEAR(d * 1e8, std::round(d * 1e8), 1e-3 * std::max(1.0, d)) << d;
		/* ... of the geodesic of an independent geod_inverse (a hair off the ellipsoid f). */
		EXPECT_NEAR(d, s12, 5e-9 + 2e-8) << lon1 << " " << lat1 << " " << lon2 << " " << lat2;
		double sphere = st_distance(p, q, false);
		EXPECT_NEAR(sphere * 1e8, std::round(sphere * 1e8), 1e-3 * std::max(1.0, sphere));
	}
	/* The rounding is PostGIS's, half away from zero at 10 nm. */
	GeoPoint a = geographic_point({1, 2}), b = geographic_point({1, 1});
	double raw = spheroid_distance(a, b);
	EXPECT_EQ(st_distance(a, b, true), std::round(raw * 1.0e8) / 1.0e8);
	EXPECT_NE(st_distance(a, b, true), raw);
	EXPECT_EQ(st_distance(a, b, true), 110575.06481434);
}

/* An independent long-double evaluation (Vincenty's atan2 form on the sphere). */
TEST(Geodesy, SphereCentralAngleAgainstLongDouble)
{
	std::mt19937_64 rng(7);
	std::uniform_real_distribution<double> lon(-M_PI, M_PI), z(-1, 1), tiny(-1e-6, 1e-6);
	for (int i = 0; i < 50000; i++)
	{
		GeoPoint a{lon(rng), std::asin(z(rng))};
		GeoPoint b = i % 3 == 0 ? GeoPoint{a.lon + tiny(rng), a.lat + tiny(rng) * 0.1}
								: GeoPoint{lon(rng), std::asin(z(rng))};
		long double dl = (long double) b.lon - a.lon;
		long double c1 = cosl(a.lat), s1 = sinl(a.lat), c2 = cosl(b.lat), s2 = sinl(b.lat);
		long double x = c2 * sinl(dl), y = c1 * s2 - s1 * c2 * cosl(dl);
		long double ref = atan2l(sqrtl(x * x + y * y), s1 * s2 + c1 * c2 * cosl(dl));
		EXPECT_NEAR(sphere_central_angle(a, b), (double) ref, 1e-14);
	}
	EXPECT_DOUBLE_EQ(sphere_central_angle(cast_point(0, 60), cast_point(180, 60)), M_PI / 3);
	EXPECT_DOUBLE_EQ(sphere_central_angle(cast_point(-45, 0), cast_point(45, 0)), M_PI / 2);
}

/*
 * lwspheroid.c spheroid_distance() and sphere_distance() both start with
 * "same point => zero distance": FP_EQUALS (1e-12 radians) on lat and lon.
 */
TEST(Geodesy, NearlyEqualPointsAreAtZeroLikePostgis)
{
	GeoPoint a = cast_point(0, 0);
	GeoPoint b = cast_point(0, 5e-11); /* 8.7e-13 rad of latitude */
	GeoPoint c = cast_point(3e-11, 3e-11);
	GeoPoint far = cast_point(0, 1e-9); /* 1.7e-11 rad: a real distance */
	for (bool s : {false, true})
	{
		EXPECT_EQ(st_distance(a, b, s), 0.0) << "use_spheroid " << s;
		EXPECT_EQ(st_distance(a, c, s), 0.0) << "use_spheroid " << s;
		EXPECT_TRUE(st_dwithin(a, b, 0.0, s)) << "use_spheroid " << s;
		EXPECT_TRUE(st_dwithin(c, a, 0.0, s)) << "use_spheroid " << s;
		EXPECT_GT(st_distance(a, far, s), 1.0e-4) << "use_spheroid " << s;
		EXPECT_FALSE(st_dwithin(a, far, 0.0, s)) << "use_spheroid " << s;
	}
	EXPECT_EQ(spheroid_distance(a, b), 0.0);
	EXPECT_EQ(sphere_central_angle(a, b), 0.0);
}

/*
 * ptarray_distance_spheroid's point/point case: the sphere pre-check (distance
 * below 0.95 * tolerance) may only ever short-cut to the same answer.
 */
TEST(Geodesy, DWithinIsDistanceAtMostRadius)
{
	std::mt19937_64 rng(11);
	std::uniform_real_distribution<double> lon(-180, 180), z(-1, 1), f(0.9, 1.1);
	long checks = 0;
	for (int i = 0; i < 20000; i++)
	{
		GeoPoint p = cast_point(lon(rng), std::asin(z(rng)) * 180 / M_PI);
		GeoPoint q = cast_point(lon(rng), std::asin(z(rng)) * 180 / M_PI);
		double ds = spheroid_distance(p, q);
		double dc = kSphereRadius * sphere_central_angle(p, q);
		for (double r : {ds, std::nextafter(ds, 0.0), std::nextafter(ds, 1e300), ds * f(rng),
						 dc / 0.95, std::nextafter(dc / 0.95, 0.0), dc * f(rng)})
		{
			EXPECT_EQ(st_dwithin(p, q, r, true), ds <= r) << i << " r=" << r;
			EXPECT_EQ(st_dwithin(p, q, r, false), dc <= r) << i << " r=" << r;
			checks += 2;
		}
	}
	RecordProperty("checks", std::to_string(checks));
}

TEST(Geodesy, PoleAndDatelineInputsAreFinite)
{
	/* lat 90 in radians and back must stay a valid geod_inverse latitude */
	for (double lon : {-180.0, -90.0, 0.0, 45.0, 180.0})
		for (double lat : {-90.0, 90.0})
		{
			GeoPoint p = cast_point(lon, lat);
			EXPECT_FALSE(std::isnan(spheroid_distance(p, cast_point(0, 0))));
			EXPECT_NEAR(spheroid_distance(p, cast_point(lon + 77, lat)), 0.0, 1e-8);
		}
	/* Half a meridian, GeodSolve33: 20003931 m; -180 and 180 are one meridian. */
	EXPECT_NEAR(st_distance(cast_point(0, 90), cast_point(0, -90), true), 20003931.4586, 1e-4);
	EXPECT_EQ(st_distance(cast_point(-180, 10), cast_point(180, 10), true), 0.0);
	EXPECT_EQ(st_distance(cast_point(-180, 10), cast_point(180, 10), false), 0.0);
}
