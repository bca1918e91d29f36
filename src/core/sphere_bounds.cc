#include "sphere_bounds.h"

#include "geodesic_bracket.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace geoidx
{

namespace
{

constexpr double kE2 = (kWgs84A * kWgs84A - kWgs84B * kWgs84B) / (kWgs84A * kWgs84A);
/* Scales rounded outwards by far more than their own rounding error. */
const double kLowScale = kWgs84A * (1.0 - kE2) / kSphereRadius * (1.0 - 1e-9);
const double kHighScale = kWgs84A / (kSphereRadius * std::sqrt(1.0 - kE2)) * (1.0 + 1e-9);
/* Smallest meridional radius of curvature: the metres per radian of latitude, at least. */
const double kMinMeridional = kWgs84A * (1.0 - kE2) * (1.0 - 1e-9);
/* Relative and absolute slack for formula rounding (chords are ~1e-16 accurate). */
constexpr double kRel = 1e-9;
/*
 * Absolute slack. It must exceed what PostGIS's "same point" test can hide:
 * sphere_distance and spheroid_distance return 0 when lat and lon both differ
 * by at most FP_TOLERANCE = 1e-12 rad, and such points are up to sqrt(2) * 1e-12
 * rad apart (9.01e-6 m on the sphere, 9.05e-6 m on the spheroid).
 */
constexpr double kAbsMetres = 1e-5;
constexpr double kChord2Slack = 1e-14;
/*
 * Bound on the error of a squared chord computed from unit_vector()s (or from a
 * box of them) against the exact one: components are within ~3e-16, the
 * difference vector within ~1.5e-15, its square within ~7e-15; 4e-14 leaves room.
 */
constexpr double kChord2Err = 4e-14;
constexpr double kSqrtChord2Err = 2e-7;

/* Return the factor the spheroid distance never falls below, times the sphere's. */
double
scale_low(bool use_spheroid)
{
	return use_spheroid ? kLowScale : (1.0 - kRel);
}

/* Return the factor the spheroid distance never exceeds, times the sphere's. */
double
scale_high(bool use_spheroid)
{
	return use_spheroid ? kHighScale : (1.0 + kRel);
}

} // namespace

/* Return the unit vector of a point given in radians. */
Vec3
unit_vector(GeoPoint p)
{
	double cl = std::cos(p.lat);
	return Vec3{cl * std::cos(p.lon), cl * std::sin(p.lon), std::sin(p.lat)};
}

/* Return the central angle whose squared chord is c2. */
double
chord2_to_angle(double c2)
{
	if (!(c2 > 0.0))
		return 0.0;
	double half = std::sqrt(c2) / 2.0;
	return 2.0 * std::asin(std::min(1.0, half));
}

namespace
{

/*
 * How far the true central angle can be from chord2_to_angle() of a computed
 * squared chord. Away from the antipode the chord is well conditioned (below
 * 2/3 pi the angle is off by at most twice the chord's ~2e-15 error). Near it,
 * asin is not: a squared chord off by 1e-15 moves the angle of two points 1e-8
 * rad (6 cm) from antipodal by ~3e-8 rad (20 cm), far beyond kRel. With
 * s^2 = 4 - c2 and the gap e = pi - angle = 2 asin(s / 2), an error d in c2
 * moves s by at most min(sqrt(d), d / s), hence e by at most
 * 1.16 * min(sqrt(d), d / s) while e <= pi / 3, where s >= 0.955 e. So
 * 1.25 * d / max(e, sqrt(d)) covers it (and is >= 1.6e-14 rad elsewhere): some
 * 1.6 m at the exact antipode, 3 mm at 640 m from it, nothing that matters beyond.
 */
double
antipodal_angle_slack(double angle)
{
	double gap = std::max(M_PI - angle, kSqrtChord2Err);
	return 1.25 * kChord2Err / gap;
}

} // namespace

/* Return metres never more than the exact distance at this central angle. */
double
metres_lower_bound(double angle, bool use_spheroid)
{
	angle -= antipodal_angle_slack(angle);
	double m = kSphereRadius * angle * scale_low(use_spheroid) * (1.0 - kRel) - kAbsMetres;
	return std::max(0.0, m);
}

/* Return metres never less than the exact distance at this central angle. */
double
metres_upper_bound(double angle, bool use_spheroid)
{
	/* No central angle exceeds pi, PostGIS's atan2 included. */
	angle = std::min(M_PI, angle + antipodal_angle_slack(angle));
	return kSphereRadius * angle * scale_high(use_spheroid) * (1.0 + kRel) + kAbsMetres;
}

namespace
{

/* Squared chord of a central angle, clamped to the antipode. */
double
angle_to_chord2(double angle)
{
	if (angle >= M_PI)
		return 4.0;
	double c = 2.0 * std::sin(angle / 2.0);
	return c * c;
}

} // namespace

/* Return metres never more than the distance between two latitudes. */
double
metres_lower_bound_dlat(double lat_a_deg, double lat_b_deg, bool use_spheroid)
{
	double per_rad = use_spheroid ? kMinMeridional : kSphereRadius * (1.0 - kRel);
	double m =
		std::fabs(lat_a_deg - lat_b_deg) * (M_PI / 180.0) * per_rad * (1.0 - kRel) - kAbsMetres;
	return std::max(0.0, m);
}

/* Prepare the box and point tests of one radius query. */
RadiusTest
radius_test(GeoPoint center, double radius, bool use_spheroid)
{
	RadiusTest t;
	t.center = center;
	t.q = unit_vector(center);
	t.radius = radius;
	t.use_spheroid = use_spheroid;

	/* Anything within the radius has a central angle at most this. */
	double far_angle =
		(radius + kAbsMetres) / (kSphereRadius * scale_low(use_spheroid)) * (1.0 + kRel);
	t.reject_c2 = far_angle >= M_PI ? std::numeric_limits<double>::infinity()
									: angle_to_chord2(far_angle) * (1.0 + kRel) + kChord2Slack;

	/* Anything with a central angle at most this is within the radius. */
	double near_angle =
		(radius - kAbsMetres) / (kSphereRadius * scale_high(use_spheroid)) * (1.0 - kRel);
	t.accept_c2 =
		near_angle <= 0.0 ? -1.0 : angle_to_chord2(near_angle) * (1.0 - kRel) - kChord2Slack;

	/* The meridional arc between two latitudes is the shortest way between their parallels. */
	double per_rad = use_spheroid ? kMinMeridional : kSphereRadius * (1.0 - kRel);
	t.reject_dlat_deg = ((radius + kAbsMetres) / per_rad) * (180.0 / M_PI) * (1.0 + kRel) + 1e-12;
	t.center_ecef = ecef_of(t.q);
	return t;
}

/* Judge a box against a radius query: inside, outside or maybe. */
Verdict
classify_box(const RadiusTest &t, const Box3 &b)
{
	if (box_is_empty(b))
		return Verdict::outside;
	if (min_chord2(b, t.q) > t.reject_c2)
		return Verdict::outside;
	if (max_chord2(b, t.q) < t.accept_c2)
		return Verdict::inside;
	return Verdict::maybe;
}

/* Decide exactly whether a point is within the radius (ST_DWithin). */
bool
point_within(const RadiusTest &t, LonLat p)
{
	if (std::fabs(p.lat - t.center.lat * 180.0 / M_PI) > t.reject_dlat_deg)
		return false;
	GeoPoint g = geographic_point(p);
	Vec3 v = unit_vector(g);
	double c2 = chord2(v, t.q);
	if (c2 > t.reject_c2)
		return false;
	if (c2 < t.accept_c2)
		return true;
	/*
	 * Between the chord tests lies a band as wide as the spheroid's slack
	 * (~1 % of the radius); the chord bracket of the spheroid distance is
	 * ~0.1 mm wide at 5 km, so few points of the band need the geodesic.
	 * ST_DWithin is within when the sphere distance is under 0.95 r or the
	 * spheroid's at most r: the bracket above r rules out both.
	 */
	if (t.use_spheroid)
	{
		Bracket b;
		if (geodesic_bracket(ecef_of(v), t.center_ecef, &b))
		{
			if (b.hi <= t.radius)
				return true;
			if (b.lo > t.radius)
				return false;
		}
	}
	return st_dwithin(t.center, g, t.radius, t.use_spheroid);
}

} // namespace geoidx
