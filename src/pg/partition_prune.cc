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
 * which PostgreSQL's pruning reads when it builds the Append (at plan time
 * for constants, when the executor starts for parameters). The partitions
 * never see it (their conditions were copied from the table's before it), so
 * no row pays for it, and no estimate changes. The ranges are a superset of
 * the covering (src/core/cell_region.h): a partition too many, never one too
 * few.
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
	Oid op = lower ? o.int8_ge_op : o.int8_lt_op;
	return make_opclause(op, BOOLOID, false, (Expr *) copyObjectImpl(key), bound, InvalidOid,
						 InvalidOid);
}

void
prune_by_cells(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	if (prev_pathlist_hook)
		prev_pathlist_hook(root, rel, rti, rte);
	if (!rte->inh || rte->relkind != RELKIND_PARTITIONED_TABLE || !enable_partition_pruning ||
		rel->baserestrictinfo == NIL || IS_DUMMY_REL(rel))
		return;
	const GeoidxCatalog &o = geoidx_catalog_if_present();
	if (!o.present || !OidIsValid(o.cell_fn) || !OidIsValid(o.covering_bound_fn) ||
		!OidIsValid(o.within_op[0]))
		return;
	int level;
	Var *col = geoidx_cell_partition_key(o, rel, &level);
	if (col == NULL || rel->part_scheme->strategy != PARTITION_STRATEGY_RANGE)
		return;
	Node *key = (Node *) linitial(rel->partexprs[0]);
	List *added = NIL;
	ListCell *lc;
	foreach (lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = (RestrictInfo *) lfirst(lc);
		Expr *region = ri->pseudoconstant ? NULL : region_of(o, ri->clause, col);
		if (region == NULL)
			continue;
		List *arms = NIL;
		for (int i = 0; i < (int) geoidx::kPruneRanges; i++)
			arms = lappend(arms, make_andclause(list_make2(
									 key_bound(o, key, region, level, 2 * i, true),
									 key_bound(o, key, region, level, 2 * i + 1, false))));
		added = lappend(added, make_simple_restrictinfo(root, make_orclause(arms)));
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
	region_ranges(c, level);
	if (cache.n == 0)
		PG_RETURN_INT64(-1); /* [-1, -1): no cell */
	/* a range past the last repeats the first: an empty one would keep a MINVALUE partition */
	size_t r = (size_t) (i / 2) < cache.n ? (size_t) (i / 2) : 0;
	PG_RETURN_INT64((int64) (i % 2 == 0 ? cache.lo[r] : cache.hi[r]));
}

void
geoidx_install_partition_prune(void)
{
	prev_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = prune_by_cells;
}
