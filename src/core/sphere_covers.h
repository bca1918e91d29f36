/*
 * Does a polygon cover a point, as PostGIS geography's ST_Covers answers it?
 * Decided here wherever the answer cannot depend on rounding, and left to
 * PostGIS (uncertain) where it could.
 *
 * PostGIS's rule (liblwgeom lwpoly_covers_point2d, ptarray_contains_point_sphere
 * in 3.3): a point outside the polygon's geodetic box is not covered; else a
 * stab line is drawn from it to a point outside the box, and a ring holds the
 * point if the line crosses it an odd number of times or the point is on it
 * (within 1e-12); covered = held by the outer ring and by an even number of
 * holes. Edges are great-circle arcs.
 *
 * Why the answer can be read here from another stab line: where the part of
 * the sphere outside the box is one connected piece, no edge separates two of
 * its points, so every point of it gives the same crossing parity, PostGIS's
 * outside point included. The piece is the union of at most six caps
 * {v_i > hi_i} and {v_i < lo_i}; cover_outside_caps() checks, with margins, that
 * they are connected, and the stab line runs to the axis point of one of them.
 *
 * Why the parity is then PostGIS's: PostGIS's arithmetic is exact to ~1e-15
 * and its tolerances are 1e-12, so its crossing count is the true one for its
 * stab line unless a vertex lies within ~1e-12 of that line's circle (a chance
 * of ~1e-12 per vertex near the line, which nothing here can see), or the point
 * lies within ~1e-12 of the circle of an edge that meets that circle at the
 * point (the boundary) or at the point's antipode (its touch rules do not look
 * where on the circle the touch is). Those two cases, widened to kCoverMargin
 * (and, for a short edge, to the rounding of its circle), are uncertain here,
 * as is every near-degenerate step of this stab line, a point inside by the
 * rings but within kBoxSlack of the box's faces (PostGIS keeps the box as
 * float4, rounded outwards, and tests it first), a stab line longer than 120
 * degrees, and an edge nearly half the circle.
 */
#pragma once

#include <cstdint>

#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

/*
 * One ring's unit vectors, closed (the last equals the first), in order, and
 * optionally the boxes of its edges in chunks of kRingChunk (ring_chunk_boxes):
 * with them a test skips every chunk that is far from the point, from its
 * antipode and from the stab line's circle, which is most of a large ring.
 */
struct RingVectors
{
	const Vec3 *v;
	uint32_t n;
	const Box3 *chunks; /* ring_chunk_count(n) boxes, or nullptr */
};

constexpr uint32_t kRingChunk = 16;

/* How many chunk boxes a ring of n points has. */
inline uint32_t
ring_chunk_count(uint32_t n)
{
	return n < 2 ? 0 : (n - 2) / kRingChunk + 1;
}

/*
 * Fill out[ring_chunk_count(n)] with each chunk's box of edges, padded by the
 * widest margin polygon_covers gives any of its edges.
 */
void ring_chunk_boxes(const Vec3 *v, uint32_t n, Box3 *out);

enum class Cover
{
	outside,
	inside,
	uncertain, /* ask PostGIS */
};

/* The sine (on the unit sphere) below which a point or vertex counts as near a great circle. */
constexpr double kCoverMargin = 1e-9;

/*
 * The caps outside a polygon's box as a mask of AxisPoint bits, each cap
 * holding its axis point well away from the box, from the box of the polygon's
 * edges (all rings): *box receives that box with PostGIS's pole rule applied.
 * 0 if nothing about this polygon can be decided here: the pole rule's tests
 * are too close to call (PostGIS's own box could then differ from ours by a
 * pole), the caps might not form one connected piece, or none has room.
 */
unsigned cover_outside_caps(const Box3 &edges, Box3 *box);

/*
 * Whether the polygon of nrings rings (the outer one first) covers p, given its
 * box and the caps cover_outside_caps() found for it.
 */
Cover polygon_covers(const RingVectors *rings, uint32_t nrings, const Box3 &box, unsigned caps,
					 const Vec3 &p);

} // namespace geoidx
