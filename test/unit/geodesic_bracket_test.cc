/*
 * The chord bracket of geodesic_bracket.h against PostGIS's exact spheroid
 * distance (geodesy.h: PROJ's geod_inverse, rounded as PostGIS rounds it) on
 * fixed-seed random pairs from centimetres to the bracket's 1,000 km limit:
 * anywhere on the globe, at the poles, across the antimeridian and at the
 * equator (where the meridian's curvature is largest), both argument orders,
 * and points within PostGIS's same-point snap. The bracket must hold the
 * exact distance and be narrow enough to decide an order.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "geodesic_bracket.h"
#include "geodesy.h"
#include "sphere_bounds.h"

namespace
{

using namespace geoidx;

Ecef
ecef_at(GeoPoint g)
{
	return ecef_of(unit_vector(g));
}

/* A point about metres away from (lon, lat) degrees, in a random direction. */
LonLat
nearby(std::mt19937_64 &rng, LonLat p, double metres)
{
	std::uniform_real_distribution<double> u(0.0, 2.0 * M_PI);
	double az = u(rng);
	double dlat = metres * std::cos(az) / 111000.0;
	double coslat = std::max(1e-9, std::cos(p.lat * M_PI / 180.0));
	double dlon = metres * std::sin(az) / (111000.0 * coslat);
	double lat = std::max(-90.0, std::min(90.0, p.lat + dlat));
	double lon = p.lon + dlon;
	if (lon > 180.0)
		lon -= 360.0;
	if (lon < -180.0)
		lon += 360.0;
	return LonLat{lon, lat};
}

TEST(GeodesicBracket, HoldsThePostgisDistance)
{
	std::mt19937_64 rng(71);
	std::uniform_real_distribution<double> u(-1.0, 1.0), lon(-180.0, 180.0), e(-2.0, 6.0);
	long checked = 0;
	for (int i = 0; i < 400000; i++)
	{
		LonLat a;
		switch (i % 5)
		{
			case 0:
				a = LonLat{lon(rng), 90.0 - std::fabs(u(rng)) * 0.01}; /* a pole */
				break;
			case 1:
				a = LonLat{180.0 - std::fabs(u(rng)) * 0.01, u(rng) * 60.0}; /* the antimeridian */
				break;
			case 2:
				a = LonLat{lon(rng), u(rng) * 0.5}; /* the equator */
				break;
			default:
				a = LonLat{lon(rng), std::asin(u(rng)) * 180.0 / M_PI};
		}
		LonLat b = nearby(rng, a, std::pow(10.0, e(rng)));
		GeoPoint ga = geographic_point(a), gb = geographic_point(b);
		Bracket br;
		if (!geodesic_bracket(ecef_at(ga), ecef_at(gb), &br))
			continue;
		for (double d : {st_distance(ga, gb, true), st_distance(gb, ga, true)})
		{
			ASSERT_LE(br.lo, d) << a.lon << " " << a.lat << " " << b.lon << " " << b.lat;
			ASSERT_GE(br.hi, d) << a.lon << " " << a.lat << " " << b.lon << " " << b.lat;
		}
		checked++;
	}
	EXPECT_GT(checked, 390000);
}

TEST(GeodesicBracket, SamePointSnapAndWidth)
{
	/* within 1e-12 rad PostGIS says 0: the bracket must reach down to it */
	GeoPoint a = geographic_point(LonLat{10.0, 45.0});
	GeoPoint b = a;
	b.lat += 0.9e-12;
	b.lon += 0.9e-12;
	Bracket br;
	ASSERT_TRUE(geodesic_bracket(ecef_at(a), ecef_at(b), &br));
	EXPECT_EQ(st_distance(a, b, true), 0.0);
	EXPECT_EQ(br.lo, 0.0);

	/* at 5 km the bounds are a fraction of a millimetre apart: they decide an order */
	GeoPoint c = geographic_point(LonLat{10.0, 45.045});
	ASSERT_TRUE(geodesic_bracket(ecef_at(a), ecef_at(c), &br));
	EXPECT_LT(br.hi - br.lo, 2e-4);
	EXPECT_GT(st_distance(c, a, true), 4900.0);

	/* beyond the limit: no bracket, the geodesic decides */
	GeoPoint far = geographic_point(LonLat{30.0, 45.0});
	EXPECT_FALSE(geodesic_bracket(ecef_at(a), ecef_at(far), &br));
}

} // namespace
