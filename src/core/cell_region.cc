#include "cell_region.h"

#include <algorithm>
#include <limits>

#include <cmath>

#include "cells.h"

namespace geoidx
{

namespace
{

/*
 * The most blocks a range tiles into: up to 3 a level on each side of its
 * coarsest block, and up to 6 whole faces.
 */
constexpr size_t kMaxBlocks = 6 * (kMaxCellLevel + 1) + 6;

/* Merge m boxes, block(j) for j in [0, m), in order into at most max_out boxes of neighbours. */
template <typename Block>
size_t
merge_in_order(size_t m, Block block, Box3 *out, size_t max_out)
{
	size_t g = std::min(m, max_out);
	for (size_t i = 0; i < g; i++)
	{
		Box3 b = box_empty();
		for (size_t j = i * m / g; j < (i + 1) * m / g; j++)
			box_extend(&b, block(j));
		out[i] = b;
	}
	return g;
}

} // namespace

uint64_t
cells_at_level(int level)
{
	return UINT64_C(6) << (2 * level);
}

size_t
cell_range_boxes(uint64_t lo, uint64_t hi, int level, Box3 *out, size_t max_out)
{
	hi = std::min(hi, cells_at_level(level));
	Box3 blocks[kMaxBlocks];
	size_t m = 0;
	/* Each step takes the largest block of 4^k cells aligned at lo and ending by hi. */
	while (lo < hi && m < kMaxBlocks)
	{
		int k = 0;
		while (k < level && (lo & ((UINT64_C(4) << (2 * k)) - 1)) == 0 &&
			   hi - lo >= (UINT64_C(4) << (2 * k)))
			k++;
		blocks[m++] = cell_box(lo >> (2 * k), level - k);
		lo += UINT64_C(1) << (2 * k);
	}
	return merge_in_order(
		m, [&](size_t j) { return blocks[j]; }, out, max_out);
}

size_t
cell_list_boxes(const uint64_t *cells, size_t n, int level, Box3 *out, size_t max_out)
{
	/* a cell past the level's ids is no cell: its box is empty, and merges away */
	return merge_in_order(
		n,
		[&](size_t j)
		{ return cells[j] < cells_at_level(level) ? cell_box(cells[j], level) : box_empty(); },
		out, max_out);
}

double
region_chord2(const Box3 *boxes, size_t n, const Vec3 &q)
{
	double c2 = std::numeric_limits<double>::infinity();
	for (size_t i = 0; i < n; i++)
		c2 = std::min(c2, min_chord2(boxes[i], q));
	return c2;
}

double
region_lower_bound(const Box3 *boxes, size_t n, const Vec3 &q, bool use_spheroid)
{
	double c2 = region_chord2(boxes, n, q);
	if (c2 == std::numeric_limits<double>::infinity())
		return c2;
	return metres_lower_bound(chord2_to_angle(c2), use_spheroid);
}

namespace
{

/* The cells the covering of a circle may name before a coarser level is tried. */
constexpr size_t kCoveringCells = 64;
/*
 * The finest level a pruning covering is taken at (cells ~300 km across):
 * partitions hold far more than a cell of it, and its cells' boxes are
 * computed once (cells.cc).
 */
constexpr int kFinestPruneLevel = 5;

/* The level at which cells are about as wide as the circle (a face is ~pi/2 across). */
int
coarse_level(double radius, int level)
{
	double angle = radius / kSphereRadius;
	int l = 0;
	while (l < level && (M_PI / 2.0) / (double) (UINT64_C(1) << (l + 1)) >= angle)
		l++;
	return l;
}

} // namespace

size_t
covering_ranges(GeoPoint center, double radius, bool use_spheroid, int level, uint64_t *lo,
				uint64_t *hi, size_t max_ranges)
{
	if (max_ranges == 0)
		return 0;
	if (!(radius < kSphereRadius * M_PI))
	{
		lo[0] = 0;
		hi[0] = cells_at_level(level);
		return 1;
	}
	uint64_t cells[kCoveringCells];
	size_t n = 0;
	int l = std::min(coarse_level(radius, level), kFinestPruneLevel);
	/* level 0 has 6 cells: the loop ends there at the latest */
	while (!covering_cells(center, radius, use_spheroid, l, cells, kCoveringCells, &n))
		l--;
	int shift = 2 * (level - l);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
	{
		uint64_t a = cells[i] << shift, b = (cells[i] + 1) << shift;
		if (m > 0 && hi[m - 1] == a)
			hi[m - 1] = b;
		else if (m < max_ranges)
		{
			lo[m] = a;
			hi[m] = b;
			m++;
		}
		else
		{
			/* full: join the two ranges with the smallest gap, then take this one */
			size_t best = 0;
			for (size_t j = 1; j + 1 < m; j++)
				if (lo[j + 1] - hi[j] < lo[best + 1] - hi[best])
					best = j;
			if (m > 1 && lo[best + 1] - hi[best] < a - hi[m - 1])
			{
				hi[best] = hi[best + 1];
				for (size_t j = best + 1; j + 1 < m; j++)
				{
					lo[j] = lo[j + 1];
					hi[j] = hi[j + 1];
				}
				lo[m - 1] = a;
				hi[m - 1] = b;
			}
			else
				hi[m - 1] = b;
		}
	}
	return m;
}

} // namespace geoidx
