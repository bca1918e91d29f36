/*
 * The regions a geoidx scan key can ask for, all around one centre:
 *
 *   within    ST_DWithin(centre, p, r)              geoidx_dwithin, the <@ circle
 *   outside   NOT ST_DWithin(centre, p, r)          NOT geoidx_dwithin, a ring's hole
 *   dist_gt   ST_Distance(centre, p) >  r           pos <~> c >  r  (keyset paging)
 *   dist_ge   ST_Distance(centre, p) >= r           pos <~> c >= r
 *   dist_lt   ST_Distance(centre, p) <  r           pos <~> c <  r
 *   dist_le   ST_Distance(centre, p) <= r           pos <~> c <= r
 *   box_meets a box of unit vectors (planar_box.h)    col && q, col @ q, col ~ q
 *
 * box_meets is lossy: it prunes boxes that miss it and holds for every point,
 * which the planar box key then decides from the raw coordinates.
 *
 * ST_Distance is the rounded value <~> returns (10 nm), ST_DWithin the
 * unrounded comparison PostGIS makes; the box verdicts of RadiusTest carry a
 * slack of kAbsMetres (10 um), a thousand times the rounding, so one verdict
 * serves all six. The distance comparisons take any float8 bound, with
 * PostgreSQL's float8 semantics (NaN above everything): the planner turns
 * `pos <~> c > $1` into a dist_gt key whatever $1 turns out to be, and the key
 * must then answer exactly what the comparison would.
 */
#pragma once

#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

enum class RegionMode : int
{
	within = 0,
	outside = 1,
	dist_gt = 2,
	dist_ge = 3,
	dist_lt = 4,
	dist_le = 5,
	box_meets = 6,
};

/* The modes a geoidx_circle can hold (all but box_meets). */
constexpr int kRegionModes = 6;

struct RegionTest
{
	RadiusTest circle;
	RegionMode mode;
	/* -1: decide per box and point; 0: nothing is in the region; 1: every point is */
	int constant;
	/*
	 * within/outside: the point is ST_DWithin's first argument, the centre the
	 * second. PostGIS's great-circle angle is not symmetric in the last bits,
	 * so the exact test must take them in the caller's order.
	 */
	bool point_first;
	Box3 box; /* box_meets: the boxes of entries that may match reach it */
};

/*
 * radius: any double. For within/outside a NaN or negative one puts no point
 * within (ST_DWithin's distance <= radius is false) and every point outside:
 * the outside region of an EMPTY centre is made so (circle.cc).
 */
RegionTest region_test(GeoPoint centre, double radius, bool use_spheroid, RegionMode mode,
					   bool point_first = false);

/* The lossy region of a planar box key: boxes that miss `image` hold no match. */
RegionTest region_box_meets(const Box3 &image);

/* inside: every point in the box is in the region; outside: none is. */
Verdict classify_region(const RegionTest &t, const Box3 &b);

/* Exact, for a point as the geography cast leaves it. */
bool point_in_region(const RegionTest &t, LonLat p);
/* The same, with the point's radians g and unit vector v already computed. */
bool point_in_region_at(const RegionTest &t, LonLat p, GeoPoint g, const Vec3 &v);

/* The region is the complement of a disc (outside, dist_gt, dist_ge). */
bool region_is_outer(const RegionTest &t);

/* A POINT EMPTY row: ST_DWithin is false for it and ST_Distance NULL, so only outside holds. */
inline bool
empty_in_region(const RegionTest &t)
{
	return t.mode == RegionMode::outside;
}

} // namespace geoidx
