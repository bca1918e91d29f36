/*
 * How many index entries a disc holds, estimated from the boxes the tree
 * already keeps (the planner's row estimate for a radius, src/pg/tree_estimate.cc).
 *
 * Why the tree and not PostGIS's statistics: PostGIS's 2-D histogram has some
 * 10,000 cells over the data's extent, a few hundred kilometres each for
 * world-wide data, and assumes rows spread evenly inside a cell; a city is a
 * spike inside one cell, so a 1 km disc there was estimated at 1 row for 32.
 * The tree's boxes follow the data down to a leaf's 32-entry chunks, so the
 * planner reads a few pages and counts.
 *
 * What is estimated and what is counted: a chunk or a page box wholly in the
 * disc counts all its entries, one wholly outside none; a chunk the edge
 * crosses is counted entry by entry (chord test on the mean sphere, not the
 * exact geodesic: an estimate within a few metres of the edge is as good).
 * A box the planner does not read is assumed evenly filled, and its share in
 * the disc is sampled (box_share_in_disc).
 */
#pragma once

#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

struct DiscEstimate
{
	RadiusTest test; /* the provable box verdicts */
	Vec3 q;
	double c2; /* the squared chord of the radius on the mean sphere */
};

DiscEstimate disc_estimate(GeoPoint centre, double radius, bool use_spheroid);

/* Whether a unit vector lies in the disc (on the mean sphere). */
inline bool
vector_in_disc(const DiscEstimate &d, const Vec3 &v)
{
	return chord2(d.q, v) <= d.c2;
}

/* Whether any of a box (a shape's) reaches into the disc. */
inline bool
box_reaches_disc(const DiscEstimate &d, const Box3 &b)
{
	return !box_is_empty(b) && min_chord2(b, d.q) <= d.c2;
}

/*
 * The share of a box's entries in the disc, if they are spread evenly over
 * the patch of sphere inside the box: 0 or 1 where the box's verdict is
 * provable, else the share of a grid of samples of the box, projected onto the
 * sphere, that lie in the disc, or for a disc that no sample hits the ratio of
 * the areas. Never 0 unless the box is provably outside.
 */
double box_share_in_disc(const DiscEstimate &d, const Box3 &b);

} // namespace geoidx
