/*
 * The access method handler: what geoidx can do, its options, its costs.
 */
#include "geoidx.h"

extern "C"
{
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

	PG_MODULE_MAGIC;

	PG_FUNCTION_INFO_V1(geoidx_handler);
}

#include <type_traits>

static_assert(std::is_trivially_destructible_v<GeoidxOptions>,
			  "reloptions are palloc'd by build_reloptions and never destroyed");

namespace
{

relopt_kind geoidx_relopt_kind;

/* Parse the reloptions (fillfactor). */
bytea *
geoidx_options(Datum reloptions, bool validate)
{
	static const relopt_parse_elt tab[] = {
		{"fillfactor", RELOPT_TYPE_INT, offsetof(GeoidxOptions, fillfactor)},
	};
	return (bytea *) build_reloptions(reloptions, validate, geoidx_relopt_kind,
									  sizeof(GeoidxOptions), tab, lengthof(tab));
}

/* Return the name of a build phase for pg_stat_progress_create_index. */
char *
geoidx_buildphasename(int64 phase)
{
	switch (phase)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return (char *) "initializing";
		case GEOIDX_PHASE_LOAD:
			return (char *) "loading tuples";
		case GEOIDX_PHASE_SORT:
			return (char *) "sorting tuples";
		case GEOIDX_PHASE_WRITE:
			return (char *) "writing pages";
		default:
			return NULL;
	}
}

/* Answer pg_index_column_has_property: only column 1 is ordered by distance. */
bool
geoidx_property(Oid index_oid, int attno, IndexAMProperty prop, const char *propname, bool *res,
				bool *isnull)
{
	if (attno == 0)
		return false; /* index-wide properties: the core answers from the handler flags */
	switch (prop)
	{
		case AMPROP_DISTANCE_ORDERABLE:
			/* column 1 is ordered by <~> (strategy 2) whatever the opclass, as validated */
			*res = (attno == 1);
			return true;
		case AMPROP_SEARCH_ARRAY:
		case AMPROP_SEARCH_NULLS:
			*res = false;
			return true;
		default:
			return false;
	}
}

} // namespace

/*
 * Return whether an index-only scan can return column attno. The point is rebuilt from the stored
 * doubles. That is the value the heap holds only when the column's type promises a 2-D point in
 * SRID 4326 (geometry(Point, 4326), or geography(Point, 4326): the type modifiers are laid out
 * alike); for a bare geometry column SRID 0 or Z/M values would not survive, so there the heap is
 * read. For geography the value is rebuilt with the geodetic flag (geoidx_index_is_geography).
 */
bool
geoidx_canreturn(Relation index, int attno)
{
	if (attno > 1)
		return true; /* the payload holds the column's value as the heap has it */
	if (attno != 1)
		return false;
	int32 typmod = TupleDescAttr(RelationGetDescr(index), 0)->atttypmod;
	if (typmod < 0)
		return false;
	return GeoidxTypmodSrid(typmod) == 4326 &&
		   GeoidxTypmodType(typmod) == GEOIDX_TYPMOD_POINTTYPE && !GeoidxTypmodHasZ(typmod) &&
		   !GeoidxTypmodHasM(typmod);
}

/* Return whether the indexed type is PostGIS's geography (the geoidx_geography_ops opclass). */
bool
geoidx_index_is_geography(Relation index)
{
	Oid geography = geoidx_geography_type();
	return OidIsValid(geography) && index->rd_opcintype[0] == geography;
}

namespace
{

/*
 * Whether a condition of the path is known to match no row: a strict
 * operator with a NULL constant, or col <@ an array constant with no element
 * that is not NULL. The scan sees the same and returns at once without
 * reading a page (scan.cc), while the row estimate, clamped to one row,
 * would charge an ordered scan for the whole index.
 */
bool
matches_nothing(const IndexPath *path)
{
	const GeoidxCatalog &o = geoidx_catalog();
	ListCell *lc, *lq;
	foreach (lc, path->indexclauses)
	{
		IndexClause *ic = (IndexClause *) lfirst(lc);
		foreach (lq, ic->indexquals)
		{
			Expr *clause = ((RestrictInfo *) lfirst(lq))->clause;
			if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
				continue;
			OpExpr *op = (OpExpr *) clause;
			Node *arg = (Node *) lsecond(op->args);
			if (!IsA(arg, Const))
				continue;
			Const *c = (Const *) arg;
			if (c->constisnull && op_strict(op->opno))
				return true;
			if (c->constisnull || ic->indexcol == 0 || !OidIsValid(o.in_op) || op->opno != o.in_op)
				continue;
			ArrayType *arr = DatumGetArrayTypeP(c->constvalue);
			int n = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
			const bits8 *nulls = ARR_NULLBITMAP(arr);
			bool any_value = false;
			for (int i = 0; i < n && !any_value; i++)
				any_value = nulls == NULL || (nulls[i / 8] & (1 << (i % 8))) != 0;
			if (!any_value)
				return true;
		}
	}
	return false;
}

/*
 * What a cached page costs, in cpu_operator_cost: PostgreSQL's btree and
 * GiST charge this much CPU for each upper page they descend through, which
 * they take to stay in cache (DEFAULT_PAGE_CPU_MULTIPLIER in selfuncs.c).
 */
constexpr double kCachedPageCpu = 50.0;

/*
 * The cost of reading one page of the index. PostgreSQL's random_page_cost
 * is the price of a page the cache may not hold. effective_cache_size says
 * how much the cache holds for one query; where the index and the query's
 * tables fit in it, the index's pages are read from the cache, since the
 * index is what every query of its table reads, and a page costs what a
 * btree's upper page does. Where they do not fit, the share that does not is
 * charged at random_page_cost, so an index larger than the cache is costed
 * as PostgreSQL costs any other, and lowering effective_cache_size says so
 * for a cold cache.
 */
double
index_page_cost(const PlannerInfo *root, const IndexOptInfo *index, double spc_random_page_cost)
{
	double cached_cost = kCachedPageCpu * cpu_operator_cost;
	double needed = (double) root->total_table_pages + (double) index->pages;
	double cache = Max((double) effective_cache_size, 1.0);
	double cached_share = needed <= cache ? 1.0 : cache / needed;
	return cached_share * cached_cost +
		   (1.0 - cached_share) * Max(spc_random_page_cost, cached_cost);
}

} // namespace

/*
 * Estimate the cost of an index scan: genericcostestimate charges the pages and tuples the
 * selectivity implies, its pages at index_page_cost (cached where the index fits in the cache).
 * On top of it, each index tuple costs a little more than the generic operator cost (a
 * trigonometric bound, sometimes a geodesic), an index-only scan forms each row it returns, an
 * ORDER BY scan descends as many levels as the tree has before the first tuple, and an
 * unordered one reads the heap in heap order. A condition that matches nothing costs nothing:
 * the scan reads no page.
 */
void
geoidx_costestimate(PlannerInfo *root, IndexPath *path, double loop_count, Cost *indexStartupCost,
					Cost *indexTotalCost, Selectivity *indexSelectivity, double *indexCorrelation,
					double *indexPages)
{
	if (matches_nothing(path))
	{
		*indexStartupCost = *indexTotalCost = 0.0;
		*indexSelectivity = 0.0;
		*indexCorrelation = 1.0;
		*indexPages = 0.0;
		return;
	}
	GenericCosts costs;
	MemSet(&costs, 0, sizeof(costs));
	IndexOptInfo *index = path->indexinfo;

	/*
	 * The tree prunes by the point's conditions only; those on the other
	 * columns are tested on every entry the point's conditions leave. So the
	 * entries read are the point conditions' share of the index, while the
	 * rows returned (the heap's cost) are all conditions' share.
	 */
	List *spatial = NIL;
	ListCell *lc;
	foreach (lc, path->indexclauses)
	{
		IndexClause *ic = (IndexClause *) lfirst(lc);
		if (ic->indexcol == 0)
			spatial = lappend(spatial, ic->rinfo);
	}
	if (list_length(spatial) < list_length(path->indexclauses))
	{
		Selectivity s = clauselist_selectivity(root, spatial, index->rel->relid, JOIN_INNER, NULL);
		costs.numIndexTuples = Max(1.0, rint(s * index->tuples));
	}
	genericcostestimate(root, path, loop_count, &costs);

	/*
	 * genericcostestimate charges every index page at random_page_cost. Take
	 * that out and charge index_page_cost instead, for the pages it counted
	 * (fewer per loop when the scan repeats, as it computed them).
	 */
	double page_cost = index_page_cost(root, index, costs.spc_random_page_cost);
	double pages_read = costs.numIndexPages;
	if (loop_count > 1)
		pages_read = index_pages_fetched(costs.numIndexPages * loop_count, index->pages,
										 (double) index->pages, root) /
					 loop_count;
	costs.indexTotalCost -= pages_read * (costs.spc_random_page_cost - page_cost);

	/*
	 * genericcostestimate charges ceil(x) leaf pages for x pages' worth of
	 * entries, so a small radius costs one page in any index on the column and
	 * the wider (pos, cat) index ties with (pos). The entries of a region are
	 * contiguous in the tree, so they span 1 + x leaves on average: charge
	 * that, which prefers the index with more entries per page.
	 */
	if (index->pages > 1 && index->tuples > 1.0)
	{
		double spanned = 1.0 + costs.numIndexTuples * index->pages / index->tuples;
		if (spanned > costs.numIndexPages)
			costs.indexTotalCost +=
				(spanned - costs.numIndexPages) * page_cost / Max(1.0, loop_count);
	}

	double levels = 1.0;
	if (index->tuples > 1.0)
		levels = ceil(log(index->tuples) / log((double) GEOIDX_INTERNAL_CAPACITY * 0.7)) + 1.0;

	Cost per_tuple = 2.0 * cpu_operator_cost;
	costs.indexTotalCost += costs.numIndexTuples * per_tuple;
	/*
	 * An index-only scan hands each row over as an index tuple that it forms
	 * from the point and the payload's columns (geoidx_gettuple), and the
	 * executor deforms it again: about two operators a column. With cached
	 * pages this is most of what a long index-only scan costs (a count(*)
	 * of every row runs 2.3x as long as a sequential scan).
	 */
	if (path->path.pathtype == T_IndexOnlyScan)
		costs.indexTotalCost +=
			costs.indexSelectivity * index->rel->tuples * 2.0 * cpu_operator_cost * index->ncolumns;
	if (path->indexorderbys != NIL)
	{
		/* what comes before the first row is part of the whole scan too */
		Cost descent = levels * (page_cost + kCachedPageCpu * cpu_operator_cost);
		costs.indexStartupCost += descent;
		costs.indexTotalCost += descent;
	}
	/*
	 * A plain (not index-only) unordered scan hands its rows over in heap
	 * order (scan_get.cc), so the executor reads the heap as a bitmap scan
	 * does: tell cost_index the heap order is the index's.
	 */
	if (path->indexorderbys == NIL && path->path.pathtype == T_IndexScan)
		costs.indexCorrelation = 1.0;

	*indexStartupCost = costs.indexStartupCost;
	*indexTotalCost = costs.indexTotalCost;
	*indexSelectivity = costs.indexSelectivity;
	*indexCorrelation = costs.indexCorrelation;
	*indexPages = costs.numIndexPages;
}

/* Return the access method's routines and capabilities. */
extern "C" Datum
geoidx_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *am = makeNode(IndexAmRoutine);

	am->amstrategies = GEOIDX_NSTRATEGIES;
	am->amsupport = GEOIDX_NPROCS;
	am->amoptsprocnum = 0;
	am->amcanorder = false;
	am->amcanorderbyop = true;
	am->amcanbackward = false;
	am->amcanunique = false;
	am->amcanmulticol = true;
	am->amoptionalkey = true;
	am->amsearcharray = false;
	am->amsearchnulls = true;
	am->amstorage = false;
	am->amclusterable = true;
	am->ampredlocks = false;
	am->amcanparallel = false;
	am->amcaninclude = true;
	am->amusemaintenanceworkmem = true;
	am->amparallelvacuumoptions = VACUUM_OPTION_PARALLEL_BULKDEL | VACUUM_OPTION_PARALLEL_CLEANUP;
	am->amkeytype = InvalidOid;

	am->ambuild = geoidx_build;
	am->ambuildempty = geoidx_buildempty;
	am->aminsert = geoidx_insert;
	am->ambulkdelete = geoidx_bulkdelete;
	am->amvacuumcleanup = geoidx_vacuumcleanup;
	am->amcanreturn = geoidx_canreturn;
	am->amcostestimate = geoidx_costestimate;
	am->amoptions = geoidx_options;
	am->amproperty = geoidx_property;
	am->ambuildphasename = geoidx_buildphasename;
	am->amvalidate = geoidx_validate;
	am->amadjustmembers = NULL;
	am->ambeginscan = geoidx_beginscan;
	am->amrescan = geoidx_rescan;
	am->amgettuple = geoidx_gettuple;
	am->amgetbitmap = geoidx_getbitmap;
	am->amendscan = geoidx_endscan;
	am->ammarkpos = NULL;
	am->amrestrpos = NULL;
	am->amestimateparallelscan = NULL;
	am->aminitparallelscan = NULL;
	am->amparallelrescan = NULL;

	PG_RETURN_POINTER(am);
}

/* Install the planner hook and register the reloptions when the library is loaded. */
void
_PG_init(void)
{
	geoidx_install_rewrite_hook();
	geoidx_install_nearest_append();
	geoidx_install_partition_prune();
	geoidx_install_junk_distance();
	geoidx_cover_cache_init();
	geoidx_fault_init();
	geoidx_wal_rmgr_init();
	geoidx_entry_grid_init();
	geoidx_build_parallel_init();
	geoidx_relopt_kind = add_reloption_kind();
	add_int_reloption(geoidx_relopt_kind, "fillfactor",
					  "Packs every page to this percentage of its capacity when the index is built",
					  GEOIDX_DEFAULT_FILLFACTOR, GEOIDX_MIN_FILLFACTOR, 100, AccessExclusiveLock);
}
