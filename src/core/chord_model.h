/*
 * The squared chord from a fixed centre to the points of a small patch of
 * longitudes and latitudes, to second order about the patch's middle with a
 * bound on what the second order leaves out: a few multiply-adds a point
 * instead of the two sincos of its unit vector. A keyset page or a ring's
 * hole rejects the near half of every chunk that straddles its circle; most of
 * those points are decided from this range without trigonometry
 * (knn_search.cc).
 *
 * For u(lon, lat) = (cos lat cos lon, cos lat sin lon, sin lat) and a unit q,
 * f = |u - q|^2 = 2 - 2 u.q. Every third partial derivative of u has a norm
 * of at most 1 (cos lat, |sin lat| or 1), so each of f's is at most 2, and the
 * third-order term of f over a step (dlon, dlat) is at most
 * 2 (|dlon| + |dlat|)^3 / 6 in absolute value: the second-order value is
 * within that of f. kChordModelSlack covers the rounding of the model and of
 * the squared chord the exact test computes.
 */
#pragma once

#include "geodesy.h"
#include "sphere_bounds.h"

namespace geoidx
{

/* Rounding of a model's value and of chord2(unit_vector(..), q) together, with room. */
constexpr double kChordModelSlack = 1e-12;

/* A patch's extent (radians, each way) beyond which a model decides too little to pay. */
constexpr double kChordModelMaxSpan = 0.1;

struct ChordModel
{
	double lon0, lat0; /* radians: the patch's middle */
	double f0;         /* squared chord at the middle */
	double d_lon, d_lat;
	double h_lon_lon, h_lon_lat, h_lat_lat; /* the second-order term's coefficients */
	/* f's third partial derivatives' bound over 6: the remainder is (|dlon| + |dlat|)^3 times it */
	double third;
	double sin_lon0, cos_lon0, sin_lat0, cos_lat0; /* for another model about the same middle */
};

struct Chord2Range
{
	double lo;
	double hi;
};

/* The model of |u - q|^2 about (lon0, lat0), radians. */
ChordModel chord_model(const Vec3 &q, double lon0, double lat0);

/*
 * The model about the point of a grid (multiples of kChordGridStep radians)
 * nearest (lon0, lat0), finite radians: chord_model's, bit for bit, with the
 * grid's sines and cosines read from a table instead of computed. The
 * remainder is each point's own, so a middle up to half a step off costs only
 * a slightly wider range (a chunk spans ~0.02 rad; the step adds < 0.004).
 */
constexpr double kChordGridStep = 1.0 / 128.0;
ChordModel chord_model_near(const Vec3 &q, double lon0, double lat0);

/* The grid angle chord_model_near takes for angle (radians, within +-pi). */
inline double
chord_grid_angle(double angle)
{
	return std::nearbyint(angle / kChordGridStep) * kChordGridStep;
}

/*
 * The model about the middle of a box of unit vectors (a chunk's), false when
 * the box is empty or too large for it to decide much. The remainder is a
 * point's own, so any middle gives correct ranges; a box across the
 * antimeridian gives wide ones (its points' longitudes lie ~360 degrees apart).
 */
bool chord_model_of_box(const Vec3 &q, const Box3 &b, ChordModel *m);

/*
 * The same for the squared chord between points on the ellipsoid (ecef_of), in
 * units of the semi-major axis a: what the chord bracket of the spheroid
 * distance reads (geodesic_bracket.h), so that the band between a key's two
 * sphere chord tests (~1 % of its radius) is decided to within the bracket's
 * width (67 m at 400 km) without a point's unit vector. centre is the other
 * point's ecef_of over a. With e(lon, lat) = ecef_of(..) / a, every third
 * partial derivative of e has a norm of at most 1.0237 and that of |e|^2 (a
 * function of the latitude alone) at most 0.0268 (over every latitude:
 * chord_model_test.cc computes both), and |centre| <= 1, so each of f's is at
 * most 2.075; kEllipsoidModelThird leaves room.
 */
constexpr double kEllipsoidModelThird = 2.2;
ChordModel ellipsoid_chord_model(const Ecef &centre, double lon0, double lat0);
/* The same about the middle of a sphere chord model (its trigonometry read, not computed again). */
ChordModel ellipsoid_chord_model(const Ecef &centre, const ChordModel &sphere);

/* A range that holds the squared chord the exact test computes for the point (radians). */
inline Chord2Range
chord_model_range(const ChordModel &m, double lon, double lat)
{
	double a = lon - m.lon0, b = lat - m.lat0;
	double f = m.f0 + m.d_lon * a + m.d_lat * b +
			   (m.h_lon_lon * a * a + m.h_lon_lat * a * b + m.h_lat_lat * b * b);
	double s = std::fabs(a) + std::fabs(b);
	double r = s * s * s * m.third * (1.0 + 1e-9) + kChordModelSlack;
	return Chord2Range{f - r, f + r};
}

} // namespace geoidx
