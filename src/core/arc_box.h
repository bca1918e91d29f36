/*
 * Boxes of unit vectors around what a shape covers on PostGIS geography's
 * sphere: its edges (great-circle arcs, the shorter way, as liblwgeom's
 * geodetic code draws them) and the interiors of its polygons.
 *
 * A geodesic edge bulges beyond the box of its ends: the arc from a to b
 * reaches coordinate i's extreme on its great circle, +-hypot(n_j, n_k) for the
 * circle's unit normal n, wherever that extreme lies between a and b. An
 * interior reaches further only at an axis point (+-x, +-y, +-z): a linear
 * function on the sphere has no other critical points, so a region's extremes
 * lie on its boundary or at an axis point inside it (a ring around a pole holds
 * the pole with no edge near it). The caller says which axis points a shape's
 * interiors hold, because that is decided by PostGIS's own inside rule.
 *
 * Two bounds of an arc, each provable, and the box is their intersection:
 *   - the extremes above, padded by their rounding, which grows as the normal
 *     is computed from ever closer ends (|a x b| small);
 *   - the box of the ends padded by the arc's sagitta 1 - cos(theta / 2): every
 *     point of the arc is the chord's point at the same angle pushed out to the
 *     sphere, by at most that much. Exact to ~1e-16 for short arcs.
 * Ends at or near antipodes leave the arc to the rounding of whoever draws it:
 * their box is the whole sphere's.
 */
#pragma once

#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

/* Ends whose dot product is below this are treated as antipodal (within ~0.08 deg of it). */
constexpr double kAntipodalDot = -0.999999;

/* The box of the great-circle arc from a to b (unit vectors). */
Box3 arc_box(const Vec3 &a, const Vec3 &b);

/*
 * The box of a and b padded by the arc's sagitta 1 - cos(theta / 2), which
 * holds the arc when it is at most a quarter circle (chord2(a, b) <= 2): no
 * trigonometry, so the bound that most short edges need.
 */
Box3 arc_sagitta_box(const Vec3 &a, const Vec3 &b);

/* The six axis points, in the order of the bits of axis_points_box's mask. */
enum AxisPoint : unsigned
{
	kAxisPlusX = 1u << 0,
	kAxisMinusX = 1u << 1,
	kAxisPlusY = 1u << 2,
	kAxisMinusY = 1u << 3,
	kAxisPlusZ = 1u << 4,
	kAxisMinusZ = 1u << 5,
};

constexpr int kAxisPoints = 6;

Vec3 axis_point(int index);

/* Extend b by the axis points of mask (bits of AxisPoint). */
void box_extend_axis_points(Box3 *b, unsigned mask);

/* The whole sphere's box, [-1, 1]^3. */
Box3 box_sphere();

} // namespace geoidx
