/*
 * A 64-bit sort key that keeps points that are close on the sphere close in
 * the key order: the cube face the unit vector points to (as S2 does) and the
 * Hilbert curve position of the vector on that face. The bulk build sorts by
 * it, so leaves are compact patches of the globe and a heap clustered along
 * the index is spatially local. It is deterministic: the same points build the
 * same index.
 */
#pragma once

#include <cstdint>

#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

/* Hilbert order 30 on each of the six faces: 3 + 60 bits. */
uint64_t hilbert_key(const Vec3 &v);

/* Position of (x, y) on a Hilbert curve of 2^order x 2^order cells. */
uint64_t hilbert_xy_to_d(uint32_t order, uint32_t x, uint32_t y);

/* The cell (x, y) at position d of that curve: the inverse of hilbert_xy_to_d. */
void hilbert_d_to_xy(uint32_t order, uint64_t d, uint32_t *x, uint32_t *y);

} // namespace geoidx
