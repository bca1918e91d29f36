/*
 * The partitions of a k-NN over a table partitioned on geoidx_cell, in order
 * of the metres no row of each can be nearer than (cell_region.h), worked out
 * only as far as the search asks.
 *
 * A query starts one or two of 64 partitions, yet needed every partition's
 * bound to sort them: up to 8 boxes and an asin each, ~10 us of a query that
 * takes ~100 (bench/PROFILES.md). Here a partition waits under the bound of
 * the hull of its boxes, one chord. Only when that comes up are its boxes
 * read, and only when it is next is its chord turned into metres: metres
 * grow with the chord up to kMonotoneChord2, so the chords order the
 * partitions until then. Past it (near the antipode), with no region known,
 * or with no centre, a partition's metres are worked out at once and kept in
 * a sorted list beside the heap. Every bound handed out is exactly
 * max(0, region_lower_bound(boxes) - slack), in nondecreasing order.
 *
 * The storage is the caller's (the PostgreSQL glue's memory context): nothing
 * here allocates, and nothing has a destructor.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

/* One partition's region: its boxes and their hull; known false: no region (bound 0). */
struct RegionRef
{
	const Box3 *boxes;
	size_t n;
	Box3 hull;
	bool known;
};

/* The hull of n boxes (box_empty() for none). */
Box3 region_hull(const Box3 *boxes, size_t n);

/* A partition waiting its turn: by its hull's chord, its own chord, or its metres. */
struct RegionSlot
{
	double raw;    /* squared chord to the hull (stage 0) or to the nearest box (1, 2) */
	double metres; /* stage 2, and every slot of the sorted list */
	uint32_t child;
	uint8_t stage;
};

struct RegionOrder
{
	const RegionRef *regions;
	Vec3 q;
	bool use_spheroid;
	double slack;
	RegionSlot *near; /* a min-heap on raw: partitions within the monotone range */
	size_t near_n;
	RegionSlot *sorted; /* by metres: the others */
	size_t sorted_next, sorted_n;
	int picked;       /* where region_order_next found the next: 0 near, 1 sorted, -1 none */
	size_t box_reads; /* partitions whose boxes were read (tests) */
};

/*
 * Start an order of count partitions around q (NULL: no centre, every bound
 * 0), less slack metres (a shape centre's reach). near and sorted hold count
 * slots each.
 */
void region_order_start(RegionOrder *o, const RegionRef *regions, size_t count, const Vec3 *q,
						bool use_spheroid, double slack, RegionSlot *near, RegionSlot *sorted);

/* The next partition and its bound; false when none is left. */
bool region_order_next(RegionOrder *o, size_t *child, double *bound);

/* Remove the partition region_order_next named. */
void region_order_take(RegionOrder *o);

} // namespace geoidx
