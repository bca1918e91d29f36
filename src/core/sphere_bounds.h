/*
 * Provable bounds on PostGIS geography distances from 3-D boxes of unit vectors.
 *
 * Why unit vectors: the chord between two unit vectors grows monotonically with
 * the central angle, and the nearest and farthest points of an axis-aligned
 * box to a query vector are found per axis. A box therefore bounds the sphere
 * distance to everything inside it with no special case at the antimeridian or
 * the poles.
 *
 * Why a sphere bound holds for the spheroid: in geodetic coordinates the
 * ellipsoid's line element is ds^2 = M^2 dphi^2 + N^2 cos^2(phi) dlambda^2 and the
 * sphere's is R^2 (dphi^2 + cos^2(phi) dlambda^2), with the same (phi, lambda)
 * that PostGIS feeds to both. M (meridional) and N (prime vertical) both lie in
 * [a(1-e^2), a/sqrt(1-e^2)], so every path's ellipsoidal length is between
 * a(1-e^2)/R and a/(R sqrt(1-e^2)) times its spherical length. Taking the
 * shortest path on either surface gives
 *     kLowScale * R * sigma  <=  geodesic distance  <=  kHighScale * R * sigma
 * (kLowScale = 0.99441, kHighScale = 1.00449). The constants below are rounded
 * outwards and an absolute slack covers the rounding of the formulas
 * themselves; the unit tests check both bounds on millions of random pairs.
 */
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "pg_free.h"
#include "geodesy.h"

namespace geoidx
{

struct Vec3
{
	double x;
	double y;
	double z;
};

/* A point on the WGS84 ellipsoid in earth-centred coordinates, metres (geodesic_bracket.h). */
struct Ecef
{
	double x;
	double y;
	double z;
};

/* Axis-aligned box of unit vectors: lo[i] <= v[i] <= hi[i]. */
struct Box3
{
	double lo[3];
	double hi[3];
};

Vec3 unit_vector(GeoPoint p);

/*
 * Box operations are inline: they run per entry on every page a search or an
 * insert reads. box_empty() contains nothing (extending it by anything yields
 * that thing); box_enlargement is the growth of the sum of edge lengths, the
 * insert path's choice metric; min/max_chord2 are the squared chords from q to
 * the nearest / farthest point of the box.
 */

inline Box3
box_empty()
{
	const double inf = std::numeric_limits<double>::infinity();
	return Box3{{inf, inf, inf}, {-inf, -inf, -inf}};
}

inline bool
box_is_empty(const Box3 &b)
{
	return b.lo[0] > b.hi[0];
}

inline Box3
box_of(const Vec3 &v)
{
	return Box3{{v.x, v.y, v.z}, {v.x, v.y, v.z}};
}

inline void
box_extend(Box3 *b, const Vec3 &v)
{
	const double c[3] = {v.x, v.y, v.z};
	for (int i = 0; i < 3; i++)
	{
		b->lo[i] = std::min(b->lo[i], c[i]);
		b->hi[i] = std::max(b->hi[i], c[i]);
	}
}

inline void
box_extend(Box3 *b, const Box3 &o)
{
	for (int i = 0; i < 3; i++)
	{
		b->lo[i] = std::min(b->lo[i], o.lo[i]);
		b->hi[i] = std::max(b->hi[i], o.hi[i]);
	}
}

inline bool
box_contains(const Box3 &b, const Vec3 &v)
{
	return b.lo[0] <= v.x && v.x <= b.hi[0] && b.lo[1] <= v.y && v.y <= b.hi[1] && b.lo[2] <= v.z &&
		   v.z <= b.hi[2];
}

inline bool
box_contains(const Box3 &outer, const Box3 &inner)
{
	if (box_is_empty(inner))
		return true;
	for (int i = 0; i < 3; i++)
		if (inner.lo[i] < outer.lo[i] || inner.hi[i] > outer.hi[i])
			return false;
	return true;
}

/* Whether two boxes share a point (an empty one shares none). */
inline bool
box_meets(const Box3 &a, const Box3 &b)
{
	for (int i = 0; i < 3; i++)
		if (a.lo[i] > b.hi[i] || b.lo[i] > a.hi[i])
			return false;
	return true;
}

inline double
box_margin(const Box3 &b)
{
	if (box_is_empty(b))
		return 0.0;
	return (b.hi[0] - b.lo[0]) + (b.hi[1] - b.lo[1]) + (b.hi[2] - b.lo[2]);
}

inline double
box_enlargement(const Box3 &b, const Box3 &o)
{
	if (box_is_empty(b))
		return 0.0;
	Box3 e = b;
	box_extend(&e, o);
	return box_margin(e) - box_margin(b);
}

inline double
box_enlargement(const Box3 &b, const Vec3 &v)
{
	return box_enlargement(b, box_of(v));
}

inline Vec3
cross(const Vec3 &a, const Vec3 &b)
{
	return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

inline double
dot(const Vec3 &a, const Vec3 &b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}

/* Coordinate i (0 x, 1 y, 2 z) of v. */
inline double
coord(const Vec3 &v, int i)
{
	return i == 0 ? v.x : (i == 1 ? v.y : v.z);
}

inline double
chord2(const Vec3 &a, const Vec3 &b)
{
	double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
	return dx * dx + dy * dy + dz * dz;
}

/*
 * std::max(a, b) (a < b ? b : a, so a NaN b gives a) in one instruction where
 * SSE2 is: GCC compiles std::max of doubles to a compare and a branch, which
 * mispredicts on the boxes a search keys and classifies, hundreds a query on
 * either side of its centre and circle in no order a predictor learns.
 * MAXSD x, y is x > y ? x : y (y when either is NaN), so b goes first.
 */
inline double
max_of(double a, double b)
{
#if defined(__SSE2__)
	return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(b), _mm_set_sd(a)));
#else
	return std::max(a, b);
#endif
}

/*
 * For a box that is not empty at most one of the two terms is positive; an
 * empty one only comes out farther.
 */
inline double
min_chord2(const Box3 &b, const Vec3 &q)
{
	double dx = max_of(0.0, b.lo[0] - q.x) + max_of(0.0, q.x - b.hi[0]);
	double dy = max_of(0.0, b.lo[1] - q.y) + max_of(0.0, q.y - b.hi[1]);
	double dz = max_of(0.0, b.lo[2] - q.z) + max_of(0.0, q.z - b.hi[2]);
	return dx * dx + dy * dy + dz * dz;
}

inline double
max_chord2(const Box3 &b, const Vec3 &q)
{
	double dx = max_of(std::fabs(q.x - b.lo[0]), std::fabs(q.x - b.hi[0]));
	double dy = max_of(std::fabs(q.y - b.lo[1]), std::fabs(q.y - b.hi[1]));
	double dz = max_of(std::fabs(q.z - b.lo[2]), std::fabs(q.z - b.hi[2]));
	return dx * dx + dy * dy + dz * dz;
}

/* Central angle (radians) whose chord is sqrt(c2), c2 in [0, 4]. */
double chord2_to_angle(double c2);

/*
 * metres_lower_bound(chord2_to_angle(c2)) grows with c2 except within ~1e-7
 * rad of the antipode (its antipodal slack): below this squared chord the
 * chords of boxes order their metre bounds, so the nearest box's bound is a
 * bound of them all.
 */
constexpr double kMonotoneChord2 = 3.99; /* a central angle of 3.04 rad */

/* Metres that are never more than the exact distance (PostGIS's sphere or spheroid). */
double metres_lower_bound(double central_angle, bool use_spheroid);
/*
 * Metres that are never more than the exact distance, from the latitudes
 * (degrees, as the geography cast leaves them) alone: the meridional arc
 * between the two parallels is the shortest way from one to the other. No
 * trigonometry: what a k-NN scan uses for points it may never look at again.
 */
double metres_lower_bound_dlat(double lat_a_deg, double lat_b_deg, bool use_spheroid);
/* Metres that are never less than the exact distance. */
double metres_upper_bound(double central_angle, bool use_spheroid);

/*
 * What one radius query needs to decide a box or a point: the chord beyond
 * which nothing can be within the radius, and the chord within which everything is.
 */
struct RadiusTest
{
	GeoPoint center;
	Vec3 q;
	double radius;
	bool use_spheroid;
	double reject_c2;       /* min_chord2 above this: outside */
	double accept_c2;       /* max_chord2 below this: inside */
	double reject_dlat_deg; /* |lat - center.lat| in degrees above this: outside */
	Ecef center_ecef;       /* for the chord bracket of a point between the two chord tests */
};

enum class Verdict
{
	outside,
	inside,
	maybe,
};

RadiusTest radius_test(GeoPoint center, double radius, bool use_spheroid);
Verdict classify_box(const RadiusTest &t, const Box3 &b);
/* Exact: PostGIS ST_DWithin semantics; the cheap tests only short-cut it. */
bool point_within(const RadiusTest &t, LonLat p);

} // namespace geoidx
