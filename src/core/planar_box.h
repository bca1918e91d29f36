/*
 * PostGIS's planar box operators on geometry, col && q, col @ q and col ~ q,
 * as a geoidx scan decides them.
 *
 * PostGIS compares the boxes it keeps in its GiST keys (BOX2DF): the exact
 * coordinate box of each side rounded outwards to float (next_float_down and
 * next_float_up, clamped at FLT_MAX), EMPTY having no box and failing every
 * operator, the SRIDs not compared. A point entry holds the heap's coordinates,
 * so its box and the verdict are exactly PostGIS's, comparisons (and their
 * NaN behaviour) written as PostGIS writes them.
 *
 * What the tree keeps are boxes of unit vectors, of each point where the
 * geography cast puts it and of each shape's raw longitude/latitude rectangle
 * (shape_bounds.h). Whatever the operator, an entry can satisfy it only if its
 * float box meets q's, so only if some raw coordinate of it lies within one
 * float step of q's box; search_image() is the image on the sphere of q's box
 * widened by more than that step (and by the rounding of the trigonometry),
 * which every such entry's unit vector or box reaches. Raw coordinates outside
 * [-180, 180] x [-90, 90] are covered: the image of a rectangle is taken with
 * its raw degrees, as the shapes' boxes are, and with its latitudes folded as
 * the geography cast folds a point's. No entry is ever decided 'inside'
 * from the tree: a point's raw coordinates may sit a turn away from where its
 * vector is, so each point is tested, and a shape's box is not its raw box, so
 * each shape is rechecked.
 */
#pragma once

#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

/* PostGIS's BOX2DF. */
struct FloatBox
{
	float xmin;
	float xmax;
	float ymin;
	float ymax;
};

enum class BoxOp : int
{
	overlaps, /* a && b */
	within,   /* a @ b: a's box inside b's */
	contains, /* a ~ b: b's box inside a's */
};

/* liblwgeom's next_float_down / next_float_up: the float on that side, clamped at +-FLT_MAX. */
float float_down(double d);
float float_up(double d);

/* The box PostGIS keeps for a box of doubles (a point's: xmin = xmax = x). */
FloatBox float_box(double xmin, double xmax, double ymin, double ymax);

/*
 * Whether a op b holds for the boxes of two non-EMPTY geometries (PostGIS 3.3's
 * box2df_overlaps, _within, _contains). A box whose xmin is NaN counts as
 * empty there, as an EMPTY one would: a stored box can hold NaN.
 */
bool box_op_holds(BoxOp op, const FloatBox &a, const FloatBox &b);

/*
 * box_op_holds(op, float_box(x, x, y, y), q) for a point, as four comparisons
 * of doubles: the float rounding moved onto q's side once per key. For x
 * within +-FLT_MAX, float_down(x) <= Q (a float) iff x < the float after Q,
 * float_down(x) >= Q iff x >= Q, and the mirror images for float_up; beyond,
 * the rounding clamps, as clamping x first does. A NaN in q fails none of
 * PostGIS's comparisons, so it bounds nothing.
 */
struct PointBoxTest
{
	double xlo, xhi, ylo, yhi; /* holds iff xlo <= x <= xhi and ylo <= y <= yhi (x, y clamped) */
	int constant;              /* -1: compare; 0: no point; 1: every point */
};

PointBoxTest point_box_test(BoxOp op, const FloatBox &q);

inline bool
point_box_holds(const PointBoxTest &t, double x, double y)
{
	if (t.constant >= 0)
		return t.constant != 0;
	constexpr double m = 3.40282346638528859812e+38; /* FLT_MAX */
	x = x > m ? m : (x < -m ? -m : x);
	y = y > m ? m : (y < -m ? -m : y);
	return t.xlo <= x && x <= t.xhi && t.ylo <= y && y <= t.yhi;
}

/*
 * A box of unit vectors that every entry satisfying `entry op q` reaches (see
 * the header); the whole sphere where q's box gives no bound (NaN, or
 * coordinates beyond +-1e6 degrees).
 */
Box3 search_image(const FloatBox &q);

} // namespace geoidx
