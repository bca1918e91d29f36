/*
 * The pieces of a large polygonal shape: up to kMaxPieces boxes of unit
 * vectors that together hold every point of the shape (its edges and its
 * inside), each smaller than the shape's box where the shape does not fill it
 * (a coast, a diagonal band, an archipelago, a ring). An index can keep a
 * shape as one entry per piece, so that a search prunes by the piece instead
 * of the whole box, and give each piece its own interior grid, so that a
 * country's inside is decided at a piece's resolution.
 *
 * How: the interior grid over the shape's box (interior_grid.h) says which
 * cells hold no point of the shape (outside: no edge comes near, and PostGIS
 * covers none of their points). The frame's na x nb cells are cut into at most
 * kMaxPieces blocks; in each block the cells that are not outside span a
 * rectangle of cells, and that rectangle's column box (every unit vector of
 * the box's sheet over it) clipped to the shape's box is the block's piece.
 * Every point of the shape lies in the box, so in some cell of the frame
 * (grid_cell), which is then not outside, so in its block's rectangle.
 */
#pragma once

#include "covers_shape.h"
#include "interior_grid.h"
#include "packed_box.h"
#include "pg_free.h"
#include "region.h"
#include "sphere_bounds.h"

namespace geoidx
{

constexpr int kMaxPieces = 16;

/*
 * A shape is split when it has more vertices than this: below it one entry and
 * its prepared polygon serve it well (an NYC neighbourhood has ~540 vertices).
 */
constexpr uint64_t kPieceMinVertices = 4096;

struct ShapePieces
{
	int n;
	Box3 box[kMaxPieces];
};

/*
 * The pieces of a shape whose (unpacked) box is box and whose interior grid
 * over that box is grid. False when the frame gives no column boxes (the box
 * reaches both sheets of its axis: a shape around a pole or larger than a
 * hemisphere), or when one piece would be all of it: the shape stays one
 * entry.
 */
bool shape_pieces(const Box3 &box, const InteriorGrid &grid, ShapePieces *out);

/*
 * What the pieces say of a whole shape against a region key, beyond what its
 * box says. A piece holds no point of the shape for certain (a cell may be
 * undecided and empty), so the pieces only ever say no to "some point of the
 * shape is in the region" and yes to "every point is":
 *   - within, dist_lt, dist_le, box_meets (some point): outside when every
 *     piece is outside the region;
 *   - outside, dist_gt, dist_ge (every point beyond): inside when every piece
 *     is inside the region;
 *   - maybe otherwise.
 */
Verdict pieces_classify(const RegionTest &t, const ShapePieces &p);

/*
 * ST_Covers(shape, v) from the pieces and their interior grids (grid[i] is
 * interior_grid of the shape over p.box[i]; an index keeps p.box[i] packed
 * outwards and builds the grid over its unpacked box): outside when v
 * lies in no piece; else what the grid of a piece holding v decides (a cell
 * says it of the whole shape), uncertain where none decides.
 */
Cover pieces_covers(const ShapePieces &p, const InteriorGrid *grid, const Vec3 &v);

/*
 * A piece as an index entry keeps it: its box packed outwards (packed_box.h),
 * and its interior grid over that box unpacked, which is the box a scan sees.
 */
struct StoredPiece
{
	PackedBox box;
	InteriorGrid grid;
};

static_assert(sizeof(StoredPiece) == 48, "a stored piece is 48 bytes, with no padding");

/* How many vertices the rings of a prepared shape have. */
uint64_t cover_shape_vertices(const CoverShape &s);

/*
 * The pieces an index entry keeps of s, whose entry has the (unpacked) box
 * box and the interior grid grid over it: none (0) when s has fewer than
 * kPieceMinVertices vertices or shape_pieces gives none. Each piece's grid is
 * interior_grid over the piece's box as the scan sees it (unpacked).
 */
int store_pieces(const CoverShape &s, const Box3 &box, const InteriorGrid &grid,
				 StoredPiece out[kMaxPieces]);

/* The pieces and their grids as a scan uses them (pieces_covers), from n <= kMaxPieces stored ones.
 */
void load_pieces(const StoredPiece *in, int n, ShapePieces *out, InteriorGrid *grids);

} // namespace geoidx
