/*
 * Bounds of PostGIS's spheroid distance between two points from the straight
 * line between them, with no geodesic computed: what a k-NN search needs to
 * return rows in order when nobody reads their distances.
 *
 * On WGS84 the geodesic between two points is at least their chord c in
 * space (a straight line is shortest), and at most 2 rho asin(c / 2 rho),
 * rho = b^2 / a: a geodesic's curvature as a space curve is its normal
 * curvature, at most the ellipsoid's largest principal curvature
 * 1 / M(0) = a / b^2, and by Schur's comparison theorem a curve of length s
 * whose curvature never exceeds 1 / rho has a chord of at least
 * 2 rho sin(s / 2 rho) (for s <= pi rho, which chords up to kBracketMaxChord
 * keep). The two bounds are c^3 / (24 rho^2) apart: 0.13 mm at 5 km,
 * 0.13 m at 50 km. An absolute slack covers PostGIS's same-point rule (0 for
 * points within 1e-12 rad), its 10 nm rounding, PROJ's 15 nm and the
 * arithmetic here; the unit tests check both bounds on random pairs.
 */
#pragma once

#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

/* Chords beyond this get no bracket: the geodesic itself decides (the bounds are kilometres apart).
 */
constexpr double kBracketMaxChord = 1.0e6;

/* The point whose geodetic unit vector (unit_vector of its radians) is v, on the ellipsoid. */
Ecef ecef_of(const Vec3 &v);

struct Bracket
{
	double lo;
	double hi;
};

/*
 * Bounds of st_distance(a, b, true) for the points whose ecef_of are pa and
 * pb; false when their chord exceeds kBracketMaxChord.
 */
bool geodesic_bracket(const Ecef &pa, const Ecef &pb, Bracket *out);

/*
 * The chords (metres) that settle a comparison with radius through the
 * bracket: a chord above *far gives a bracket whose lo is above radius, one
 * below *near a bracket whose hi is below it. False beyond the bracket's
 * range (then the geodesic decides).
 */
bool bracket_chord_thresholds(double radius, double *far, double *near);

} // namespace geoidx
