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
 * After planning, a junk column that is exactly the ORDER BY expression of an
 * ordered geoidx index scan becomes a NULL constant when nothing above the
 * scan can read it: the scan is the plan's top, or under LIMIT nodes (not
 * WITH TIES, which compares the sort keys) that are. The scan's and the
 * LIMIT's costs lose what PostgreSQL charged for the column, so that the plan
 * cache weighs the plan the executor runs.
 */
#include "geoidx.h"

extern "C"
{
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/planner.h"
#include "catalog/pg_class.h"
#include "utils/syscache.h"
}

namespace
{

planner_hook_type prev_planner = NULL;

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

/* Whether e is one of the scan's ORDER BY expressions. */
bool
is_scan_order(const IndexScan *scan, const Expr *e)
{
	ListCell *lc;
	foreach (lc, scan->indexorderbyorig)
		if (equal(lfirst(lc), e))
			return true;
	return false;
}

/*
 * Replace the scan's junk ORDER BY columns by NULL; return what PostgreSQL
 * charged for them (startup once, per_tuple a row).
 */
QualCost
drop_junk_distances(IndexScan *scan)
{
	QualCost dropped = {0.0, 0.0};
	ListCell *lc;
	foreach (lc, scan->scan.plan.targetlist)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);
		if (!tle->resjunk || IsA(tle->expr, Const) || !is_scan_order(scan, tle->expr))
			continue;
		QualCost c;
		cost_qual_eval_node(&c, (Node *) tle->expr, NULL);
		dropped.startup += c.startup;
		dropped.per_tuple += c.per_tuple;
		tle->expr =
			(Expr *) makeNullConst(exprType((Node *) tle->expr), exprTypmod((Node *) tle->expr),
								   exprCollation((Node *) tle->expr));
	}
	return dropped;
}

/* Take a dropped column's charge off a node that returns rows plan_rows times. */
void
lower_cost(Plan *p, const QualCost &dropped)
{
	Cost rows_cost = dropped.per_tuple * Max(p->plan_rows, 0.0);
	p->startup_cost = Max(0.0, p->startup_cost - dropped.startup);
	p->total_cost = Max(p->startup_cost, p->total_cost - dropped.startup - rows_cost);
}

void
drop_unread_distances(PlannedStmt *stmt)
{
	const GeoidxCatalog &o = geoidx_catalog_if_present();
	if (!o.present || !OidIsValid(o.geoidx_am) || stmt->commandType != CMD_SELECT)
		return;
	/* the LIMIT nodes above the scan, top first; each passes rows through untouched */
	Plan *limits[4];
	int n = 0;
	Plan *p = stmt->planTree;
	while (p != NULL && IsA(p, Limit) && n < (int) lengthof(limits))
	{
		if (((Limit *) p)->limitOption == LIMIT_OPTION_WITH_TIES)
			return;
		limits[n++] = p;
		p = outerPlan(p);
	}
	if (!is_ordered_geoidx_scan(o, p))
		return;
	QualCost dropped = drop_junk_distances((IndexScan *) p);
	if (dropped.startup == 0.0 && dropped.per_tuple == 0.0)
		return;
	lower_cost(p, dropped);
	for (int i = 0; i < n; i++)
		lower_cost(limits[i], dropped);
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

} // namespace

void
geoidx_install_junk_distance(void)
{
	prev_planner = planner_hook;
	planner_hook = geoidx_planner;
}
