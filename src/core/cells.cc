#include "cells.h"

#include <algorithm>
#include <cmath>

#include "arc_box.h"
#include "hilbert.h"

namespace geoidx
{

namespace
{

/*
 * Every point within this chord of a cell's quadrilateral counts as in the
 * cell's box: far more than the rounding of the corners (a few ulps) and of
 * cell_of's atan and quantisation at a cell's edge (1 ulp of s), far less than
 * a level-30 cell (~6e-10 of a face).
 */
constexpr double kCellPad = 1e-9;

/* The unit vector at (s, t) of face, the inverse of hilbert_key's projection. */
Vec3
face_point(int face, double s, double t)
{
	double u = std::tan(s * (M_PI / 4.0));
	double w = std::tan(t * (M_PI / 4.0));
	double m = face < 3 ? 1.0 : -1.0;
	Vec3 v;
	switch (face % 3)
	{
		case 0:
			v = Vec3{m, u, w};
			break;
		case 1:
			v = Vec3{w, m, u};
			break;
		default:
			v = Vec3{u, w, m};
			break;
	}
	double len = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
	return Vec3{v.x / len, v.y / len, v.z / len};
}

/* The box of cell (x, y) at level on face: its four great-circle edges and the face centre. */
Box3
face_cell_box(int face, int level, uint32_t x, uint32_t y)
{
	const double size = 2.0 / (double) (UINT64_C(1) << level);
	double s0 = -1.0 + size * x, s1 = -1.0 + size * (x + 1);
	double t0 = -1.0 + size * y, t1 = -1.0 + size * (y + 1);
	Vec3 c[4] = {face_point(face, s0, t0), face_point(face, s1, t0), face_point(face, s1, t1),
				 face_point(face, s0, t1)};
	Box3 b = box_empty();
	for (int i = 0; i < 4; i++)
		box_extend(&b, arc_box(c[i], c[(i + 1) % 4]));
	/* the face's centre is the one point of the cell beyond its edges' boxes */
	if (s0 <= 0.0 && 0.0 <= s1 && t0 <= 0.0 && 0.0 <= t1)
		box_extend(&b, face_point(face, 0.0, 0.0));
	for (int i = 0; i < 3; i++)
	{
		b.lo[i] = std::max(-1.0, b.lo[i] - kCellPad);
		b.hi[i] = std::min(1.0, b.hi[i] + kCellPad);
	}
	return b;
}

/*
 * The boxes of the cells at depths 0..kMemoDepth (8,190 of them, 393 KB),
 * each computed once per process: a covering walks down from the faces, and
 * every walk passes through them.
 */
constexpr int kMemoDepth = 5;

size_t
memo_slot(int face, int depth, uint32_t x, uint32_t y)
{
	/* the cells of the depths above: 6 * (4^depth - 1) / 3 */
	size_t above = 6 * (((size_t) 1 << (2 * depth)) - 1) / 3;
	return above + ((size_t) face << (2 * depth)) + ((size_t) y << depth) + x;
}

constexpr size_t kMemoCells = 6 * (((size_t) 1 << (2 * (kMemoDepth + 1))) - 1) / 3;
Box3 memo_box[kMemoCells];
bool memo_filled[kMemoCells];

Box3
memo_face_cell_box(int face, int depth, uint32_t x, uint32_t y)
{
	if (depth > kMemoDepth)
		return face_cell_box(face, depth, x, y);
	size_t slot = memo_slot(face, depth, x, y);
	if (!memo_filled[slot])
	{
		memo_box[slot] = face_cell_box(face, depth, x, y);
		memo_filled[slot] = true;
	}
	return memo_box[slot];
}

struct Covering
{
	const RadiusTest *test;
	int level;
	uint64_t *cells;
	size_t max_cells;
	size_t n;
	bool full;
};

void
emit(Covering *c, uint64_t cell)
{
	if (c->n == c->max_cells)
	{
		c->full = true;
		return;
	}
	c->cells[c->n++] = cell;
}

/* Cell (x, y) of face at depth, and its descendants at c->level that the circle may touch. */
void
cover(Covering *c, int face, int depth, uint32_t x, uint32_t y)
{
	if (c->full)
		return;
	Verdict v = classify_box(*c->test, memo_face_cell_box(face, depth, x, y));
	if (v == Verdict::outside)
		return;
	if (depth == c->level)
	{
		emit(c, (uint64_t) face << (2 * depth) | hilbert_xy_to_d((uint32_t) depth, x, y));
		return;
	}
	for (uint32_t i = 0; i < 2; i++)
		for (uint32_t j = 0; j < 2; j++)
			cover(c, face, depth + 1, 2 * x + i, 2 * y + j);
}

} // namespace

uint64_t
cell_of(const Vec3 &v, int level)
{
	return hilbert_key(v) >> (2 * (kMaxCellLevel - level));
}

Box3
cell_box(uint64_t cell, int level)
{
	uint32_t x, y;
	hilbert_d_to_xy((uint32_t) level, cell & ((UINT64_C(1) << (2 * level)) - 1), &x, &y);
	return face_cell_box((int) (cell >> (2 * level)), level, x, y);
}

bool
covering_cells(GeoPoint center, double radius, bool use_spheroid, int level, uint64_t *cells,
			   size_t max_cells, size_t *n)
{
	RadiusTest t = radius_test(center, radius, use_spheroid);
	Covering c = {&t, level, cells, max_cells, 0, false};
	for (int face = 0; face < 6; face++)
		cover(&c, face, 0, 0, 0);
	std::sort(cells, cells + c.n);
	*n = c.n;
	return !c.full;
}

} // namespace geoidx
