/*
 * How a full page is cut in two: sort the entries' boxes along the axis on
 * which the page's unit vectors spread most and cut where the two halves'
 * margins (sum of edge lengths) add up least, within a minimum fill. Margin, not
 * area, because on a sphere many boxes are flat (all three extents are not
 * independent) and a flat box has no volume to compare.
 */
#pragma once

#include <cstddef>

#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

/*
 * boxes[0..n) are the entries' boxes (a point's box is the point; an empty
 * box, for an entry with no point, sorts after every other). On return
 * order[0..n) is a permutation of 0..n-1 and the first *left_count entries of
 * it go to the left page. scratch must hold 2 * n boxes and n doubles.
 */
void choose_split(const Box3 *boxes, size_t n, size_t min_fill, size_t *order, size_t *left_count,
				  Box3 *scratch_boxes, double *scratch_keys);

} // namespace geoidx
