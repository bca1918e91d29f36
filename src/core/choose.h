/*
 * Which subtree an insert descends into. The rule is the R*-tree's for
 * points: among the entries whose box already covers the point, the one with
 * the smallest margin (so that a point goes to the tightest page that can
 * take it without growing anything); when none covers it, the one whose
 * margin grows least, ties broken by the smaller margin, then by the first
 * entry (so that the same page always takes the same point). Margin rather
 * than volume for the reason split.h gives: many boxes of unit vectors are
 * flat.
 */
#pragma once

#include <cstddef>

#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

/*
 * The entry to follow among n boxes, the i-th at byte offset i * stride from
 * first (so that a page's entries are read in place, whatever else they
 * hold). v == nullptr is a row with no point (NULL or EMPTY): every entry
 * covers it, so the smallest margin wins, which leads such rows to the pages
 * that already hold them (their boxes are empty). Returns -1 when n == 0;
 * *covers tells whether the chosen box needs no enlargement.
 */
int choose_entry(const Box3 *first, size_t stride, size_t n, const Vec3 *v, bool *covers);

/*
 * The same for a shape's box (nullptr: a row with no shape): an entry covers it
 * when its box holds the whole box; growth is that of the margin.
 */
int choose_entry_box(const Box3 *first, size_t stride, size_t n, const Box3 *box, bool *covers);

} // namespace geoidx
