/*
 * Geodesy that reproduces PostGIS geography to the last bit.
 *
 * PostGIS computes ST_Distance / ST_DWithin on geography from coordinates that
 * went through three steps: the geometry->geography cast (nudge values within
 * 1e-10 of a bound onto it, then wrap out-of-range values), the conversion to
 * radians with its own normalisation (geographic_point_init), and for the
 * spheroid the conversion back to degrees before PROJ's geod_inverse (Karney).
 * Every step rounds, so geoidx repeats them in the same order with the same
 * constants; anything else differs in the last ulp and then answers a boundary
 * query (PostGIS ticket #4081) differently.
 */
#pragma once

#include "pg_free.h"

namespace geoidx
{

/* WGS84 as PostGIS gets it from PROJ: b = a * (1 - 1/rf), f = (a - b) / a. */
constexpr double kWgs84A = 6378137.0;
constexpr double kWgs84B = 6356752.3142451793;
constexpr double kWgs84F = (kWgs84A - kWgs84B) / kWgs84A;
/* The sphere PostGIS uses for use_spheroid = false: (2a + b) / 3. */
constexpr double kSphereRadius = (2.0 * kWgs84A + kWgs84B) / 3.0;

/* Degrees as the geography cast leaves them: lon in [-180, 180], lat in [-90, 90]. */
struct LonLat
{
	double lon;
	double lat;
};

/* Radians as PostGIS's geographic_point_init leaves them. */
struct GeoPoint
{
	double lon;
	double lat;
};

enum class CoordCheck
{
	in_range,   /* taken as is */
	coerced,    /* the cast would wrap it (and say so in a NOTICE) */
	not_finite, /* NaN or infinite: the cast would store garbage; geoidx refuses */
};

/* The geometry->geography cast for one coordinate pair. */
CoordCheck normalize_like_geography(double x, double y, LonLat *out);

/* geographic_point_init: degrees -> normalised radians. */
GeoPoint geographic_point(LonLat p);

/* PostGIS sphere_distance: central angle in radians, atan2 form. */
double sphere_central_angle(GeoPoint a, GeoPoint b);

/* PostGIS spheroid_distance: PROJ geod_inverse on WGS84, metres. */
double spheroid_distance(GeoPoint a, GeoPoint b);

/* ST_Distance(a::geography, b::geography, use_spheroid), rounded to 10 nm as PostGIS does. */
double st_distance(GeoPoint a, GeoPoint b, bool use_spheroid);

/*
 * a::geography <-> b::geography (geography_distance_knn) for two points: the
 * radius of PostGIS's sphere times the great-circle angle, unrounded (the
 * k-NN distance skips ST_Distance's rounding to 10 nm).
 */
inline double
sphere_knn_distance(GeoPoint a, GeoPoint b)
{
	return kSphereRadius * sphere_central_angle(a, b);
}

/* ST_DWithin(a::geography, b::geography, radius, use_spheroid); boundary included. */
bool st_dwithin(GeoPoint a, GeoPoint b, double radius, bool use_spheroid);

} // namespace geoidx
