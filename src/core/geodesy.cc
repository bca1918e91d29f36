#include "geodesy.h"

#include <cmath>
#include <geodesic.h>

namespace geoidx
{

namespace
{

/* PostGIS's FP_TOLERANCE: below it two coordinates are "equal" and ST_Distance's tolerance. */
constexpr double kFpTolerance = 1e-12;
/* ST_Distance(geography) rounds to 10 nm when PROJ's geodesic is used. */
constexpr double kInvMinDist = 1.0e8;
/* lwgeom_nudge_geodetic snaps values this close to a bound onto the bound. */
constexpr double kNudge = 1e-10;

/* Return PROJ's WGS84 geodesic, initialised once. */
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

/* Wrap a longitude in degrees into [-180, 180] as PostGIS does. */
double
longitude_degrees_normalize(double lon)
{
	if (lon > 360.0)
		lon = std::remainder(lon, 360.0);
	if (lon < -360.0)
		lon = std::remainder(lon, -360.0);
	if (lon > 180.0)
		lon = -360.0 + lon;
	if (lon < -180.0)
		lon = 360 + lon;
	if (lon == -180.0)
		return 180.0;
	if (lon == -360.0)
		return 0.0;
	return lon;
}

/* Fold a latitude in degrees into [-90, 90] as PostGIS does. */
double
latitude_degrees_normalize(double lat)
{
	if (lat > 360.0)
		lat = std::remainder(lat, 360.0);
	if (lat < -360.0)
		lat = std::remainder(lat, -360.0);
	if (lat > 180.0)
		lat = 180.0 - lat;
	if (lat < -180.0)
		lat = -180.0 - lat;
	if (lat > 90.0)
		lat = 180.0 - lat;
	if (lat < -90.0)
		lat = -180.0 - lat;
	return lat;
}

/* Wrap a longitude in radians into [-pi, pi] as PostGIS does. */
double
longitude_radians_normalize(double lon)
{
	if (lon == -1.0 * M_PI)
		return M_PI;
	if (lon == -2.0 * M_PI)
		return 0.0;
	if (lon > 2.0 * M_PI)
		lon = std::remainder(lon, 2.0 * M_PI);
	if (lon < -2.0 * M_PI)
		lon = std::remainder(lon, -2.0 * M_PI);
	if (lon > M_PI)
		lon = -2.0 * M_PI + lon;
	if (lon < -1.0 * M_PI)
		lon = 2.0 * M_PI + lon;
	if (lon == -2.0 * M_PI)
		lon *= -1.0;
	return lon;
}

/* Fold a latitude in radians into [-pi/2, pi/2] as PostGIS does. */
double
latitude_radians_normalize(double lat)
{
	if (lat > 2.0 * M_PI)
		lat = std::remainder(lat, 2.0 * M_PI);
	if (lat < -2.0 * M_PI)
		lat = std::remainder(lat, -2.0 * M_PI);
	if (lat > M_PI)
		lat = M_PI - lat;
	if (lat < -1.0 * M_PI)
		lat = -1.0 * M_PI - lat;
	if (lat > M_PI_2)
		lat = M_PI - lat;
	if (lat < -1.0 * M_PI_2)
		lat = -1.0 * M_PI - lat;
	return lat;
}

/* Snap a value within kNudge of +-bound onto it, as lwgeom_nudge_geodetic does. */
double
nudge(double v, double bound)
{
	if (v < -bound && -bound - v <= kNudge)
		return -bound;
	if (v > bound && v - bound <= kNudge)
		return bound;
	return v;
}

} // namespace

/* Apply the geometry->geography cast to one coordinate pair. */
CoordCheck
normalize_like_geography(double x, double y, LonLat *out)
{
	if (!std::isfinite(x) || !std::isfinite(y))
		return CoordCheck::not_finite;
	x = nudge(x, 180.0);
	y = nudge(y, 90.0);
	if (x < -180.0 || x > 180.0 || y < -90.0 || y > 90.0)
	{
		out->lon = longitude_degrees_normalize(x);
		out->lat = latitude_degrees_normalize(y);
		return CoordCheck::coerced;
	}
	out->lon = x;
	out->lat = y;
	return CoordCheck::in_range;
}

/* Convert degrees to PostGIS's normalised radians (geographic_point_init). */
GeoPoint
geographic_point(LonLat p)
{
	GeoPoint g;
	g.lat = latitude_radians_normalize(M_PI * p.lat / 180.0);
	g.lon = longitude_radians_normalize(M_PI * p.lon / 180.0);
	return g;
}

/* Return PostGIS's sphere_distance: the central angle, atan2 form. */
double
sphere_central_angle(GeoPoint s, GeoPoint e)
{
	if (std::fabs(s.lat - e.lat) <= kFpTolerance && std::fabs(s.lon - e.lon) <= kFpTolerance)
		return 0.0;
	double d_lon = e.lon - s.lon;
	double cos_d_lon = std::cos(d_lon);
	double cos_lat_e = std::cos(e.lat);
	double sin_lat_e = std::sin(e.lat);
	double cos_lat_s = std::cos(s.lat);
	double sin_lat_s = std::sin(s.lat);
	double a1 = cos_lat_e * std::sin(d_lon);
	double a2 = cos_lat_s * sin_lat_e - sin_lat_s * cos_lat_e * cos_d_lon;
	double a = std::sqrt(a1 * a1 + a2 * a2);
	double b = sin_lat_s * sin_lat_e + cos_lat_s * cos_lat_e * cos_d_lon;
	return std::atan2(a, b);
}

/* Return PostGIS's spheroid_distance: PROJ geod_inverse on WGS84, metres. */
double
spheroid_distance(GeoPoint a, GeoPoint b)
{
	/* lwspheroid.c: "Same point => zero distance" (geographic_point_equals, FP_EQUALS). */
	if (std::fabs(a.lat - b.lat) <= kFpTolerance && std::fabs(a.lon - b.lon) <= kFpTolerance)
		return 0.0;
	double s12 = 0.0;
	geod_inverse(&wgs84(), a.lat * 180.0 / M_PI, a.lon * 180.0 / M_PI, b.lat * 180.0 / M_PI,
				 b.lon * 180.0 / M_PI, &s12, nullptr, nullptr);
	return s12;
}

/* Return ST_Distance on geography, rounded to 10 nm as PostGIS rounds it. */
double
st_distance(GeoPoint a, GeoPoint b, bool use_spheroid)
{
	/* geography_distance goes through the circle tree: for two points that is the plain formula. */
	double d = use_spheroid ? spheroid_distance(a, b) : kSphereRadius * sphere_central_angle(a, b);
	return std::round(d * kInvMinDist) / kInvMinDist;
}

/* Decide ST_DWithin on geography, the boundary included. */
bool
st_dwithin(GeoPoint a, GeoPoint b, double radius, bool use_spheroid)
{
	/* ptarray_distance_spheroid's point/point case, with the radius as its tolerance. */
	double d = kSphereRadius * sphere_central_angle(a, b);
	if (use_spheroid && !(d < 0.95 * radius))
		d = spheroid_distance(a, b);
	return d <= radius;
}

} // namespace geoidx
