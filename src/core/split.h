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

/*
 * Where to cut entries of the given sizes (bytes[k]: the k-th entry in the
 * split order, payload included) so that each side fits in capacity bytes:
 * preferred itself when both sides fit there, else the cut k in [1, n) that
 * fits and lies nearest to preferred (the smaller one of two equally near).
 * Returns 0 when no cut fits. One exists whenever no entry exceeds m bytes
 * and all of them together take at most 2 * capacity - m: the last cut whose
 * left side fits leaves less than capacity on the right.
 */
size_t fitting_cut(const size_t *bytes, size_t n, size_t capacity, size_t preferred);

} // namespace geoidx
