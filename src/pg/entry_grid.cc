/*
 * The interior grid of a shape entry (interior_grid.h), and which entry kind
 * it makes: SHAPE_GRID, or SHAPE_PLANAR_GRID when PostGIS's planar predicates
 * decide its cells alike (planar_grid.h), or SHAPE when it decides no cell;
 * and the pieces of a large polygon (shape_pieces.h), which make it a
 * _PIECES kind where its payload has room for them (gserialized.cc).
 *
 * The test-only setting geoidx.interior_grid = blocks builds grids as 0.2 did
 * before the raster, so that a test can build an index whose grids are the
 * old ones and check that geoidx_verify, which accepts either, still passes
 * after the rows inserted since have the new ones.
 */
#include "interior_grid.h"
#include "planar_grid.h"
#include "shape_pieces.h"

#include "geoidx.h"

extern "C"
{
#include "utils/guc.h"
}

int geoidx_grid_builder = GEOIDX_GRID_CURRENT;

namespace
{

const struct config_enum_entry builder_names[] = {
	{"current", GEOIDX_GRID_CURRENT, false},
	{"blocks", GEOIDX_GRID_BLOCKS, false},
	{NULL, 0, false},
};

} // namespace

/* Define geoidx.interior_grid; called once from _PG_init. */
void
geoidx_entry_grid_init(void)
{
	DefineCustomEnumVariable(
		"geoidx.interior_grid",
		"For tests only: build shape entries' interior grids as an earlier version did.",
		"current builds them as this version does; blocks as 0.2 did before the raster "
		"classifier. Both are sound; geoidx_verify accepts either.",
		&geoidx_grid_builder, GEOIDX_GRID_CURRENT, builder_names, PGC_SUSET,
		GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL, NULL, NULL, NULL);
}

/*
 * The grid of the prepared value s over the entry's (packed, unpacked) box,
 * and the entry kind it makes; SHAPE, with no grid, for s NULL (no polygon).
 */
int
geoidx_build_entry_grid(const geoidx::CoverShape *s, const GeoidxLeafEntry *entry,
						GeoidxGridBuilder builder, geoidx::InteriorGrid *grid)
{
	if (s == NULL)
		return GEOIDX_KIND_SHAPE;
	const geoidx::Box3 box = GeoidxEntryShapeBox(entry);
	const geoidx::GridFrame frame = geoidx::grid_frame(box);
	if (geoidx::box_is_empty(box))
		return GEOIDX_KIND_SHAPE;
	*grid = builder == GEOIDX_GRID_BLOCKS ? geoidx::interior_grid_by_blocks(*s, frame)
										  : geoidx::interior_grid(*s, box);
	if (geoidx::grid_is_empty(*grid))
		return GEOIDX_KIND_SHAPE;
	return geoidx::planar_grid_agrees(*s, *grid, frame) ? GEOIDX_KIND_SHAPE_PLANAR_GRID
														: GEOIDX_KIND_SHAPE_GRID;
}

/*
 * The pieces of the prepared polygon s, whose entry has the grid grid, into
 * out (kMaxPieces of them); how many (0: the entry keeps its one box and
 * grid). The blocks builder stands for 0.2 before the raster, which cut no
 * pieces.
 */
int
geoidx_build_entry_pieces(const geoidx::CoverShape *s, const GeoidxLeafEntry *entry,
						  GeoidxGridBuilder builder, const geoidx::InteriorGrid &grid,
						  geoidx::StoredPiece *out)
{
	if (builder == GEOIDX_GRID_BLOCKS)
		return 0;
	return geoidx::store_pieces(*s, GeoidxEntryShapeBox(entry), grid, out);
}
