/*
 * The keys of the shape operators: col ~@> g (geoidx_covers(col, g)), col <@~ g
 * (geoidx_coveredby) and col ~&& g (geoidx_intersects), the index conditions
 * the planner support of those functions gives (shape_functions.cc).
 *
 * Each is exact as a condition: what the index cannot decide goes back with
 * xs_recheck, and the executor's recheck is the operator, which is the
 * function. The index decides:
 *   - by g's candidate disc (the cap of g's box, plus a metre): an entry
 *     whose point or box lies outside it fails every one of the three;
 *   - a shape entry with an interior grid, for a point g (covers, intersects):
 *     a cell wholly inside the shape holds, wholly outside fails (a point
 *     ~6 cm or more from every edge, so PostGIS's 1e-5 m of intersects does
 *     not reach it either);
 *   - a point entry, for coveredby a polygonal g: the prepared polygon, made
 *     once per rescan in the scan's memory, covers it or not.
 *   - a planar grid entry (GEOIDX_KIND_SHAPE_PLANAR_GRID), for the planar
 *     operators ##@> ##~@> ##&& (PostGIS's ST_Contains, ST_Covers and
 *     ST_Intersects, as rewrite.cc puts them) and a point g of SRID 4326 in
 *     range: its cells as for covers, outside its box fails;
 * The other keys of the scan are judged as everywhere else: a point exactly,
 * a shape by its box, a candidate disc by its box alone.
 */
#include "covers_shape.h"
#include "geodesy.h"
#include "interior_grid.h"
#include "serialized_shape.h"

#include "geoidx.h"

extern "C"
{
#include "access/detoast.h"
#include "funcapi.h"
}

namespace
{

/* How many shape entries scans decided, and how, in this backend. */
struct DecisionCounts
{
	int64 box_outside; /* the box alone ruled it out */
	int64 inside, outside, recheck;
	int64 by_pieces; /* of inside and outside, decided by a large shape's pieces */
};
DecisionCounts decisions;

/* The argument name of an operator's g in its function's error messages. */
const char *
probe_what(int strategy)
{
	switch (strategy)
	{
		case GEOIDX_STRATEGY_COVERS:
			return "argument 2 of geoidx_covers";
		case GEOIDX_STRATEGY_COVEREDBY:
			return "argument 2 of geoidx_coveredby";
		case GEOIDX_STRATEGY_PLANAR_CONTAINS:
			return "argument 2 of geoidx_planar_contains";
		case GEOIDX_STRATEGY_PLANAR_COVERS:
			return "argument 2 of geoidx_planar_covers";
		case GEOIDX_STRATEGY_PLANAR_INTERSECTS:
			return "argument 2 of geoidx_planar_intersects";
		default:
			return "argument 2 of geoidx_intersects";
	}
}

bool
is_planar(int strategy)
{
	return strategy >= GEOIDX_STRATEGY_PLANAR_CONTAINS &&
		   strategy <= GEOIDX_STRATEGY_PLANAR_INTERSECTS;
}

/*
 * Whether a planar grid may decide PostGIS's planar predicate of the point g:
 * its SRID is 4326 (with a zone of SRID 4326 PostGIS answers, with any other
 * it raises an error, which only PostGIS's call gives), and its coordinates
 * are the ones the grid's vector of it stands for (in range, unmoved).
 */
bool
planar_probe(Datum g, const GeoidxPoint &p)
{
	geoidx::LonLat ll;
	if (geoidx::normalize_like_geography(p.x, p.y, &ll) != geoidx::CoordCheck::in_range ||
		ll.lon != p.x || ll.lat != p.y)
		return false;
	struct varlena *v = (struct varlena *) DatumGetPointer(g);
	struct varlena *copy = NULL;
	if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
		v = copy = detoast_attr(v);
	geoidx::SerializedHeader h;
	geoidx::WalkError err;
	bool ok = geoidx::read_serialized_header((const uint8 *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v),
											 &h, &err) &&
			  h.srid == 4326 && h.type == geoidx::kPointType;
	if (copy)
		pfree(copy);
	return ok;
}

/*
 * Whether a shape's pieces may decide a region of the scan (pi: its probe): a
 * radius or ring key, a candidate disc (scan_pieces.cc), or the candidate
 * disc of a geodesic shape operator's g, which holds g; not a box key's
 * region or a planar operator's.
 */
bool
pieces_apply(GeoidxScanOpaque so, int pi)
{
	if (pi == GEOIDX_REGION_PLAIN || pi == GEOIDX_REGION_CANDIDATE)
		return true;
	if (pi < 0)
		return false;
	const GeoidxProbe &probe = so->probes[pi];
	return !probe.box && !is_planar(probe.strategy);
}

} // namespace

/* Add a key of a shape operator to the scan: its disc to the regions, its probe to the probes. */
void
geoidx_probe_key(GeoidxScanOpaque so, ScanKey key)
{
	const char *what = probe_what(key->sk_strategy);
	GeoidxPoint p;
	geoidx_decode_any(key->sk_argument, what, &p);
	if (p.empty)
	{
		/* PostGIS: nothing covers, is covered by or intersects an EMPTY geometry */
		so->no_match = true;
		return;
	}
	geoidx::LonLat centre;
	double radius;
	geoidx_candidate_disc(&p, what, 0.0, &centre, &radius);
	GeoidxProbe *probe = &so->probes[so->nprobes];
	probe->strategy = key->sk_strategy;
	probe->point = !p.shape;
	probe->v = probe->point ? geoidx::covers_vector(p.x, p.y) : geoidx::Vec3{0.0, 0.0, 0.0};
	probe->planar =
		is_planar(key->sk_strategy) && probe->point && planar_probe(key->sk_argument, p);
	probe->polygon = NULL;
	probe->box = false;
	if (key->sk_strategy == GEOIDX_STRATEGY_COVEREDBY && p.shape)
		probe->polygon = geoidx_prepare_cover_shape(key->sk_argument, so->cxt);
	so->region_probe[so->nregions] = so->nprobes++;
	so->regions[so->nregions++] = geoidx::region_test(geoidx::geographic_point(centre), radius,
													  false, geoidx::RegionMode::within);
	so->shapes_exact = false;
}

/* Decide an entry against every spatial key of a scan that has a shape operator's. */
GeoidxEntryVerdict
geoidx_probe_entry(GeoidxScanOpaque so, Page page, const GeoidxLeafEntry *e, bool *by_box)
{
	*by_box = true;
	switch (GeoidxEntryKind(e))
	{
		case GEOIDX_KIND_NULL:
			return GEOIDX_ENTRY_REJECT;
		case GEOIDX_KIND_EMPTY:
			return geoidx::spatial_empty_matches(so->keys) ? GEOIDX_ENTRY_MATCH
														   : GEOIDX_ENTRY_REJECT;
		default:
			break;
	}
	const bool shape = GeoidxEntryIsShape(e);
	geoidx::Box3 box{};
	geoidx::LonLat ll{0.0, 0.0};
	if (shape)
		box = GeoidxEntryShapeBox(e);
	else
		ll = geoidx::stored_lonlat(e->x, e->y);
	bool grid_read = false, has_grid = false;
	geoidx::InteriorGrid grid;
	geoidx::GridFrame frame;
	GeoidxEntryPieces pieces;
	pieces.read = false;
	bool all = true;
	for (int i = 0; i < so->nregions; i++)
	{
		const geoidx::RegionTest &t = so->regions[i];
		const int pi = so->region_probe[i];
		if (!shape)
		{
			if (!geoidx::point_in_region(t, ll))
				return GEOIDX_ENTRY_REJECT;
		}
		else
		{
			geoidx::Verdict v = geoidx::classify_region(t, box);
			/* geodesic keys only (scan_pieces.cc): every point of the shape is in some piece */
			if (v == geoidx::Verdict::maybe && pieces_apply(so, pi) &&
				geoidx_pieces_of(&pieces, page, e))
			{
				v = geoidx::pieces_classify(t, pieces.p);
				if (v == geoidx::Verdict::outside)
				{
					geoidx_count_piece_decision();
					*by_box = false;
				}
			}
			if (v == geoidx::Verdict::outside)
				return GEOIDX_ENTRY_REJECT;
			/* a candidate disc asks only that the box reach into it */
			if (pi == GEOIDX_REGION_CANDIDATE ||
				(pi == GEOIDX_REGION_PLAIN && v == geoidx::Verdict::inside))
				continue;
		}
		if (pi < 0)
		{
			if (shape)
				all = false;
			continue;
		}
		const GeoidxProbe &probe = so->probes[pi];
		if (probe.box)
		{
			/* a point exactly as PostGIS compares boxes; a shape's raw box is in the heap only */
			if (shape)
				all = false;
			else if (!geoidx::point_box_holds(probe.box_test, e->x, e->y))
			{
				*by_box = false;
				return GEOIDX_ENTRY_REJECT;
			}
			continue;
		}
		geoidx::Cover c = geoidx::Cover::uncertain;
		/* a planar operator's g only where the grid holds for straight edges too */
		const bool grid_decides =
			!is_planar(probe.strategy) || (probe.planar && GeoidxEntryHasPlanarGrid(e));
		if (shape && probe.point && probe.strategy != GEOIDX_STRATEGY_COVEREDBY && grid_decides)
		{
			if (!grid_read)
			{
				grid_read = true;
				has_grid = geoidx_entry_grid(page, e, &grid);
				if (has_grid)
					frame = geoidx::grid_frame(box);
			}
			/*
			 * The packed box lies a grid step (~6 m) beyond the shape: 1e-5 m
			 * cannot reach out; and it holds the shape's degree rectangle
			 * (shape_bounds.h), so no planar answer lies outside it either.
			 */
			if (!geoidx::box_contains(box, probe.v))
				c = geoidx::Cover::outside;
			else if (has_grid)
				c = geoidx::grid_covers(grid, frame, probe.v);
			if (c == geoidx::Cover::uncertain && !is_planar(probe.strategy) &&
				geoidx_pieces_of(&pieces, page, e))
			{
				c = geoidx::pieces_covers(pieces.p, pieces.grids, probe.v);
				if (c != geoidx::Cover::uncertain)
					geoidx_count_piece_decision();
			}
		}
		else if (!shape && probe.polygon != NULL)
			c = geoidx::cover_shape_covers(*probe.polygon, geoidx::covers_vector(e->x, e->y));
		if (c == geoidx::Cover::outside)
		{
			*by_box = false;
			return GEOIDX_ENTRY_REJECT;
		}
		if (c == geoidx::Cover::uncertain)
			all = false;
	}
	return all ? GEOIDX_ENTRY_MATCH : GEOIDX_ENTRY_RECHECK;
}

/* Count a shape entry that its pieces decided where its box and grid did not. */
void
geoidx_count_piece_decision(void)
{
	decisions.by_pieces++;
}

/* Count how a scan decided a shape entry (points are always decided). */
void
geoidx_count_decision(GeoidxEntryVerdict v, bool shape, bool by_box)
{
	if (!shape)
		return;
	if (v == GEOIDX_ENTRY_REJECT && by_box)
		decisions.box_outside++;
	else if (v == GEOIDX_ENTRY_MATCH)
		decisions.inside++;
	else if (v == GEOIDX_ENTRY_REJECT)
		decisions.outside++;
	else
		decisions.recheck++;
}

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_shape_decisions);
}

/*
 * geoidx_shape_decisions(): how many shape entries this backend's scans,
 * since it started, ruled out by their box alone; of the others, how many
 * they accepted and rejected from the index (an interior grid, a box inside
 * the region, a prepared polygon), and how many went to the heap for the
 * exact test; and of those decided, how many by a large shape's pieces.
 */
extern "C" Datum
geoidx_shape_decisions(PG_FUNCTION_ARGS)
{
	TupleDesc desc;
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "geoidx_shape_decisions: a composite result type is needed");
	Datum values[5] = {Int64GetDatum(decisions.box_outside), Int64GetDatum(decisions.inside),
					   Int64GetDatum(decisions.outside), Int64GetDatum(decisions.recheck),
					   Int64GetDatum(decisions.by_pieces)};
	bool nulls[5] = {false, false, false, false, false};
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
