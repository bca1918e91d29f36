#include "interior_grid.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace geoidx
{

GridFrame
grid_frame(const Box3 &box)
{
	GridFrame f;
	f.box = box;
	double e[3], m[3];
	for (int i = 0; i < 3; i++)
	{
		e[i] = std::max(0.0, box.hi[i] - box.lo[i]);
		m[i] = std::fabs(box.lo[i] + box.hi[i]);
	}
	/* c: the axis nearest the box's direction, over which the sphere is a graph of a and b */
	f.c = 0;
	for (int i = 1; i < 3; i++)
		if (m[i] > m[f.c])
			f.c = i;
	f.a = (f.c + 1) % 3;
	f.b = (f.c + 2) % 3;
	if (e[f.b] > e[f.a])
		std::swap(f.a, f.b);
	const double ea = e[f.a], eb = e[f.b];
	f.na = 1;
	if (ea > 0.0)
	{
		/* cells about square: na / nb follows ea / eb */
		const double ratio = eb > 0.0 ? ea / eb : static_cast<double>(kGridCells);
		const double want = std::sqrt(static_cast<double>(kGridCells) * ratio);
		f.na = static_cast<int>(std::clamp(std::lround(want), 1L, static_cast<long>(kGridCells)));
	}
	f.nb = std::max(1, kGridCells / f.na);
	f.step_a = ea / f.na;
	f.step_b = eb / f.nb;
	return f;
}

namespace
{

int
cell_index(double c, double lo, double step, int n)
{
	if (!(step > 0.0))
		return 0;
	const double q = (c - lo) / step;
	return std::clamp(static_cast<int>(q), 0, n - 1);
}

} // namespace

int
grid_cell(const GridFrame &f, const Vec3 &v)
{
	if (!box_contains(f.box, v))
		return -1;
	const int i = cell_index(coord(v, f.a), f.box.lo[f.a], f.step_a, f.na);
	const int j = cell_index(coord(v, f.b), f.box.lo[f.b], f.step_b, f.nb);
	return i * f.nb + j;
}

namespace
{

/* The box of cells [i0, i1) x [j0, j1), widened by the rounding of finding a cell. */
Box3
block_box(const GridFrame &f, int i0, int i1, int j0, int j1)
{
	Box3 b = f.box;
	b.lo[f.a] = f.box.lo[f.a] + i0 * f.step_a;
	b.hi[f.a] = i1 == f.na ? f.box.hi[f.a] : f.box.lo[f.a] + i1 * f.step_a;
	b.lo[f.b] = f.box.lo[f.b] + j0 * f.step_b;
	b.hi[f.b] = j1 == f.nb ? f.box.hi[f.b] : f.box.lo[f.b] + j1 * f.step_b;
	for (int k = 0; k < 3; k++)
	{
		b.lo[k] -= kCellSlack;
		b.hi[k] += kCellSlack;
	}
	return b;
}

/*
 * Narrow b's c range to where unit vectors over its a-b rectangle lie:
 * c^2 = 1 - a^2 - b^2 on the sphere's sheet on the box's side of c = 0
 * (the slack holds a vector's rounding off the sphere). False if the box
 * reaches both sheets.
 */
bool
narrow_to_sheet(const GridFrame &f, Box3 *b)
{
	double s_min = 0.0, s_max = 0.0;
	for (int k : {f.a, f.b})
	{
		const double lo = b->lo[k], hi = b->hi[k];
		const double near = lo > 0.0 ? lo : (hi < 0.0 ? -hi : 0.0);
		s_min += near * near;
		s_max += std::max(lo * lo, hi * hi);
	}
	const double c_lo = std::sqrt(std::max(0.0, 1.0 - s_max - 1e-12)) - kCellSlack;
	const double c_hi = std::sqrt(std::min(1.0, std::max(0.0, 1.0 - s_min + 1e-12))) + kCellSlack;
	if (b->lo[f.c] > 0.0)
	{
		b->lo[f.c] = std::max(b->lo[f.c], c_lo);
		b->hi[f.c] = std::min(b->hi[f.c], c_hi);
	}
	else if (b->hi[f.c] < 0.0)
	{
		b->lo[f.c] = std::max(b->lo[f.c], -c_hi);
		b->hi[f.c] = std::min(b->hi[f.c], -c_lo);
	}
	else
		return false;
	return b->lo[f.c] <= b->hi[f.c];
}

} // namespace

bool
grid_block_box(const GridFrame &f, int i0, int i1, int j0, int j1, Box3 *out)
{
	*out = block_box(f, i0, i1, j0, j1);
	return narrow_to_sheet(f, out);
}

bool
grid_column_box(const GridFrame &f, int i0, int i1, int j0, int j1, Box3 *out)
{
	*out = block_box(f, i0, i1, j0, j1);
	/* the whole sheet on the box's side over the rectangle, not only the box's part of it */
	if (f.box.lo[f.c] > 0.0)
	{
		out->lo[f.c] = std::numeric_limits<double>::min();
		out->hi[f.c] = 1.0;
	}
	else if (f.box.hi[f.c] < 0.0)
	{
		out->lo[f.c] = -1.0;
		out->hi[f.c] = -std::numeric_limits<double>::min();
	}
	else
		return false;
	return narrow_to_sheet(f, out);
}

bool
box_cap(const Box3 &b, GridCap *out)
{
	out->box = b;
	const Vec3 m{(b.lo[0] + b.hi[0]) / 2, (b.lo[1] + b.hi[1]) / 2, (b.lo[2] + b.hi[2]) / 2};
	const double norm = std::sqrt(dot(m, m));
	if (!(norm > 0.5))
		return false;
	out->u = Vec3{m.x / norm, m.y / norm, m.z / norm};
	double h2 = 0.0;
	for (int k = 0; k < 3; k++)
		h2 += (b.hi[k] - b.lo[k]) * (b.hi[k] - b.lo[k]);
	/* every unit vector p in b: |p - u| <= |p - m| + |m - u| */
	out->r = 0.5 * std::sqrt(h2) + std::fabs(1.0 - norm) + 1e-15;
	if (out->r >= 1.0)
		return false;
	out->rho = 2.0 * std::asin(out->r / 2.0) * (1.0 + 1e-12) + 1e-15;
	return true;
}

bool
grid_block_cap(const GridFrame &f, int i0, int i1, int j0, int j1, GridCap *out)
{
	Box3 b;
	return grid_block_box(f, i0, i1, j0, j1, &b) && box_cap(b, out);
}

bool
box_inside_polygon_box(const Box3 &inner, const Box3 &box)
{
	for (int i = 0; i < 3; i++)
	{
		/* a face at +-1 (the pole rule's) has nothing beyond it */
		if (box.lo[i] != -1.0 && inner.lo[i] < box.lo[i] + kInteriorMargin)
			return false;
		if (box.hi[i] != 1.0 && inner.hi[i] > box.hi[i] - kInteriorMargin)
			return false;
	}
	return true;
}

namespace
{

/* Whether the cube of half-side r around u lies inside the polygon's box by more than the margin.
 */
bool
cube_inside_box(const Vec3 &u, double r, const Box3 &box)
{
	const Box3 cube{{u.x - r, u.y - r, u.z - r}, {u.x + r, u.y + r, u.z + r}};
	return box_inside_polygon_box(cube, box);
}

struct Classifier
{
	const CoverShape &s;
	const GridFrame &f;
	InteriorGrid out;

	void
	set(uint64_t *bits, int i0, int i1, int j0, int j1)
	{
		for (int i = i0; i < i1; i++)
			for (int j = j0; j < j1; j++)
			{
				const int c = i * f.nb + j;
				bits[c / 64] |= uint64_t{1} << (c % 64);
			}
	}

	/* inside: all of the block is covered; outside: none; uncertain: look closer. */
	Cover
	judge(int i0, int i1, int j0, int j1) const
	{
		GridCap cap;
		if (!grid_block_cap(f, i0, i1, j0, j1, &cap))
			return Cover::uncertain;
		const Vec3 &u = cap.u;
		const double reach = cap.rho + kInteriorMargin;
		if (!cover_shape_boundary_beyond(s, u, reach))
			return Cover::uncertain;
		/* the antipode: far from the whole box (every edge is in it) needs no walk */
		const Vec3 anti{-u.x, -u.y, -u.z};
		const double reach_chord = 2.0 * std::sin(std::min(reach, M_PI) / 2.0);
		if (!(min_chord2(f.box, anti) > reach_chord * reach_chord * (1.0 + 1e-9)) &&
			!cover_shape_boundary_beyond(s, anti, reach))
			return Cover::uncertain;
		bool all_outside = true;
		for (uint32_t k = 0; k < s.npolygons; k++)
		{
			const CoverPolygon &poly = s.polygons[k];
			if (poly.nrings == 0)
				continue;
			const Cover c =
				polygon_covers(s.rings + poly.first_ring, poly.nrings, poly.box, poly.caps, u);
			if (c == Cover::inside && cube_inside_box(u, cap.r, poly.box))
				return Cover::inside;
			all_outside &= c == Cover::outside;
		}
		/* as cover_shape_covers: outside when no polygon covers, and none is uncertain */
		return all_outside ? Cover::outside : Cover::uncertain;
	}

	void
	classify(int i0, int i1, int j0, int j1)
	{
		const Cover c = judge(i0, i1, j0, j1);
		if (c != Cover::uncertain)
		{
			set(c == Cover::inside ? out.inside : out.outside, i0, i1, j0, j1);
			return;
		}
		if (i1 - i0 == 1 && j1 - j0 == 1)
			return;
		if (i1 - i0 >= j1 - j0)
		{
			const int im = (i0 + i1) / 2;
			classify(i0, im, j0, j1);
			classify(im, i1, j0, j1);
		}
		else
		{
			const int jm = (j0 + j1) / 2;
			classify(i0, i1, j0, jm);
			classify(i0, i1, jm, j1);
		}
	}
};

} // namespace

InteriorGrid
interior_grid_by_blocks(const CoverShape &s, const GridFrame &f)
{
	Classifier c{s, f, InteriorGrid{{0, 0}, {0, 0}}};
	if (!box_is_empty(f.box))
		c.classify(0, f.na, 0, f.nb);
	return c.out;
}

InteriorGrid
interior_grid(const CoverShape &s, const Box3 &box)
{
	const GridFrame f = grid_frame(box);
	InteriorGrid g;
	if (box_is_empty(box))
		return InteriorGrid{{0, 0}, {0, 0}};
	if (interior_grid_by_raster(s, f, &g))
		return g;
	return interior_grid_by_blocks(s, f);
}

} // namespace geoidx
