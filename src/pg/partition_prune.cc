/*
 * Radius queries over a table range-partitioned on geoidx_cell(pos, level)
 * reach only the partitions whose cells the circle can touch, with no
 * condition written for it and in generic plans too.
 *
 * PostgreSQL prunes partitions on conditions of the partition key. A radius
 * condition (pos <@ geoidx_circle(c, r), what geoidx_dwithin becomes) is not
 * one, and the covering a user could add, geoidx_cell(pos, L) = ANY
 * (geoidx_covering_cells(c, r, L)), prunes only when the planner can fold it
 * to a constant: a generic plan keeps every partition, and every partition
 * evaluates it on every row. So, once the partitions' sizes are estimated
 * (set_rel_pathlist_hook on the partitioned table), the table gets one more
 * condition of its own, an OR of at most kPruneRanges ranges of its key,
 *
 *   geoidx_cell(pos, L) >= geoidx_covering_bound(circle, L, 0)
 *     AND geoidx_cell(pos, L) < geoidx_covering_bound(circle, L, 1) OR ...
 *
 * which PostgreSQL's pruning reads when it builds the Append, when the
 * executor starts (parameters). The partitions never see it (their conditions
 * were copied from the table's before it), so no row pays for it, and no
 * estimate changes. The ranges are a superset of the covering
 * (src/core/cell_region.h): a partition too many, never one too few.
 *
 * A circle the query names (constants in its text) prunes before any
 * partition is planned, as a condition
 * on a partition key written in the query does: the planner hook adds the
 * same ranges, folded to constants, beside the radius condition in the query
 * (geoidx_prune_cells_at_plan_time) before PostgreSQL expands the table into
 * its partitions, and takes them out of the table's conditions when the first
 * partition left is planned (geoidx_keep_cell_bounds_from_partitions), before
 * the partitions copy them. Planning a 200 km count over 64 partitions had
 * cost ~1.9 ms, 63 of them planned only to be removed when the executor
 * started. The ranges follow from the radius condition beside them, so a row
 * that passes it passes them: adding them changes no answer, and the
 * partitions may lose any condition equal to them.
 */
#include "cell_region.h"
#include "cells.h"
#include "geoidx.h"

extern "C"
{
#include "catalog/pg_class_d.h"
#include "catalog/pg_type_d.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "partitioning/partdefs.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
}

namespace
{

set_rel_pathlist_hook_type prev_pathlist_hook = NULL;

/* The ranges of the last circle asked for: the pruning asks for them 2 x kPruneRanges times. */
struct RangesCache
{
	bool valid;
	GeoidxCircle circle;
	int level;
	size_t n;
	uint64 lo[geoidx::kPruneRanges];
	uint64 hi[geoidx::kPruneRanges];
};

RangesCache cache;

/* The cells at level a row in the region can have, as ranges into cache. */
void
region_ranges(const GeoidxCircle *c, int level)
{
	if (cache.valid && cache.level == level && memcmp(&cache.circle, c, sizeof(*c)) == 0)
		return;
	cache.valid = false;
	geoidx::RegionTest t = geoidx_circle_region(c);
	double r = c->radius;
	bool bounded = t.constant < 0 &&
				   (t.mode == geoidx::RegionMode::within || t.mode == geoidx::RegionMode::dist_lt ||
					t.mode == geoidx::RegionMode::dist_le);
	size_t n;
	if (t.constant == 0 || (bounded && r < 0.0))
		n = 0; /* no row is in the region: no partition is needed */
	else if (!bounded || std::isnan(r))
	{
		/* the outside of a circle, a NaN bound (above every distance): all */
		cache.lo[0] = 0;
		cache.hi[0] = geoidx::cells_at_level(level);
		n = 1;
	}
	else
		n = geoidx::covering_ranges(t.circle.center, r, c->use_spheroid != 0, level, cache.lo,
									cache.hi, geoidx::kPruneRanges);
	cache.circle = *c;
	cache.level = level;
	cache.n = n;
	cache.valid = true;
}

/*
 * Bound i of the ranges of the cells at level a row in c can have (see
 * geoidx_covering_bound): -1 when no row can be in it; past the last range,
 * the first again (an empty one would keep a MINVALUE partition).
 */
int64
covering_bound_value(const GeoidxCircle *c, int level, int i)
{
	region_ranges(c, level);
	if (cache.n == 0)
		return -1; /* [-1, -1): no cell */
	size_t r = (size_t) (i / 2) < cache.n ? (size_t) (i / 2) : 0;
	return (int64) (i % 2 == 0 ? cache.lo[r] : cache.hi[r]);
}

} // namespace

/*
 * The level of e if it is geoidx_cell(a column, a constant level in range),
 * with the column in *col; else -1. The one spelling of a cell key that
 * partition keys, partition constraints and the pruning all recognise.
 */
int
geoidx_cell_call(const GeoidxCatalog &o, Node *e, Var **col)
{
	if (e == NULL || !OidIsValid(o.cell_fn) || !IsA(e, FuncExpr) ||
		((FuncExpr *) e)->funcid != o.cell_fn || list_length(((FuncExpr *) e)->args) != 2)
		return -1;
	Node *v = (Node *) linitial(((FuncExpr *) e)->args);
	Node *l = (Node *) lsecond(((FuncExpr *) e)->args);
	if (!IsA(v, Var) || !IsA(l, Const) || ((Const *) l)->constisnull)
		return -1;
	int32 level = DatumGetInt32(((Const *) l)->constvalue);
	if (level < 0 || level > geoidx::kMaxCellLevel)
		return -1;
	*col = (Var *) v;
	return level;
}

/*
 * The column and level of rel's partition key if it is geoidx_cell(col,
 * level) and partitions by range or list (each partition's rows a region of
 * their own; a hash scatters the cells), or NULL.
 */
Var *
geoidx_cell_partition_key(const GeoidxCatalog &o, RelOptInfo *rel, int *level)
{
	if (rel->part_scheme == NULL || rel->part_scheme->strategy == PARTITION_STRATEGY_HASH ||
		rel->part_scheme->partnatts != 1 || rel->partexprs == NULL ||
		list_length(rel->partexprs[0]) != 1)
		return NULL;
	Var *col;
	*level = geoidx_cell_call(o, (Node *) linitial(rel->partexprs[0]), &col);
	return *level >= 0 && col->varno == (int) rel->relid ? col : NULL;
}

namespace
{

/*
 * Whether every row in the region has a cell: a disc or a distance below a
 * bound, which neither NULL nor EMPTY (no cell, so in no range) satisfies.
 * The outside of a circle holds EMPTY points too, and prunes nothing.
 */
bool
inner_region(const GeoidxCatalog &o, Node *region)
{
	if (IsA(region, Const))
	{
		const Const *k = (const Const *) region;
		if (k->constisnull)
			return true; /* nothing is in a NULL region */
		int mode = ((const GeoidxCircle *) DatumGetPointer(k->constvalue))->mode;
		return mode == (int) geoidx::RegionMode::within ||
			   mode == (int) geoidx::RegionMode::dist_lt ||
			   mode == (int) geoidx::RegionMode::dist_le;
	}
	if (!IsA(region, FuncExpr))
		return false;
	FuncExpr *f = (FuncExpr *) region;
	if (f->funcid == o.circle_fn[0] || f->funcid == o.candidate_fn[0])
		return true;
	if (f->funcid != o.circle_distance_fn[0] || list_length(f->args) != 3 ||
		!IsA(lsecond(f->args), Const) || ((Const *) lsecond(f->args))->constisnull)
		return false;
	char *op = TextDatumGetCString(((Const *) lsecond(f->args))->constvalue);
	return op[0] == '<';
}

/* Whether e is the same for every row of the scan: no column, nothing volatile, no subquery. */
bool
scan_constant(Node *e)
{
	return !contain_var_clause(e) && !contain_volatile_functions(e) && !contain_subplans(e);
}

/*
 * The region of geoidx_dwithin(col, centre, metres[, spheroid]) whose centre
 * may be a shape (a geometry parameter, say, which the planner cannot see
 * is a point): the candidate disc around the centre's box, which holds every
 * point within metres of it on the spheroid and on the sphere. The exact
 * circle is what a centre known to be a point gives, through the rewrite to
 * col <@ geoidx_circle(...); this is the rest.
 */
Expr *
dwithin_region(const GeoidxCatalog &o, Expr *clause, Var *col)
{
	if (!IsA(clause, FuncExpr) || ((FuncExpr *) clause)->funcid != o.dwithin_fn[0] ||
		!OidIsValid(o.candidate_fn[0]))
		return NULL;
	List *args = ((FuncExpr *) clause)->args;
	if (list_length(args) < 3)
		return NULL;
	Node *a = (Node *) linitial(args), *b = (Node *) lsecond(args), *metres = (Node *) lthird(args);
	Node *centre = equal(a, col) ? b : equal(b, col) ? a : NULL;
	if (centre == NULL || !scan_constant(centre) || !scan_constant(metres))
		return NULL;
	return (Expr *) makeFuncExpr(o.candidate_fn[0], o.circle_type,
								 list_make2(copyObjectImpl(centre), copyObjectImpl(metres)),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}

/*
 * The region of a condition col <@ region or geoidx_dwithin(col, ...) (a
 * value for the whole scan, and inner), or NULL.
 */
Expr *
region_of(const GeoidxCatalog &o, Expr *clause, Var *col)
{
	if (Expr *r = dwithin_region(o, clause, col))
		return r;
	if (!IsA(clause, OpExpr) || ((OpExpr *) clause)->opno != o.within_op[0] ||
		list_length(((OpExpr *) clause)->args) != 2)
		return NULL;
	Node *a = (Node *) linitial(((OpExpr *) clause)->args);
	Node *region = (Node *) lsecond(((OpExpr *) clause)->args);
	if (!equal(a, col) || !scan_constant(region) || !inner_region(o, region))
		return NULL;
	return (Expr *) region;
}

/* key >= bound (lower) or key < bound (upper): one end of a range of cells. */
Expr *
key_compare(const GeoidxCatalog &o, Node *key, Expr *bound, bool lower)
{
	return make_opclause(lower ? o.int8_ge_op : o.int8_lt_op, BOOLOID, false,
						 (Expr *) copyObjectImpl(key), bound, InvalidOid, InvalidOid);
}

/* key >= geoidx_covering_bound(region, level, i) (lower) or key < ... (upper). */
Expr *
key_bound(const GeoidxCatalog &o, Node *key, Expr *region, int level, int i, bool lower)
{
	Expr *bound = (Expr *) makeFuncExpr(
		o.covering_bound_fn, INT8OID,
		list_make3(
			copyObjectImpl(region),
			makeConst(INT4OID, -1, InvalidOid, sizeof(int32), Int32GetDatum(level), false, true),
			makeConst(INT4OID, -1, InvalidOid, sizeof(int32), Int32GetDatum(i), false, true)),
		InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	return key_compare(o, key, bound, lower);
}

/* A table's partition key geoidx_cell(col, level), with the catalog to build ranges of it from. */
struct CellKey
{
	const GeoidxCatalog *o;
	Var *col; /* NULL: the table is not range-partitioned on geoidx_cell */
	int level;
	Node *key;
};

CellKey
range_cell_key(RelOptInfo *rel)
{
	CellKey k{&geoidx_catalog_if_present(), NULL, -1, NULL};
	const GeoidxCatalog &o = *k.o;
	if (!o.present || !OidIsValid(o.cell_fn) || !OidIsValid(o.covering_bound_fn) ||
		!OidIsValid(o.within_op[0]))
		return k;
	Var *col = geoidx_cell_partition_key(o, rel, &k.level);
	if (col != NULL && rel->part_scheme->strategy == PARTITION_STRATEGY_RANGE)
	{
		k.col = col;
		k.key = (Node *) linitial(rel->partexprs[0]);
	}
	return k;
}

/* The OR of kPruneRanges ranges of the key that holds every cell of a row in region. */
Expr *
cell_ranges_clause(const CellKey &k, Expr *region)
{
	List *arms = NIL;
	for (int i = 0; i < (int) geoidx::kPruneRanges; i++)
		arms = lappend(arms, make_andclause(list_make2(
								 key_bound(*k.o, k.key, region, k.level, 2 * i, true),
								 key_bound(*k.o, k.key, region, k.level, 2 * i + 1, false))));
	return make_orclause(arms);
}

/*
 * The circle of region when the query names it (a constant, or a call of
 * constants the planner folds), or NULL: a parameter's circle (or a stable
 * call's) is known when the executor starts.
 */
const GeoidxCircle *
named_circle(PlannerInfo *root, Expr *region)
{
	Node *c = IsA(region, Const)                    ? (Node *) region
			  : contain_var_clause((Node *) region) ? NULL
													: eval_const_expressions(root, (Node *) region);
	if (c == NULL || !IsA(c, Const) || ((Const *) c)->constisnull)
		return NULL;
	return (const GeoidxCircle *) DatumGetPointer(((Const *) c)->constvalue);
}

/*
 * The ranges of a named region as constants, or NULL (named_circle). The
 * bounds are geoidx_covering_bound's, computed here once rather than folded
 * call by call (each fold of a call builds an executor state: 8 bounds cost
 * more than the pruning saved on 16 partitions).
 */
Expr *
folded_cell_ranges(PlannerInfo *root, const CellKey &k, Expr *region)
{
	const GeoidxCircle *circle = named_circle(root, region);
	if (circle == NULL)
		return NULL;
	List *arms = NIL;
	for (int i = 0; i < (int) geoidx::kPruneRanges; i++)
	{
		Expr *ends[2];
		for (int end = 0; end < 2; end++)
			ends[end] =
				key_compare(*k.o, k.key,
							(Expr *) makeConst(
								INT8OID, -1, InvalidOid, sizeof(int64),
								Int64GetDatum(covering_bound_value(circle, k.level, 2 * i + end)),
								false, FLOAT8PASSBYVAL),
							end == 0);
		arms = lappend(arms, make_andclause(list_make2(ends[0], ends[1])));
	}
	return make_orclause(arms);
}

/*
 * Partitioned tables whose planning took the plan-time ranges: added to the
 * query, then out of the table's conditions (kept_out), so that the run-time
 * ranges are not added again for the same circles. A few recent ones. The
 * hook that adds them first forgets any entry of the same root and table: a
 * later planning may get the addresses an earlier one had, and its table
 * must not be taken for pruned.
 */
struct PlanTimeEntry
{
	PlannerInfo *root;
	Index relid;
	bool kept_out;
};

constexpr int kPlanTimeEntries = 16;
PlanTimeEntry plan_time[kPlanTimeEntries];
int plan_time_next = 0;

PlanTimeEntry *
plan_time_entry(PlannerInfo *root, Index relid)
{
	for (PlanTimeEntry &e : plan_time)
		if (e.root == root && e.relid == relid)
			return &e;
	return NULL;
}

/* The plan-time ranges of the radius conditions among conditions (clauses, or RestrictInfos). */
List *
named_ranges(PlannerInfo *root, const CellKey &k, List *conditions)
{
	List *ranges = NIL;
	ListCell *lc;
	foreach (lc, conditions)
	{
		Node *c = (Node *) lfirst(lc);
		Expr *clause = IsA(c, RestrictInfo) ? ((RestrictInfo *) c)->clause : (Expr *) c;
		Expr *region = region_of(*k.o, clause, k.col);
		Expr *r = region != NULL ? folded_cell_ranges(root, k, region) : NULL;
		if (r != NULL)
			ranges = lappend(ranges, r);
	}
	return ranges;
}

/* The same ranges added beside their radius conditions, in every AND-ed list of a join tree. */
void
add_named_ranges_in(PlannerInfo *root, const CellKey &k, Node *jt, bool *added)
{
	if (jt == NULL)
		return;
	Node **quals = IsA(jt, FromExpr)   ? &((FromExpr *) jt)->quals
				   : IsA(jt, JoinExpr) ? &((JoinExpr *) jt)->quals
									   : NULL;
	if (quals != NULL && (*quals == NULL || IsA(*quals, List)))
	{
		List *ranges = named_ranges(root, k, (List *) *quals);
		*added |= ranges != NIL;
		*quals = (Node *) list_concat((List *) *quals, ranges);
	}
	ListCell *lc;
	if (IsA(jt, FromExpr))
		foreach (lc, ((FromExpr *) jt)->fromlist)
			add_named_ranges_in(root, k, (Node *) lfirst(lc), added);
	else if (IsA(jt, JoinExpr))
	{
		add_named_ranges_in(root, k, ((JoinExpr *) jt)->larg, added);
		add_named_ranges_in(root, k, ((JoinExpr *) jt)->rarg, added);
	}
}

void
prune_by_cells(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	if (prev_pathlist_hook)
		prev_pathlist_hook(root, rel, rti, rte);
	if (!rte->inh || rte->relkind != RELKIND_PARTITIONED_TABLE || !enable_partition_pruning ||
		rel->baserestrictinfo == NIL || IS_DUMMY_REL(rel))
		return;
	CellKey k = range_cell_key(rel);
	if (k.col == NULL)
		return;
	/* the circles known at plan time pruned the partitions already */
	PlanTimeEntry *e = plan_time_entry(root, rel->relid);
	bool pruned = e != NULL && e->kept_out;
	List *added = NIL;
	ListCell *lc;
	foreach (lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = (RestrictInfo *) lfirst(lc);
		Expr *region = ri->pseudoconstant ? NULL : region_of(*k.o, ri->clause, k.col);
		if (region == NULL || (pruned && named_circle(root, region) != NULL))
			continue;
		added = lappend(added, make_simple_restrictinfo(root, cell_ranges_clause(k, region)));
	}
	rel->baserestrictinfo = list_concat(rel->baserestrictinfo, added);
}

} // namespace

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_covering_bound);
}

/*
 * geoidx_covering_bound(region, level, i): range i / 2 of the cells at level
 * a row in the region can have, its first cell (i even) or the one after its
 * last (i odd); past the last range, the first again; -1 when no row can be
 * in the region. What the pruning condition above is made of.
 */
extern "C" Datum
geoidx_covering_bound(PG_FUNCTION_ARGS)
{
	const GeoidxCircle *c = (const GeoidxCircle *) PG_GETARG_POINTER(0);
	int32 level = PG_GETARG_INT32(1);
	int32 i = PG_GETARG_INT32(2);
	if (level < 0 || level > geoidx::kMaxCellLevel)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("geoidx_covering_bound: level must be between 0 and %d, got %d",
							   geoidx::kMaxCellLevel, level)));
	if (i < 0 || i >= 2 * (int32) geoidx::kPruneRanges)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("geoidx_covering_bound: range bound must be between 0 and %d, got %d",
						2 * (int) geoidx::kPruneRanges - 1, i)));
	PG_RETURN_INT64(covering_bound_value(c, level, i));
}

/*
 * For a table range-partitioned on geoidx_cell (the get_relation_info hook,
 * before the planner distributes the query's conditions and expands the
 * table into its partitions): the ranges of each circle known now, beside
 * its radius condition in the query, for PostgreSQL's plan-time pruning.
 */
void
geoidx_prune_cells_at_plan_time(PlannerInfo *root, RelOptInfo *rel)
{
	if (rel == NULL)
		return;
	/* an entry left by an earlier planning whose root had this address is not this one's */
	if (PlanTimeEntry *stale = plan_time_entry(root, rel->relid))
		stale->root = NULL;
	/*
	 * Not for a plan with parameter values (a prepared statement's custom
	 * plan): pruned, it would cost PostgreSQL's plan cache less than the
	 * generic plan, which is costed with every partition, and the cache would
	 * plan every execution anew instead of keeping the generic plan, which
	 * prunes when the executor starts (a 200 km count over 64 partitions: 16,000
	 * transactions a second with the generic plan, 5,500 planned each time).
	 */
	if (rel->part_scheme == NULL || !enable_partition_pruning || root->parse->jointree == NULL ||
		root->glob->boundParams != NULL)
		return;
	CellKey k = range_cell_key(rel);
	if (k.col == NULL)
		return;
	bool added = false;
	add_named_ranges_in(root, k, (Node *) root->parse->jointree, &added);
	if (!added)
		return;
	plan_time[plan_time_next] = PlanTimeEntry{root, rel->relid, false};
	plan_time_next = (plan_time_next + 1) % kPlanTimeEntries;
}

/*
 * For a partition (its get_relation_info hook, before it copies its
 * table's conditions; the table's plan-time pruning is over): the plan-time
 * ranges out of the table's conditions, so that no partition tests them on
 * its rows or counts them in its estimates. Any condition equal to them goes
 * (the radius condition beside it implies it), so an entry left by another
 * planning can take out nothing but such a condition.
 */
void
geoidx_keep_cell_bounds_from_partitions(PlannerInfo *root, RelOptInfo *rel)
{
	if (rel == NULL || rel->reloptkind != RELOPT_OTHER_MEMBER_REL ||
		root->append_rel_array == NULL || root->append_rel_array[rel->relid] == NULL)
		return;
	Index parent_index = root->append_rel_array[rel->relid]->parent_relid;
	PlanTimeEntry *e = plan_time_entry(root, parent_index);
	if (e == NULL || e->kept_out)
		return;
	e->kept_out = true;
	RelOptInfo *parent = root->simple_rel_array[parent_index];
	if (parent == NULL)
		return;
	CellKey k = range_cell_key(parent);
	if (k.col == NULL)
		return;
	List *ranges = named_ranges(root, k, parent->baserestrictinfo);
	List *kept = NIL;
	ListCell *lc;
	foreach (lc, parent->baserestrictinfo)
	{
		RestrictInfo *ri = (RestrictInfo *) lfirst(lc);
		bool derived = false;
		ListCell *lr;
		foreach (lr, ranges)
			derived |= equal(ri->clause, lfirst(lr));
		if (!derived)
			kept = lappend(kept, ri);
	}
	parent->baserestrictinfo = kept;
}

void
geoidx_install_partition_prune(void)
{
	prev_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = prune_by_cells;
}
