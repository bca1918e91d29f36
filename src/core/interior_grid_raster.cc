/*
 * The interior grid by raster (interior_grid.h): one pass over the edges marks
 * the cells near them, then each face-connected group of unmarked cells is
 * decided by one point-in-polygon test.
 *
 * A cell stands for its column: every unit vector on the box's sheet whose a
 * and b lie in the cell's rectangle, above and below the box too. An edge marks
 * the cells whose rectangle its box, padded by kInteriorMargin, reaches in a
 * and b: the arc lies in the box of its ends padded by its sagitta
 * (arc_sagitta_box), and two points whose a or b differ by more than the
 * margin are farther apart than it. So no edge comes within the margin of an
 * unmarked cell's column. An edge whose box spans at least three cells each way
 * (long, or diagonal) tests each of those cells' column caps instead, as the
 * block classifier tests a block.
 *
 * Why a group takes one answer: over the rectangle of two face-adjacent cells,
 * a convex set, the sheet is a graph, so a group's columns are connected, and
 * no edge separates two of their points; the crossing parity of a stab line to
 * a fixed point outside a polygon's box (sphere_covers.h: PostGIS's parity,
 * away from rounding) is the same all over them. The answer is asked at the
 * unit vector over a cell's centre, half a cell inside its column. The
 * block classifier's antipode rule (an edge near -v can fool PostGIS's touch
 * rules) holds for the whole grid at once when the box lies at |c| >
 * kRasterMinC: every edge is in the box, every antipode on the other sheet.
 * What is not the same over a group is the polygon's box, which PostGIS tests
 * first: a cell is inside only if its part of the box lies inside that
 * polygon's box by the margin. A cell with no part of the box joins no group.
 */
#include <algorithm>
#include <cmath>

#include "arc_box.h"
#include "interior_grid.h"

namespace geoidx
{

namespace
{

/* Cells a group tries before it is left undecided (a stab line can be too long from one). */
constexpr int kTries = 3;
/* The polygons a group's inside answer keeps (more overlap only in invalid shapes). */
constexpr int kKeptPolygons = 4;

void
set_bit(uint64_t *bits, int cell)
{
	bits[cell / 64] |= uint64_t{1} << (cell % 64);
}

/* The cells whose range along an axis meets [lo, hi]: first and last index, clamped. */
void
cell_range(double lo, double hi, double box_lo, double step, int n, int *first, int *last)
{
	if (!(step > 0.0))
	{
		*first = 0;
		*last = n - 1;
		return;
	}
	const double top = static_cast<double>(n - 1);
	*first = static_cast<int>(std::clamp(std::floor((lo - box_lo) / step), 0.0, top));
	*last = static_cast<int>(std::clamp(std::floor((hi - box_lo) / step), 0.0, top));
}

class Raster
{
public:
	Raster(const CoverShape &s, const GridFrame &f) : s_(s), f_(f) {}

	bool
	run(InteriorGrid *out)
	{
		const double c_lo = f_.box.lo[f_.c], c_hi = f_.box.hi[f_.c];
		if (!(c_lo > kRasterMinC || c_hi < -kRasterMinC))
			return false;
		for (uint32_t r = 0; r < nrings(); r++)
		{
			const RingVectors &ring = s_.rings[r];
			if (ring.n == 1)
				mark_box(box_of(ring.v[0]));
			for (uint32_t j = 0; j + 1 < ring.n; j++)
				if (!mark_edge(ring.v[j], ring.v[j + 1]))
					return false;
		}
		*out = InteriorGrid{{0, 0}, {0, 0}};
		decide_groups(out);
		leave_axis_point(out);
		return true;
	}

private:
	const CoverShape &s_;
	const GridFrame &f_;
	uint64_t marked_[2] = {0, 0};
	/* per cell, computed when first asked: 0 not yet, 1 there, -1 none */
	Box3 boxes_[kGridCells];
	signed char box_state_[kGridCells] = {};
	GridCap columns_[kGridCells];
	signed char column_state_[kGridCells] = {};

	uint32_t
	nrings() const
	{
		uint32_t n = 0;
		for (uint32_t k = 0; k < s_.npolygons; k++)
			n = std::max(n, s_.polygons[k].first_ring + s_.polygons[k].nrings);
		return n;
	}

	bool
	marked(int cell) const
	{
		return grid_bit(marked_, cell);
	}

	/* The cell's part of the box (grid_block_box), or nullptr where it has none. */
	const Box3 *
	box(int cell)
	{
		if (box_state_[cell] == 0)
		{
			const int i = cell / f_.nb, j = cell % f_.nb;
			box_state_[cell] = grid_block_box(f_, i, i + 1, j, j + 1, &boxes_[cell]) ? 1 : -1;
		}
		return box_state_[cell] > 0 ? &boxes_[cell] : nullptr;
	}

	/* The cap of the cell's whole column (grid_column_box), or nullptr. */
	const GridCap *
	column(int cell)
	{
		if (column_state_[cell] == 0)
		{
			const int i = cell / f_.nb, j = cell % f_.nb;
			Box3 b;
			column_state_[cell] =
				grid_column_box(f_, i, i + 1, j, j + 1, &b) && box_cap(b, &columns_[cell]) ? 1 : -1;
		}
		return column_state_[cell] > 0 ? &columns_[cell] : nullptr;
	}

	/* A cell a group may hold: no edge near its column, and some of the box in it. */
	bool
	usable(int cell)
	{
		return !marked(cell) && box(cell) != nullptr;
	}

	/*
	 * The unit vector over the centre of the cell's rectangle, on the box's
	 * sheet: inside the column by half a cell, where the normalised centre of
	 * the cell's box need not be. False at the sheet's rim.
	 */
	bool
	centre(int cell, Vec3 *out) const
	{
		const int i = cell / f_.nb, j = cell % f_.nb;
		const double a = f_.box.lo[f_.a] + (i + 0.5) * f_.step_a;
		const double b = f_.box.lo[f_.b] + (j + 0.5) * f_.step_b;
		const double c2 = 1.0 - a * a - b * b;
		if (!(c2 > kRasterMinC * kRasterMinC))
			return false;
		const double c = f_.box.lo[f_.c] > 0.0 ? std::sqrt(c2) : -std::sqrt(c2);
		double v[3];
		v[f_.a] = a;
		v[f_.b] = b;
		v[f_.c] = c;
		*out = Vec3{v[0], v[1], v[2]};
		return true;
	}

	/* The cells the box (padded by the margin and the cells' slack) reaches. */
	void
	range_of(const Box3 &b, int *i0, int *i1, int *j0, int *j1) const
	{
		const double pad = kInteriorMargin + 4.0 * kCellSlack;
		cell_range(b.lo[f_.a] - pad, b.hi[f_.a] + pad, f_.box.lo[f_.a], f_.step_a, f_.na, i0, i1);
		cell_range(b.lo[f_.b] - pad, b.hi[f_.b] + pad, f_.box.lo[f_.b], f_.step_b, f_.nb, j0, j1);
	}

	void
	mark_box(const Box3 &b)
	{
		int i0, i1, j0, j1;
		range_of(b, &i0, &i1, &j0, &j1);
		for (int i = i0; i <= i1; i++)
			for (int j = j0; j <= j1; j++)
				set_bit(marked_, i * f_.nb + j);
	}

	/* Mark the cells within the margin of arc a-b; false for an arc nearly half a circle. */
	bool
	mark_edge(const Vec3 &a, const Vec3 &b)
	{
		if (dot(a, b) < kAntipodalDot)
			return false;
		const double c2 = chord2(a, b);
		if (c2 > 2.0)
		{
			test_cells(a, b, 0, f_.na - 1, 0, f_.nb - 1);
			return true;
		}
		int i0, i1, j0, j1;
		range_of(arc_sagitta_box(a, b), &i0, &i1, &j0, &j1);
		if (i1 - i0 >= 2 && j1 - j0 >= 2)
			test_cells(a, b, i0, i1, j0, j1);
		else
			for (int i = i0; i <= i1; i++)
				for (int j = j0; j <= j1; j++)
					set_bit(marked_, i * f_.nb + j);
		return true;
	}

	/* Mark each cell of the range that the arc comes within its cap's radius plus the margin of. */
	void
	test_cells(const Vec3 &a, const Vec3 &b, int i0, int i1, int j0, int j1)
	{
		for (int i = i0; i <= i1; i++)
			for (int j = j0; j <= j1; j++)
			{
				const int cell = i * f_.nb + j;
				if (marked(cell))
					continue;
				const GridCap *c = column(cell);
				if (c == nullptr || !arc_beyond_angle(a, b, c->u, c->rho + kInteriorMargin))
					set_bit(marked_, cell);
			}
	}

	/*
	 * Every meridian meets at a pole, so a stab line from it runs along the
	 * meridian of whatever outside point PostGIS picks, and a ring with a
	 * vertex on that meridian (rings drawn on round longitudes) puts a vertex
	 * on the line: the one point of a group where PostGIS's parity can be off
	 * by design rather than by a 1e-12 chance. Where covers cannot decide the
	 * axis point the box holds, its cells are left to PostGIS.
	 */
	void
	leave_axis_point(InteriorGrid *out)
	{
		double v[3] = {0.0, 0.0, 0.0};
		v[f_.c] = f_.box.lo[f_.c] > 0.0 ? 1.0 : -1.0;
		const Vec3 axis{v[0], v[1], v[2]};
		if (!box_contains(f_.box, axis) || cover_shape_covers(s_, axis) != Cover::uncertain)
			return;
		for (int cell = 0; cell < f_.na * f_.nb; cell++)
		{
			const Box3 *b = box(cell);
			if (b != nullptr && box_contains(*b, axis))
			{
				out->inside[cell / 64] &= ~(uint64_t{1} << (cell % 64));
				out->outside[cell / 64] &= ~(uint64_t{1} << (cell % 64));
			}
		}
	}

	/* The unmarked cells face-connected to start, into cells[]; their count. */
	int
	group_of(int start, bool *seen, int *cells)
	{
		int n = 0;
		cells[n++] = start;
		seen[start] = true;
		for (int k = 0; k < n; k++)
		{
			const int i = cells[k] / f_.nb, j = cells[k] % f_.nb;
			const int next[4][2] = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
			for (const auto &ij : next)
			{
				if (ij[0] < 0 || ij[0] >= f_.na || ij[1] < 0 || ij[1] >= f_.nb)
					continue;
				const int c = ij[0] * f_.nb + ij[1];
				if (!seen[c] && usable(c))
				{
					seen[c] = true;
					cells[n++] = c;
				}
			}
		}
		return n;
	}

	void
	decide_groups(InteriorGrid *out)
	{
		bool seen[kGridCells] = {};
		int cells[kGridCells];
		const int ncells = f_.na * f_.nb;
		for (int start = 0; start < ncells; start++)
		{
			if (seen[start] || !usable(start))
				continue;
			const int n = group_of(start, seen, cells);
			decide_group(cells, n, out);
		}
	}

	/* One point-in-polygon answer for a group, from the first of its cells that gives one. */
	void
	decide_group(const int *cells, int n, InteriorGrid *out)
	{
		for (int t = 0, tried = 0; t < n && tried < kTries; t++)
		{
			Vec3 u;
			if (!centre(cells[t], &u))
				continue;
			tried++;
			uint32_t inside[kKeptPolygons];
			int ninside = 0;
			bool uncertain = false;
			for (uint32_t k = 0; k < s_.npolygons; k++)
			{
				const CoverPolygon &poly = s_.polygons[k];
				if (poly.nrings == 0)
					continue;
				const Cover v =
					polygon_covers(s_.rings + poly.first_ring, poly.nrings, poly.box, poly.caps, u);
				if (v == Cover::inside && ninside < kKeptPolygons)
					inside[ninside++] = k;
				uncertain |= v == Cover::uncertain;
			}
			if (ninside == 0 && uncertain)
				continue;
			for (int m = 0; m < n; m++)
			{
				if (ninside == 0)
				{
					set_bit(out->outside, cells[m]);
					continue;
				}
				const Box3 *bm = box(cells[m]);
				for (int k = 0; k < ninside; k++)
					if (box_inside_polygon_box(*bm, s_.polygons[inside[k]].box))
					{
						set_bit(out->inside, cells[m]);
						break;
					}
			}
			return;
		}
	}
};

} // namespace

bool
interior_grid_by_raster(const CoverShape &s, const GridFrame &f, InteriorGrid *out)
{
	if (box_is_empty(f.box))
		return false;
	Raster r(s, f);
	return r.run(out);
}

} // namespace geoidx
