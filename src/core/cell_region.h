/*
 * The region of a set of cells (cells.h): what a partition on
 * geoidx_cell(pos, level) may hold, as a few boxes, and the metres no point
 * of it can be nearer than. A k-NN search over such partitions starts a
 * partition's scan only once the rows it has are no nearer than that bound.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

/* The boxes a region keeps: more is tighter, and costs a chord each per search. */
constexpr size_t kCellRegionBoxes = 8;

/* The number of cells at level: six faces of 4^level. */
uint64_t cells_at_level(int level);

/*
 * The boxes of the cells at level with ids in [lo, hi) (clamped to the
 * level's ids), into out[0 .. return): the range tiled by the largest aligned
 * blocks of the curve (each one coarser cell), those merged in curve order
 * into at most max_out boxes. 0 when the range holds no cell.
 */
size_t cell_range_boxes(uint64_t lo, uint64_t hi, int level, Box3 *out, size_t max_out);

/*
 * The same for a list of cells at level, merged in the list's order (so a
 * sorted list gives the tightest boxes); ids past the level's hold nothing.
 */
size_t cell_list_boxes(const uint64_t *cells, size_t n, int level, Box3 *out, size_t max_out);

/* The squared chord from q to the nearest of the boxes; infinity for none. */
double region_chord2(const Box3 *boxes, size_t n, const Vec3 &q);

/*
 * Metres (PostGIS's sphere or spheroid) that no point of the region is
 * nearer to q than; infinity for a region of no box, which holds no point.
 */
double region_lower_bound(const Box3 *boxes, size_t n, const Vec3 &q, bool use_spheroid);

/* The most ranges a pruning condition names: more, and the nearest ones merge. */
constexpr size_t kPruneRanges = 4;

/*
 * The cells at level that can hold a point within radius metres of center
 * (covering_cells' promise), as at most max_ranges ranges [lo, hi) of cell
 * ids, ascending and apart: the covering taken at a level coarse enough for a
 * few dozen cells, its runs of neighbouring cells widened to level, and the
 * runs with the smallest gaps merged until max_ranges remain. A superset:
 * what partition pruning may keep, never one partition too few. radius must
 * be >= 0 (infinite: every cell).
 */
size_t covering_ranges(GeoPoint center, double radius, bool use_spheroid, int level, uint64_t *lo,
					   uint64_t *hi, size_t max_ranges);

} // namespace geoidx
