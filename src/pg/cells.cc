/*
 * geoidx_cell and geoidx_covering_cells: the index's own cells as a shard or
 * partition key (src/core/cells.h). A table partitioned (or distributed) on
 * geoidx_cell(pos, level) is reached by a radius query through
 * cell = ANY (geoidx_covering_cells(c, r, level)), which the planner folds to
 * a constant array and prunes on.
 */
#include "cells.h"

#include "geoidx.h"

extern "C"
{
#include "catalog/pg_type_d.h"
#include "utils/array.h"
}

namespace
{

/* The most cells a covering may name: a larger array is a level too fine for the circle. */
constexpr size_t kMaxCoveringCells = 100000;

int
checked_level(int32 level, const char *function)
{
	if (level < 0 || level > geoidx::kMaxCellLevel)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("%s: level must be between 0 and %d, got %d", function,
							   geoidx::kMaxCellLevel, level)));
	return (int) level;
}

} // namespace

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_cell);
	PG_FUNCTION_INFO_V1(geoidx_covering_cells);
}

/*
 * geoidx_cell(point, level): the point's cell, the first 3 + 2 * level bits
 * of its key in the index's sort order; NULL for an EMPTY point. A shape has
 * no one cell (it may span many), so it is refused.
 */
extern "C" Datum
geoidx_cell(PG_FUNCTION_ARGS)
{
	int level = checked_level(PG_GETARG_INT32(1), "geoidx_cell");
	GeoidxPoint p;
	geoidx_decode_point(PG_GETARG_DATUM(0), "the point of geoidx_cell", &p);
	if (p.empty)
		PG_RETURN_NULL();
	geoidx::LonLat ll;
	geoidx::Vec3 v;
	geoidx_point_unit(&p, "the point of geoidx_cell", &ll, &v);
	PG_RETURN_INT64((int64) geoidx::cell_of(v, level));
}

/*
 * geoidx_covering_cells(centre, metres, level, use_spheroid): the cells at
 * level of every point within metres of centre, ascending; NULL for an EMPTY
 * centre.
 */
extern "C" Datum
geoidx_covering_cells(PG_FUNCTION_ARGS)
{
	double metres = PG_GETARG_FLOAT8(1);
	int level = checked_level(PG_GETARG_INT32(2), "geoidx_covering_cells");
	bool use_spheroid = PG_GETARG_BOOL(3);
	geoidx_check_radius(metres);
	GeoidxPoint centre;
	geoidx::LonLat ll;
	if (!geoidx_read_point(PG_GETARG_DATUM(0), "the centre of geoidx_covering_cells", &centre, &ll))
		PG_RETURN_NULL();
	uint64 *cells = (uint64 *) palloc(sizeof(uint64) * kMaxCoveringCells);
	size_t n = 0;
	if (!geoidx::covering_cells(geoidx::geographic_point(ll), metres, use_spheroid, level, cells,
								kMaxCoveringCells, &n))
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("a circle of %g m touches more than %zu cells at level %d", metres,
							   kMaxCoveringCells, level),
						errhint("Use a lower level for a circle this large.")));
	Datum *elems = (Datum *) palloc(sizeof(Datum) * Max(n, (size_t) 1));
	for (size_t i = 0; i < n; i++)
		elems[i] = Int64GetDatum((int64) cells[i]);
	ArrayType *a =
		construct_array(elems, (int) n, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
	PG_RETURN_ARRAYTYPE_P(a);
}
