#include "shape_pieces.h"

#include <algorithm>
#include <cmath>

namespace geoidx
{

namespace
{

/* How many blocks along a and b: about square blocks, at most kMaxPieces in all. */
void
block_counts(const GridFrame &f, int *pa, int *pb)
{
	const double want = std::sqrt(static_cast<double>(kMaxPieces) * f.na / f.nb);
	*pa = std::clamp(static_cast<int>(std::lround(want)), 1, std::min(f.na, kMaxPieces));
	*pb = std::clamp(kMaxPieces / *pa, 1, f.nb);
}

/* The rectangle of the cells of [i0, i1) x [j0, j1) that are not outside; false if there is none.
 */
bool
occupied(const GridFrame &f, const InteriorGrid &grid, int i0, int i1, int j0, int j1, int *ci0,
		 int *ci1, int *cj0, int *cj1)
{
	*ci0 = i1;
	*ci1 = i0;
	*cj0 = j1;
	*cj1 = j0;
	for (int i = i0; i < i1; i++)
		for (int j = j0; j < j1; j++)
		{
			if (grid_bit(grid.outside, i * f.nb + j))
				continue;
			*ci0 = std::min(*ci0, i);
			*ci1 = std::max(*ci1, i + 1);
			*cj0 = std::min(*cj0, j);
			*cj1 = std::max(*cj1, j + 1);
		}
	return *ci0 < *ci1;
}

Box3
clipped(const Box3 &a, const Box3 &b)
{
	Box3 r;
	for (int k = 0; k < 3; k++)
	{
		r.lo[k] = std::max(a.lo[k], b.lo[k]);
		r.hi[k] = std::min(a.hi[k], b.hi[k]);
	}
	return r;
}

} // namespace

bool
shape_pieces(const Box3 &box, const InteriorGrid &grid, ShapePieces *out)
{
	out->n = 0;
	/* with no cell known to be empty the pieces would tile the box: no better than it */
	if ((grid.outside[0] | grid.outside[1]) == 0)
		return false;
	const GridFrame f = grid_frame(box);
	int pa, pb;
	block_counts(f, &pa, &pb);
	for (int bi = 0; bi < pa; bi++)
	{
		const int i0 = bi * f.na / pa, i1 = (bi + 1) * f.na / pa;
		for (int bj = 0; bj < pb; bj++)
		{
			const int j0 = bj * f.nb / pb, j1 = (bj + 1) * f.nb / pb;
			int ci0, ci1, cj0, cj1;
			if (!occupied(f, grid, i0, i1, j0, j1, &ci0, &ci1, &cj0, &cj1))
				continue;
			Box3 column;
			if (!grid_column_box(f, ci0, ci1, cj0, cj1, &column))
				return false;
			/* a column that misses the box on some axis holds no unit vector of it, so no point */
			const Box3 piece = clipped(column, box);
			if (piece.lo[0] <= piece.hi[0] && piece.lo[1] <= piece.hi[1] &&
				piece.lo[2] <= piece.hi[2])
				out->box[out->n++] = piece;
		}
	}
	return out->n > 1;
}

Verdict
pieces_classify(const RegionTest &t, const ShapePieces &p)
{
	const bool every_point = t.mode == RegionMode::outside || t.mode == RegionMode::dist_gt ||
							 t.mode == RegionMode::dist_ge;
	/* every_point: inside if every piece is inside; some point: outside if every piece is outside
	 */
	const Verdict all = every_point ? Verdict::inside : Verdict::outside;
	for (int i = 0; i < p.n; i++)
		if (classify_region(t, p.box[i]) != all)
			return Verdict::maybe;
	return p.n > 0 ? all : Verdict::maybe;
}

Cover
pieces_covers(const ShapePieces &p, const InteriorGrid *grid, const Vec3 &v)
{
	bool held = false;
	for (int i = 0; i < p.n; i++)
	{
		if (!box_contains(p.box[i], v))
			continue;
		held = true;
		const Cover c = grid_covers(grid[i], grid_frame(p.box[i]), v);
		if (c != Cover::uncertain)
			return c;
	}
	return held ? Cover::uncertain : Cover::outside;
}

uint64_t
cover_shape_vertices(const CoverShape &s)
{
	uint64_t n = 0;
	for (uint32_t p = 0; p < s.npolygons; p++)
		for (uint32_t r = 0; r < s.polygons[p].nrings; r++)
			n += s.rings[s.polygons[p].first_ring + r].n;
	return n;
}

int
store_pieces(const CoverShape &s, const Box3 &box, const InteriorGrid &grid,
			 StoredPiece out[kMaxPieces])
{
	ShapePieces p;
	if (cover_shape_vertices(s) < kPieceMinVertices || !shape_pieces(box, grid, &p))
		return 0;
	for (int i = 0; i < p.n; i++)
	{
		out[i].box = pack_box(p.box[i]);
		out[i].grid = interior_grid(s, unpack_box(out[i].box));
	}
	return p.n;
}

void
load_pieces(const StoredPiece *in, int n, ShapePieces *out, InteriorGrid *grids)
{
	out->n = n;
	for (int i = 0; i < n; i++)
	{
		out->box[i] = unpack_box(in[i].box);
		grids[i] = in[i].grid;
	}
}

} // namespace geoidx
