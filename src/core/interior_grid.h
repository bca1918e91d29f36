/*
 * A shape entry's interior summary: which cells of a grid over its box lie
 * wholly inside the shape, as PostGIS geography's ST_Covers answers it, so
 * that a scan accepts a point well inside a zone from the index alone, without
 * reading the zone's geometry.
 *
 * The grid is laid over the entry's unpacked box (what the scan sees, so that
 * both sides compute the same cells from the same bits): of the two axes other
 * than the one nearest the box's direction (c), over which the sphere is a
 * graph, the box is cut into na x nb <= 128 cells, each spanning c whole. A
 * cell is interior when every unit vector in it (widened by kCellSlack, the
 * rounding of finding a point's cell) is covered:
 *   - the cell's unit vectors lie where c^2 = 1 - a^2 - b^2 over its
 *     rectangle, a box that lies in a cap around u, its centre on the sphere;
 *   - no edge of the shape comes within the cap's radius plus kInteriorMargin
 *     of u, nor of -u (PostGIS's crossing rule can misjudge a touch at the
 *     point's antipode), so PostGIS's stab-line parity is the same all over it;
 *   - some polygon covers u (covers_shape.h decides it, away from rounding) and
 *     the cap lies inside that polygon's box by more than its slack, since
 *     PostGIS tests that box first.
 * Cells are classified in blocks, halving the longer side, so a block far from
 * every edge costs one test.
 */
#pragma once

#include <cstdint>

#include "covers_shape.h"
#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

/* Cell i * nb + j is bit (i * nb + j) % 64 of word (i * nb + j) / 64. */
struct InteriorGrid
{
	uint64_t inside[2];  /* every unit vector of the cell is covered */
	uint64_t outside[2]; /* none is */
};

constexpr int kGridCells = 128;
constexpr double kCellSlack = 1e-12;
constexpr double kInteriorMargin = 1e-8;

/* The cells of a box: axes a and b cut into na and nb equal parts. */
struct GridFrame
{
	Box3 box;
	int a, b, c; /* c: the axis the sphere is a graph over, a the longer of the others */
	int na, nb;
	double step_a, step_b;
};

GridFrame grid_frame(const Box3 &box);

/* The cell holding v, or -1 when v is outside the box. */
int grid_cell(const GridFrame &f, const Vec3 &v);

/*
 * The box holding every unit vector of cells [i0, i1) x [j0, j1) (widened by
 * kCellSlack), narrowed to the sphere's sheet over them; false when it reaches
 * both sheets (no such box says anything).
 */
bool grid_block_box(const GridFrame &f, int i0, int i1, int j0, int j1, Box3 *out);

/* A cap around the unit vectors of some cells: its centre u, chord radius r, angle rho. */
struct GridCap
{
	Box3 box; /* grid_block_box of the cells */
	Vec3 u;
	double r;
	double rho;
};

/* The cap of a box of unit vectors; false when no cap short of a hemisphere holds it. */
bool box_cap(const Box3 &b, GridCap *out);

/* The cap of cells [i0, i1) x [j0, j1) (grid_block_box's box); false as box_cap. */
bool grid_block_cap(const GridFrame &f, int i0, int i1, int j0, int j1, GridCap *out);

/*
 * The box of every unit vector on the box's sheet over the cells' rectangle
 * in a and b, whatever its c (the column above and below the box's part);
 * false when there is none, or the box reaches both sheets.
 */
bool grid_column_box(const GridFrame &f, int i0, int i1, int j0, int j1, Box3 *out);

/*
 * Whether inner lies inside a polygon's box by more than kInteriorMargin
 * (PostGIS tests its own, float4, box first); a face at +-1 has nothing beyond.
 */
bool box_inside_polygon_box(const Box3 &inner, const Box3 &box);

/*
 * The cells that lie wholly inside s, whose (unpacked) box is box: by the
 * raster below where it applies, else by blocks. Either answer is sound; they
 * may decide different cells.
 */
InteriorGrid interior_grid(const CoverShape &s, const Box3 &box);

/*
 * By blocks: each block (the whole box first, halved while uncertain) is
 * judged by the distance from its cap's centre to every edge and one
 * point-in-polygon test, so a block near an edge costs a walk of the shape
 * at every level it is split.
 */
InteriorGrid interior_grid_by_blocks(const CoverShape &s, const GridFrame &f);

/*
 * By raster (interior_grid_raster.cc): every edge marks the cells its padded
 * box reaches (a long edge tests the cells of its box one by one), and each
 * face-connected group of unmarked cells takes one point-in-polygon answer,
 * since no edge separates its points. One pass over the edges instead of one
 * per block. It applies where the box keeps its points' antipodes far from
 * every edge (|c| > kRasterMinC over the box) and no edge is nearly half a
 * circle; false elsewhere.
 */
bool interior_grid_by_raster(const CoverShape &s, const GridFrame &f, InteriorGrid *out);

constexpr double kRasterMinC = 0.01;

inline bool
grid_is_empty(const InteriorGrid &g)
{
	return (g.inside[0] | g.inside[1] | g.outside[0] | g.outside[1]) == 0;
}

inline bool
grid_bit(const uint64_t *bits, int cell)
{
	return cell >= 0 && ((bits[cell / 64] >> (cell % 64)) & 1u) != 0;
}

/*
 * What the grid says of ST_Covers(s, v): inside or outside where v's cell is
 * decided, uncertain where the cell meets an edge (v outside the box: outside).
 */
inline Cover
grid_covers(const InteriorGrid &g, const GridFrame &f, const Vec3 &v)
{
	const int cell = grid_cell(f, v);
	if (cell < 0)
		return Cover::outside;
	if (grid_bit(g.inside, cell))
		return Cover::inside;
	return grid_bit(g.outside, cell) ? Cover::outside : Cover::uncertain;
}

} // namespace geoidx
