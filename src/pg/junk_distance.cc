/*
 * ORDER BY col <~> c puts the distance into the plan's target list as a junk
 * column, which the executor computes for every row and the junk filter then
 * drops. Under an ordered geoidx scan nothing reads it: the scan already
 * returns the rows in that order. Computing it costs a call of <~> a row, and
 * in a generic plan also the centre's expression a row (ST_MakePoint and
 * ST_SetSRID of the parameters, which PostGIS costs at 50 operators each).
 * PostgreSQL charges all of that to the plan, and the charge alone can make
 * the plan cache re-plan a prepared k-NN at every execution: the generic plan
 * looks dearer than a custom plan plus its planning, though planning costs
 * more than the projection it avoids.
 *
 * Once the ordered paths are built, an ordered geoidx index path's
 * projection of its own ORDER BY expressions loses their charge, so that the
 * planner and the plan cache weigh the plan the executor runs.
 *
 * <~> is declared at what it costs above an ordered geoidx scan (a memo
 * lookup: distance_memo.cc), so that the generic plan of a query that
 * selects the distance with parameters of its own, as pgbench and drivers
 * number them, is not charged a geodesic a row that a custom plan is spared.
 * A sort by <~> computes a geodesic for every row it sorts (~1 us, ~200
 * operators); so the ordered paths that sort by it are charged the
 * difference, per row sorted.
 *
 * After planning, a junk column that is the ORDER BY of an ordered geoidx
 * scan becomes a NULL constant when nothing above the scan can read it: the
 * scan is the plan's top, or under LIMIT nodes (not WITH TIES, which compares
 * the sort keys) that are. Where the query selects the distance, the scan
 * hands it over (distance_memo.cc).
 */
#include "geoidx.h"

extern "C"
{
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/plancat.h"
#include "optimizer/planner.h"
#include "utils/lsyscache.h"
#include "catalog/pg_class.h"
#include "utils/syscache.h"
}

namespace
{

planner_hook_type prev_planner = NULL;
create_upper_paths_hook_type prev_upper_hook = NULL;

/* The access method of a relation (PostgreSQL 15 has no get_rel_relam). */
Oid
relation_am(Oid relid)
{
	HeapTuple tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	Oid am = ((Form_pg_class) GETSTRUCT(tup))->relam;
	ReleaseSysCache(tup);
	return am;
}

/* Whether p is an index scan of a geoidx index that returns its rows in distance order. */
bool
is_ordered_geoidx_scan(const GeoidxCatalog &o, const Plan *p)
{
	if (p == NULL || !IsA(p, IndexScan))
		return false;
	const IndexScan *scan = (const IndexScan *) p;
	return scan->indexorderbyorig != NIL && relation_am(scan->indexid) == o.geoidx_am;
}

/* Replace the scan's junk ORDER BY columns by NULL constants. */
void
drop_junk_distances(IndexScan *scan)
{
	ListCell *lc;
	foreach (lc, scan->scan.plan.targetlist)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);
		if (!tle->resjunk || IsA(tle->expr, Const) ||
			!list_member(scan->indexorderbyorig, tle->expr))
			continue;
		tle->expr =
			(Expr *) makeNullConst(exprType((Node *) tle->expr), exprTypmod((Node *) tle->expr),
								   exprCollation((Node *) tle->expr));
	}
}

void
drop_unread_distances(PlannedStmt *stmt)
{
	const GeoidxCatalog &o = geoidx_catalog_if_present();
	if (!o.present || !OidIsValid(o.geoidx_am) || stmt->commandType != CMD_SELECT)
		return;
	/* the LIMIT nodes above the scan; each passes rows through untouched */
	Plan *p = stmt->planTree;
	for (int n = 0; p != NULL && IsA(p, Limit) && n < 4; n++)
	{
		if (((Limit *) p)->limitOption == LIMIT_OPTION_WITH_TIES)
			return;
		p = outerPlan(p);
	}
	if (is_ordered_geoidx_scan(o, p))
		drop_junk_distances((IndexScan *) p);
}

PlannedStmt *
geoidx_planner(Query *parse, const char *query_string, int cursor_options, ParamListInfo params)
{
	PlannedStmt *stmt = prev_planner
							? prev_planner(parse, query_string, cursor_options, params)
							: standard_planner(parse, query_string, cursor_options, params);
	drop_unread_distances(stmt);
	return stmt;
}

/*
 * Take the charge for computing an ordered geoidx index path's own ORDER BY
 * expressions off the projections above it: what the projection computes
 * that its input does not have is priced per row by create_projection_path.
 */
void
discount_scan_order(PlannerInfo *root, const GeoidxCatalog &o, Path *path)
{
	Path *scan = path;
	while (IsA(scan, ProjectionPath))
		scan = ((ProjectionPath *) scan)->subpath;
	if (!IsA(scan, IndexPath) || path == scan)
		return;
	IndexPath *ipath = (IndexPath *) scan;
	if (ipath->indexorderbys == NIL || ipath->indexinfo->relam != o.geoidx_am)
		return;
	QualCost charged = {0.0, 0.0};
	ListCell *lc;
	foreach (lc, path->pathtarget->exprs)
	{
		Expr *e = (Expr *) lfirst(lc);
		if (!list_member(ipath->indexorderbys, e) || list_member(scan->pathtarget->exprs, e))
			continue;
		QualCost c;
		cost_qual_eval_node(&c, (Node *) e, root);
		charged.startup += c.startup;
		charged.per_tuple += c.per_tuple;
	}
	Cost rows_cost = charged.per_tuple * Max(path->rows, 0.0);
	path->startup_cost = Max(0.0, path->startup_cost - charged.startup);
	path->total_cost = Max(path->startup_cost, path->total_cost - charged.startup - rows_cost);
}

/* What a geodesic costs, in cpu_operator_cost: ~1 us, as a sequential scan spends on ~25 rows. */
constexpr double kGeodesicCpu = 200.0;

/* The number of the query's ORDER BY expressions that are <~>. */
int
distance_sort_keys(PlannerInfo *root, const GeoidxCatalog &o)
{
	int n = 0;
	ListCell *lc;
	foreach (lc, root->sort_pathkeys)
	{
		PathKey *pk = (PathKey *) lfirst(lc);
		ListCell *lm;
		foreach (lm, pk->pk_eclass->ec_members)
		{
			Expr *e = ((EquivalenceMember *) lfirst(lm))->em_expr;
			if (IsA(e, OpExpr) && (((OpExpr *) e)->opno == o.distance_op[0] ||
								   ((OpExpr *) e)->opno == o.distance_op[1]))
			{
				n++;
				break;
			}
		}
	}
	return n;
}

/*
 * Charge a path that sorts by keys <~> expressions what their geodesics
 * cost beyond <~>'s declared cost (declared), for each row the sort reads.
 */
void
charge_sorted_distances(Path *path, int keys, Cost declared)
{
	Path *p = path;
	while (IsA(p, ProjectionPath))
		p = ((ProjectionPath *) p)->subpath;
	if (IsA(p, GatherMergePath))
		p = ((GatherMergePath *) p)->subpath;
	if (!IsA(p, SortPath) && !IsA(p, IncrementalSortPath))
		return;
	double rows = Max(((SortPath *) p)->subpath->rows, 0.0);
	Cost extra = rows * keys * (kGeodesicCpu * cpu_operator_cost - declared);
	if (extra <= 0.0)
		return;
	/* a sort reads all of its input before its first row */
	path->startup_cost += extra;
	path->total_cost += extra;
}

void
order_paths_hook(PlannerInfo *root, UpperRelationKind stage, RelOptInfo *input_rel,
				 RelOptInfo *output_rel, void *extra)
{
	if (prev_upper_hook)
		prev_upper_hook(root, stage, input_rel, output_rel, extra);
	if (stage != UPPERREL_ORDERED)
		return;
	const GeoidxCatalog &o = geoidx_catalog_if_present();
	if (!o.present || !OidIsValid(o.geoidx_am))
		return;
	ListCell *lc;
	int keys = distance_sort_keys(root, o);
	QualCost declared = {0.0, 0.0};
	if (keys > 0)
		add_function_cost(root, get_opcode(o.distance_op[0]), NULL, &declared);
	foreach (lc, output_rel->pathlist)
	{
		discount_scan_order(root, o, (Path *) lfirst(lc));
		if (keys > 0)
			charge_sorted_distances((Path *) lfirst(lc), keys, declared.per_tuple);
	}
	if (output_rel->pathlist != NIL)
		set_cheapest(output_rel);
}

} // namespace

void
geoidx_install_junk_distance(void)
{
	prev_planner = planner_hook;
	planner_hook = geoidx_planner;
	prev_upper_hook = create_upper_paths_hook;
	create_upper_paths_hook = order_paths_hook;
}
