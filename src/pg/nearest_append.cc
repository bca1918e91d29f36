/*
 * k-NN over a table partitioned on geoidx_cell(pos, level): the partitions in
 * order of how near they can be, each one's ordered scan started only once no
 * row of it can come before the rows already found.
 *
 * PostgreSQL answers ORDER BY pos <~> c LIMIT k over partitions with a Merge
 * Append, which starts every partition's ordered scan before it returns a row.
 * With 64 partitions that is 64 k-NN descents for the 10 rows one or two
 * partitions hold, and the far ones are the dear ones: far from c, the bounds
 * a search orders by are loose by the spheroid's slack (~0.5 %), so a far
 * partition computes the geodesic of every point near its edge before it can
 * name its nearest. A partition's bounds on the cell say where its points lie
 * (cell_region.h). This node, a Custom Scan over the Merge Append's own
 * children, starts a child only when its region's lower bound is no more than
 * the nearest row pending among the children started: the same rows in the
 * same order as the Merge Append, from the few partitions near c.
 *
 * The planner side adds the node beside each Merge Append ordered by
 * col <~> centre, or by col <~~> centre (what PostGIS's
 * col::geography <-> centre::geography becomes; metres on the sphere), the
 * centre free of the table's columns, whose children have
 * cell bounds on col; a child without (the default partition, a hash
 * partition) has a bound of 0 and starts at once. It costs the start of one
 * child, not of all, so a LIMIT picks it, and nothing else changes.
 */
#include <limits>

#include "cell_region.h"
#include "cells.h"
#include "geoidx.h"
#include "region_order.h"

extern "C"
{
#include "access/stratnum.h"
#include "catalog/pg_opfamily_d.h"
#include "catalog/pg_type_d.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/partcache.h"
}

namespace
{

constexpr const char *kNodeName = "GeoidxNearestAppend";
/* What a bad centre raises: the index scan's own words, so that both fail alike. */
constexpr const char *kCentreWhat = "the geometry to order by distance to";

create_upper_paths_hook_type prev_upper_hook = NULL;

/* ---- the region of one partition, from its partition constraint ---- */

/* What the conjuncts on geoidx_cell(col, level) of one partition constraint allow. */
struct CellConstraint
{
	int level; /* -1: none seen */
	uint64 lo; /* cells in [lo, hi) */
	uint64 hi;
	List *listed; /* the only cells allowed, if listed_any: int8 Consts */
	bool listed_any;
};

/* Return the level of e if it is geoidx_cell(Var attno, level constant), else -1. */
int
cell_call_level(const GeoidxCatalog &o, Node *e, AttrNumber attno)
{
	Var *col;
	int level = geoidx_cell_call(o, e, &col);
	return level >= 0 && col->varattno == attno && col->varlevelsup == 0 ? level : -1;
}

/* Start constraining at level (a finer level than the one seen replaces it: either bounds). */
bool
use_level(CellConstraint *c, int level)
{
	if (level < c->level)
		return false;
	if (level > c->level)
	{
		c->level = level;
		c->lo = 0;
		c->hi = geoidx::cells_at_level(level);
		c->listed = NIL;
		c->listed_any = false;
	}
	return true;
}

/* Narrow c by one comparison cell <op> v, op of int8's btree family. */
void
narrow(CellConstraint *c, int strategy, int64 v)
{
	uint64 below = v < 0 ? 0 : (uint64) v;     /* the first cell >= v */
	uint64 after = v < 0 ? 0 : (uint64) v + 1; /* the first cell > v */
	switch (strategy)
	{
		case BTGreaterEqualStrategyNumber:
			c->lo = Max(c->lo, below);
			break;
		case BTGreaterStrategyNumber:
			c->lo = Max(c->lo, after);
			break;
		case BTLessStrategyNumber:
			c->hi = Min(c->hi, below);
			break;
		case BTLessEqualStrategyNumber:
			c->hi = Min(c->hi, after);
			break;
		default:
			break;
	}
}

/* Gather what the conjuncts of qual (ANDs flattened) say of geoidx_cell(attno, level). */
void
gather(const GeoidxCatalog &o, Node *qual, AttrNumber attno, CellConstraint *c)
{
	if (qual == NULL)
		return;
	if (is_andclause(qual))
	{
		ListCell *lc;
		foreach (lc, ((BoolExpr *) qual)->args)
			gather(o, (Node *) lfirst(lc), attno, c);
		return;
	}
	if (IsA(qual, OpExpr) && list_length(((OpExpr *) qual)->args) == 2)
	{
		OpExpr *op = (OpExpr *) qual;
		int level = cell_call_level(o, (Node *) linitial(op->args), attno);
		Node *k = (Node *) lsecond(op->args);
		if (level < 0 || !IsA(k, Const) || ((Const *) k)->constisnull ||
			((Const *) k)->consttype != INT8OID)
			return;
		int strategy = get_op_opfamily_strategy(op->opno, INTEGER_BTREE_FAM_OID);
		if (strategy == 0 || !use_level(c, level))
			return;
		int64 v = DatumGetInt64(((Const *) k)->constvalue);
		if (strategy == BTEqualStrategyNumber)
		{
			narrow(c, BTGreaterEqualStrategyNumber, v);
			narrow(c, BTLessEqualStrategyNumber, v);
		}
		else
			narrow(c, strategy, v);
		return;
	}
	if (IsA(qual, ScalarArrayOpExpr) && ((ScalarArrayOpExpr *) qual)->useOr)
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) qual;
		int level = cell_call_level(o, (Node *) linitial(sa->args), attno);
		Node *k = (Node *) lsecond(sa->args);
		if (level < 0 ||
			get_op_opfamily_strategy(sa->opno, INTEGER_BTREE_FAM_OID) != BTEqualStrategyNumber)
			return;
		/* the list as a partition bound writes it: an ARRAY[] of constants, or one constant */
		List *values = NIL;
		if (IsA(k, ArrayExpr))
		{
			ListCell *lc;
			foreach (lc, ((ArrayExpr *) k)->elements)
			{
				Node *e = (Node *) lfirst(lc);
				if (!IsA(e, Const) || ((Const *) e)->consttype != INT8OID)
					return;
				values = lappend(values, e);
			}
		}
		else if (IsA(k, Const) && !((Const *) k)->constisnull &&
				 ((Const *) k)->consttype == INT8ARRAYOID)
		{
			ArrayType *a = DatumGetArrayTypeP(((Const *) k)->constvalue);
			Datum *elems;
			bool *nulls;
			int count;
			deconstruct_array(a, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems,
							  &nulls, &count);
			for (int i = 0; i < count; i++)
				values = lappend(values, makeConst(INT8OID, -1, InvalidOid, sizeof(int64), elems[i],
												   nulls[i], FLOAT8PASSBYVAL));
		}
		else
			return;
		/* one list allowed: a second one (never made by partitioning) is left out */
		if (!use_level(c, level) || c->listed_any)
			return;
		c->listed_any = true;
		c->listed = values;
	}
}

/*
 * The region a partition on geoidx_cell(col, level) may hold, as a bytea of
 * boxes (n x 6 doubles) after their hull, or NULL where its constraint says
 * nothing of the cell (a default or hash partition, another key): that child
 * starts at once.
 */
bytea *
partition_region(const GeoidxCatalog &o, Oid child, const char *colname)
{
	AttrNumber attno = get_attnum(child, colname);
	if (attno == InvalidAttrNumber)
		return NULL;
	Expr *qual = get_partition_qual_relid(child);
	CellConstraint c = {-1, 0, 0, NIL, false};
	gather(o, (Node *) qual, attno, &c);
	if (c.level < 0)
		return NULL;
	geoidx::Box3 boxes[geoidx::kCellRegionBoxes];
	size_t n;
	if (c.listed_any)
	{
		uint64 *cells = (uint64 *) palloc(sizeof(uint64) * Max(list_length(c.listed), 1));
		int m = 0;
		ListCell *lc;
		foreach (lc, c.listed)
		{
			Const *k = (Const *) lfirst(lc);
			int64 v = DatumGetInt64(k->constvalue);
			if (!k->constisnull && v >= 0 && (uint64) v >= c.lo && (uint64) v < c.hi)
				cells[m++] = (uint64) v;
		}
		n = geoidx::cell_list_boxes(cells, (size_t) m, c.level, boxes, geoidx::kCellRegionBoxes);
	}
	else
		n = geoidx::cell_range_boxes(c.lo, c.hi, c.level, boxes, geoidx::kCellRegionBoxes);
	geoidx::Box3 hull = geoidx::region_hull(boxes, n);
	size_t bytes = (n + 1) * sizeof(geoidx::Box3);
	bytea *out = (bytea *) palloc(VARHDRSZ + bytes);
	SET_VARSIZE(out, VARHDRSZ + bytes);
	memcpy(VARDATA(out), &hull, sizeof(hull));
	memcpy(VARDATA(out) + sizeof(hull), boxes, n * sizeof(geoidx::Box3));
	return out;
}

/* ---- the path ---- */

extern const CustomPathMethods path_methods;
extern const CustomScanMethods scan_methods;
extern const CustomExecMethods exec_methods;

/* Whether opno orders by metres on the spheroid (<~>) or on the sphere (<~~>, the geography cast's
 * <->). */
bool
metres_ordering(const GeoidxCatalog &o, Oid opno, bool *use_spheroid)
{
	*use_spheroid = OidIsValid(o.distance_op[0]) && opno == o.distance_op[0];
	return *use_spheroid || (OidIsValid(o.sphere_knn_op) && opno == o.sphere_knn_op);
}

/* The parent's member of an ORDER BY pathkey: col <~> centre (or <~~>) on this rel, or NULL. */
OpExpr *
nearest_ordering(const GeoidxCatalog &o, PathKey *pk, RelOptInfo *rel, bool *use_spheroid)
{
	if (pk->pk_strategy != BTLessStrategyNumber || pk->pk_nulls_first)
		return NULL;
	ListCell *lc;
	foreach (lc, pk->pk_eclass->ec_members)
	{
		EquivalenceMember *em = (EquivalenceMember *) lfirst(lc);
		if (em->em_is_child || !bms_equal(em->em_relids, rel->relids))
			continue;
		Node *e = (Node *) em->em_expr;
		if (!IsA(e, OpExpr) || list_length(((OpExpr *) e)->args) != 2 ||
			!metres_ordering(o, ((OpExpr *) e)->opno, use_spheroid))
			continue;
		Node *col = (Node *) linitial(((OpExpr *) e)->args);
		Node *centre = (Node *) lsecond(((OpExpr *) e)->args);
		if (!IsA(col, Var) || ((Var *) col)->varno != (int) rel->relid ||
			((Var *) col)->varlevelsup != 0 || ((Var *) col)->varattno <= 0)
			continue;
		if (contain_var_clause(centre) || contain_volatile_functions(centre) ||
			contain_subplans(centre))
			continue;
		return (OpExpr *) e;
	}
	return NULL;
}

/* The 1-based position of e in the target, 0 if absent. */
int
target_position(PathTarget *target, Expr *e)
{
	int i = 1;
	ListCell *lc;
	foreach (lc, target->exprs)
	{
		if (equal(lfirst(lc), e))
			return i;
		i++;
	}
	return 0;
}

/*
 * A Nearest Append beside the Merge Append mp, if mp orders by col <~> centre
 * alone and at least one child has a cell region: its children are mp's,
 * sorted where mp would sort them.
 */
CustomPath *
nearest_append_path(PlannerInfo *root, const GeoidxCatalog &o, RelOptInfo *rel, MergeAppendPath *mp)
{
	if (list_length(mp->path.pathkeys) != 1 || mp->path.param_info != NULL || mp->subpaths == NIL)
		return NULL;
	PathKey *pk = (PathKey *) linitial(mp->path.pathkeys);
	bool use_spheroid;
	OpExpr *ordering = nearest_ordering(o, pk, rel, &use_spheroid);
	if (ordering == NULL)
		return NULL;
	int sortcol = target_position(mp->path.pathtarget, (Expr *) ordering);
	if (sortcol == 0)
		return NULL;
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
	char *colname = get_attname(rte->relid, ((Var *) linitial(ordering->args))->varattno, true);
	if (colname == NULL)
		return NULL;

	List *children = NIL, *regions = NIL;
	bool any_region = false;
	Cost startup = 0.0;
	ListCell *lc;
	foreach (lc, mp->subpaths)
	{
		Path *sub = (Path *) lfirst(lc);
		RelOptInfo *child = sub->parent;
		if (child->reloptkind != RELOPT_OTHER_MEMBER_REL || child->relid == 0)
			return NULL;
		if (!pathkeys_contained_in(mp->path.pathkeys, sub->pathkeys))
			sub = (Path *) create_sort_path(root, child, sub, mp->path.pathkeys, -1.0);
		children = lappend(children, sub);
		startup = Max(startup, sub->startup_cost);
		bytea *region = partition_region(o, planner_rt_fetch(child->relid, root)->relid, colname);
		any_region |= region != NULL;
		regions = lappend(regions, region != NULL ? makeConst(BYTEAOID, -1, InvalidOid, -1,
															  PointerGetDatum(region), false, false)
												  : makeNullConst(BYTEAOID, -1, InvalidOid));
	}
	if (!any_region)
		return NULL;

	CustomPath *cp = makeNode(CustomPath);
	cp->path.pathtype = T_CustomScan;
	cp->path.parent = rel;
	cp->path.pathtarget = mp->path.pathtarget;
	cp->path.param_info = NULL;
	cp->path.parallel_aware = false;
	cp->path.parallel_safe = false;
	cp->path.parallel_workers = 0;
	cp->path.rows = mp->path.rows;
	/*
	 * The nearest child's start, not every child's: the one child sure to
	 * start is charged as the dearest; the others' bounds a few operators each.
	 */
	double n = list_length(children);
	cp->path.startup_cost = startup + n * geoidx::kCellRegionBoxes * cpu_operator_cost;
	cp->path.total_cost = Max(mp->path.total_cost, cp->path.startup_cost);
	cp->path.pathkeys = mp->path.pathkeys;
	cp->flags = 0;
	cp->custom_paths = children;
	cp->custom_private = list_make4(makeInteger(sortcol), copyObjectImpl(lsecond(ordering->args)),
									regions, makeBoolean(use_spheroid));
	cp->methods = &path_methods;
	return cp;
}

/* Add to the ORDER BY's rel a Nearest Append beside each Merge Append that can have one. */
void
nearest_append_upper_paths(PlannerInfo *root, UpperRelationKind stage, RelOptInfo *input_rel,
						   RelOptInfo *output_rel, void *extra)
{
	if (prev_upper_hook)
		prev_upper_hook(root, stage, input_rel, output_rel, extra);
	if (stage != UPPERREL_ORDERED || input_rel->reloptkind != RELOPT_BASEREL ||
		root->sort_pathkeys == NIL)
		return;
	const GeoidxCatalog &o = geoidx_catalog_if_present();
	if (!o.present || !OidIsValid(o.cell_fn))
		return;
	PathTarget *target = root->upper_targets[UPPERREL_ORDERED];
	List *found = NIL;
	ListCell *lc;
	foreach (lc, input_rel->pathlist)
		if (IsA(lfirst(lc), MergeAppendPath))
		{
			CustomPath *cp =
				nearest_append_path(root, o, input_rel, (MergeAppendPath *) lfirst(lc));
			if (cp != NULL)
				found = lappend(found, cp);
		}
	foreach (lc, found)
	{
		Path *path = (Path *) lfirst(lc);
		/*
		 * ORDER BY pos <~> c, id has no such path: PostgreSQL orders an index
		 * scan by an operator only when the index gives the whole ORDER BY.
		 */
		if (!pathkeys_contained_in(root->sort_pathkeys, path->pathkeys))
			continue;
		if (target != NULL && path->pathtarget != target)
			path = apply_projection_to_path(root, output_rel, path, target);
		add_path(output_rel, path);
	}
}

/* ---- the plan ---- */

Plan *
plan_nearest_append(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist,
					List *clauses, List *custom_plans)
{
	(void) root;
	(void) rel;
	(void) clauses; /* the children apply the table's conditions */
	CustomScan *cs = makeNode(CustomScan);
	cs->scan.plan.targetlist = tlist;
	cs->scan.plan.qual = NIL;
	cs->scan.scanrelid = 0;
	/* the children's tuples are passed up as they are: the same columns, in this order */
	cs->custom_scan_tlist = (List *) copyObjectImpl(tlist);
	cs->custom_plans = custom_plans;
	cs->custom_exprs = NIL;
	/*
	 * The centre stays out of custom_exprs, which setrefs would match against
	 * the target list (a centre equal to an output column would become a
	 * reference to a tuple not yet read). Its parameters reach this node's
	 * extParam through the children, which order by the same centre.
	 */
	Node *centre = (Node *) lsecond(best_path->custom_private);
	fix_opfuncids(centre);
	cs->custom_private = best_path->custom_private;
	cs->flags = best_path->flags;
	cs->methods = &scan_methods;
	return &cs->scan.plan;
}

/* ---- execution ---- */

struct NearestChild
{
	Plan *plan;
	PlanState *ps;        /* NULL until first started */
	TupleTableSlot *head; /* its next row, while on the heap */
	double dist;          /* that row's distance; +inf for NULL */
};

struct NearestAppendState
{
	CustomScanState css;
	int n;
	NearestChild *children;
	AttrNumber sortcol;
	bool use_spheroid; /* <~> orders by the spheroid's metres, <~~> by the sphere's */
	ExprState *centre;
	bool ready;                  /* the order of the children set for this scan */
	geoidx::RegionRef *regions;  /* each child's, from the plan */
	geoidx::RegionSlot *waiting; /* the order's storage: 2 n slots */
	geoidx::RegionOrder order;   /* the children not started, nearest bound first */
	int *heap;                   /* started children with a head, nearest head first */
	int heap_n;
	int last;     /* the child whose row was returned last, to advance; -1 */
	int64 starts; /* children started, over every scan (EXPLAIN ANALYZE) */
	int eflags;   /* what the children are initialized with */
};

Node *
create_nearest_append_state(CustomScan *cs)
{
	NearestAppendState *s = (NearestAppendState *) palloc0(sizeof(NearestAppendState));
	NodeSetTag(s, T_CustomScanState);
	s->css.methods = &exec_methods;
	(void) cs;
	return (Node *) s;
}

/* Initialize child i (once per execution of the plan). */
void
init_child(NearestAppendState *s, int i)
{
	EState *estate = s->css.ss.ps.state;
	MemoryContext old = MemoryContextSwitchTo(estate->es_query_cxt);
	s->children[i].ps = ExecInitNode(s->children[i].plan, estate, s->eflags);
	s->css.custom_ps = lappend(s->css.custom_ps, s->children[i].ps);
	MemoryContextSwitchTo(old);
}

void
begin_nearest_append(CustomScanState *node, EState *estate, int eflags)
{
	NearestAppendState *s = (NearestAppendState *) node;
	CustomScan *cs = (CustomScan *) node->ss.ps.plan;
	/* the children's slots are passed up: of whatever kind the children make */
	node->ss.ps.resultopsfixed = false;
	s->eflags = eflags;
	s->sortcol = (AttrNumber) intVal(linitial(cs->custom_private));
	s->centre = ExecInitExpr((Expr *) lsecond(cs->custom_private), &node->ss.ps);
	List *regions = (List *) lthird(cs->custom_private);
	s->use_spheroid = boolVal(lfourth(cs->custom_private));
	s->n = list_length(cs->custom_plans);
	s->children = (NearestChild *) palloc0(sizeof(NearestChild) * s->n);
	s->regions = (geoidx::RegionRef *) palloc0(sizeof(geoidx::RegionRef) * s->n);
	s->waiting = (geoidx::RegionSlot *) palloc(sizeof(geoidx::RegionSlot) * 2 * s->n);
	s->heap = (int *) palloc(sizeof(int) * s->n);
	for (int i = 0; i < s->n; i++)
	{
		s->children[i].plan = (Plan *) list_nth(cs->custom_plans, i);
		Const *r = (Const *) list_nth(regions, i);
		geoidx::RegionRef *ref = &s->regions[i];
		ref->known = !r->constisnull;
		if (ref->known)
		{
			/* the hull, then the boxes (partition_region) */
			bytea *b = DatumGetByteaPP(r->constvalue);
			const geoidx::Box3 *boxes = (const geoidx::Box3 *) VARDATA_ANY(b);
			ref->hull = boxes[0];
			ref->boxes = boxes + 1;
			ref->n = VARSIZE_ANY_EXHDR(b) / sizeof(geoidx::Box3) - 1;
		}
	}
	/*
	 * EXPLAIN shows every child, as under a Merge Append (and EXPLAIN ANALYZE
	 * the ones never started as never executed); a query starts them lazily.
	 */
	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) || estate->es_instrument)
		for (int i = 0; i < s->n; i++)
			init_child(s, i);
	s->ready = false;
	s->last = -1;
	s->heap_n = 0;
}

/* Whether child a's head comes before child b's. */
bool
head_before(const NearestAppendState *s, int a, int b)
{
	double da = s->children[a].dist, db = s->children[b].dist;
	return da < db || (da == db && a < b);
}

void
heap_push(NearestAppendState *s, int child)
{
	int i = s->heap_n++;
	while (i > 0)
	{
		int up = (i - 1) / 2;
		if (!head_before(s, child, s->heap[up]))
			break;
		s->heap[i] = s->heap[up];
		i = up;
	}
	s->heap[i] = child;
}

int
heap_pop(NearestAppendState *s)
{
	int top = s->heap[0];
	int moving = s->heap[--s->heap_n];
	int i = 0;
	for (;;)
	{
		int l = 2 * i + 1;
		if (l >= s->heap_n)
			break;
		int c = l + 1 < s->heap_n && head_before(s, s->heap[l + 1], s->heap[l]) ? l + 1 : l;
		if (!head_before(s, s->heap[c], moving))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->heap_n > 0)
		s->heap[i] = moving;
	return top;
}

/* Read child i's next row; onto the heap if there is one. */
void
advance(NearestAppendState *s, int i)
{
	NearestChild *c = &s->children[i];
	TupleTableSlot *slot = ExecProcNode(c->ps);
	if (TupIsNull(slot))
		return;
	bool isnull;
	Datum d = slot_getattr(slot, s->sortcol, &isnull);
	c->head = slot;
	c->dist = isnull ? std::numeric_limits<double>::infinity() : DatumGetFloat8(d);
	heap_push(s, i);
}

/*
 * Set this scan's order of the children: by each region's distance from the
 * centre, worked out as far as the scan asks (region_order.h). A NULL or
 * EMPTY centre orders nothing (every distance is NULL): every child is at 0.
 * A shape is searched around its box's centre less the box's reach, as the
 * index scan does.
 */
void
prepare_scan(NearestAppendState *s)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	bool isnull;
	Datum d = ExecEvalExprSwitchContext(s->centre, econtext, &isnull);
	bool have = false;
	geoidx::Vec3 q{};
	double slack = 0.0;
	if (!isnull)
	{
		GeoidxPoint p;
		geoidx_decode_any(d, kCentreWhat, &p);
		if (!p.empty)
		{
			geoidx::LonLat ll;
			if (p.shape)
			{
				ll = geoidx::LonLat{p.x, p.y};
				slack = geoidx_shape_reach_metres(&p);
			}
			else
				geoidx_point_unit(&p, kCentreWhat, &ll, NULL);
			q = geoidx::unit_vector(geoidx::geographic_point(ll));
			have = true;
		}
	}
	ResetExprContext(econtext);
	geoidx::region_order_start(&s->order, s->regions, (size_t) s->n, have ? &q : NULL,
							   s->use_spheroid, slack, s->waiting, s->waiting + s->n);
	s->heap_n = 0;
	s->last = -1;
	s->ready = true;
}

TupleTableSlot *
exec_nearest_append(CustomScanState *node)
{
	NearestAppendState *s = (NearestAppendState *) node;
	if (!s->ready)
		prepare_scan(s);
	if (s->last >= 0)
	{
		advance(s, s->last);
		s->last = -1;
	}
	/* start every child that may hold a row before the nearest one pending */
	size_t next;
	double bound;
	while (geoidx::region_order_next(&s->order, &next, &bound) &&
		   (s->heap_n == 0 || bound <= s->children[s->heap[0]].dist))
	{
		geoidx::region_order_take(&s->order);
		int i = (int) next;
		if (s->children[i].ps == NULL)
			init_child(s, i);
		s->starts++;
		advance(s, i);
	}
	if (s->heap_n == 0)
		return ExecClearTuple(node->ss.ps.ps_ResultTupleSlot);
	s->last = heap_pop(s);
	return s->children[s->last].head;
}

void
end_nearest_append(CustomScanState *node)
{
	NearestAppendState *s = (NearestAppendState *) node;
	for (int i = 0; i < s->n; i++)
		if (s->children[i].ps != NULL)
			ExecEndNode(s->children[i].ps);
}

void
rescan_nearest_append(CustomScanState *node)
{
	NearestAppendState *s = (NearestAppendState *) node;
	for (int i = 0; i < s->n; i++)
	{
		PlanState *ps = s->children[i].ps;
		if (ps == NULL)
			continue;
		if (node->ss.ps.chgParam != NULL)
			UpdateChangedParamSet(ps, node->ss.ps.chgParam);
		/* a child with changed parameters rescans itself when next read */
		if (ps->chgParam == NULL)
			ExecReScan(ps);
	}
	s->ready = false;
}

void
explain_nearest_append(CustomScanState *node, List *ancestors, ExplainState *es)
{
	(void) ancestors;
	NearestAppendState *s = (NearestAppendState *) node;
	ExplainPropertyInteger("Partitions", NULL, s->n, es);
	if (es->analyze)
		ExplainPropertyInteger("Partitions Started", NULL, s->starts, es);
}

const CustomPathMethods path_methods = {kNodeName, plan_nearest_append, NULL};

const CustomScanMethods scan_methods = {kNodeName, create_nearest_append_state};

const CustomExecMethods exec_methods = {
	kNodeName,
	begin_nearest_append,
	exec_nearest_append,
	end_nearest_append,
	rescan_nearest_append,
	NULL, /* MarkPosCustomScan */
	NULL, /* RestrPosCustomScan */
	NULL, /* EstimateDSMCustomScan */
	NULL, /* InitializeDSMCustomScan */
	NULL, /* ReInitializeDSMCustomScan */
	NULL, /* InitializeWorkerCustomScan */
	NULL, /* ShutdownCustomScan */
	explain_nearest_append,
};

} // namespace

void
geoidx_install_nearest_append(void)
{
	RegisterCustomScanMethods(&scan_methods);
	prev_upper_hook = create_upper_paths_hook;
	create_upper_paths_hook = nearest_append_upper_paths;
}
