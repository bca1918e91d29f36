/*
 * Cells of the index's own space-filling curve, for sharding by location: a
 * point's cell at a level (0..30) is the first 3 + 2 * level bits of its
 * Hilbert sort key (hilbert.h), so cells at a level are contiguous runs of
 * the build order, nest (a cell's four children share its prefix), and a
 * table partitioned or distributed on the cell keeps neighbours together.
 * covering_cells lists every cell at a level that a circle can touch, so that
 * a radius query names the partitions or shards it must reach.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

constexpr int kMaxCellLevel = 30;

/* The cell at level of the unit vector v: face << (2 * level) | Hilbert position at that order. */
uint64_t cell_of(const Vec3 &v, int level);

/* The box of a cell's spherical quadrilateral, padded for the rounding of cell_of. */
Box3 cell_box(uint64_t cell, int level);

/*
 * The cells at level that can hold a point within radius metres of center
 * (PostGIS's sphere or spheroid), ascending, into cells[0 .. *n): a superset,
 * never missing the cell of a point that ST_DWithin accepts. False when more
 * than max_cells would be needed (cells then holds max_cells of them).
 */
bool covering_cells(GeoPoint center, double radius, bool use_spheroid, int level, uint64_t *cells,
					size_t max_cells, size_t *n);

} // namespace geoidx
