/*
 * Spellings the index cannot see, rewritten into ones it can.
 *
 * PostgreSQL matches an index condition only when one side of an operator is
 * the indexed column: in `pos <~> c > 1234.5` the column sits inside the left
 * side, so the comparison can never be an index condition by itself, and
 * `NOT geoidx_dwithin(...)` is a NOT, not a function a support function could
 * answer for. So, before the planner distributes the WHERE and JOIN ... ON
 * conditions to the tables (get_relation_info_hook runs first, once per table;
 * the first query of a session that reaches a geoidx index loads this library
 * while opening it, so the hook is in place before that query's conditions are
 * distributed), top-level AND-ed conditions of the form
 *
 *   a <~> b >  x   ->  geoidx_beyond(a, b, x, false)    (also x <  a <~> b)
 *   a <~> b >= x   ->  geoidx_beyond(a, b, x, true)     (also x <= a <~> b)
 *   a <~> b <  x   ->  geoidx_nearer(a, b, x, false)    (also x >  a <~> b)
 *   a <~> b <= x   ->  geoidx_nearer(a, b, x, true)     (also x >= a <~> b)
 *   NOT geoidx_dwithin(a, b, r, s)  ->  geoidx_outside(a, b, r, s)
 *   col = ANY(array), col IN (...)  ->  col <@ array      (see rewrite_in)
 *   flag, NOT flag                  ->  flag = true, flag = false (a bool column)
 *   geoidx_dwithin(col, c, r, s)    ->  col <@ geoidx_circle(c, r, s), and the index
 *                                       conditions of the calls above likewise, where the
 *                                       index decides them exactly (rewrite_to_index_condition)
 *
 * and, where geoidx.rewrite_postgis is on (the default), PostGIS's planar
 * predicates on a column that leads a geoidx index, with the other argument
 * known before the scan, become geoidx's operators of them:
 *
 *   ST_Contains(col, g)    ->  col ##@> g     ST_Within(g, col)  ->  g ##<@ col
 *   ST_Covers(col, g)      ->  col ##~@> g
 *   ST_Intersects(col, g)  ->  col ##&& g     (and g ##&& col)
 *   ST_Within(col, g), ST_Contains(g, col), ST_Covers(g, col), ST_CoveredBy
 *   (either side), ST_DWithin(col, g, degrees) (either side)
 *                          ->  geoidx_planar_within(col, g), ... (the same call)
 *
 * Each operator's function is the PostGIS call with the arguments as written
 * (planar_functions.cc), so the value and any error are PostGIS's; the
 * operators are in geoidx's operator family (##<@ and g ##&& col through their
 * commutators), so they are index conditions, which the index decides from a
 * zone's planar grid where it can and rechecks elsewhere (scan_probe.cc). The
 * functions' support gives the index PostGIS's own box condition of the call
 * (col @ g, col ~ g, col && ST_Expand(g, d)), as PostGIS gives it to GiST,
 * and the call stays as the filter (planar_support.cc). PostGIS's box
 * operators themselves (col && box, the map viewport) need no rewrite: they
 * are in geoidx's family (scan_box.cc).
 *
 * and, under the same setting, PostGIS's geography forms (ST_DWithin,
 * ST_Distance, ST_Intersects, ST_Covers, ST_CoveredBy of col::geography or of
 * a geography column, in a condition or an ORDER BY) become geoidx's calls of
 * them (rewrite_geography.cc),
 *
 * are replaced, in the query being planned only. Each replacement computes
 * the same value as what it replaces for every input, NULL included (see
 * regions.cc), so the rewrite is safe wherever it applies, index or not; the
 * support functions of the new calls then make them index conditions.
 *
 * Nothing is looked up through search_path, and the hook does nothing (no
 * error, no catalog access beyond cached lookups) in a database without geoidx.
 */
#include "geoidx.h"

extern "C"
{
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace_d.h"
#include "catalog/pg_index.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/plancat.h"
#include "optimizer/tlist.h"
#include "utils/rel.h"
#include "utils/guc.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "partitioning/partdesc.h"
#include "utils/partcache.h"
#include "utils/relcache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
}

namespace
{

get_relation_info_hook_type prev_hook = NULL;

enum Cmp
{
	kNone,
	kGt,
	kGe,
	kLt,
	kLe
};

/* Return the type (0 geometry, 1 geography) of geoidx's <~> if n is a call of it, else -1. */
int
distance_call(const GeoidxCatalog &o, Node *n)
{
	if (n == NULL || !IsA(n, OpExpr) || list_length(((OpExpr *) n)->args) != 2)
		return -1;
	Oid op = ((OpExpr *) n)->opno;
	for (int g = 0; g < 2; g++)
		if (OidIsValid(o.distance_op[g]) && op == o.distance_op[g])
			return g;
	return -1;
}

/* Return which float8 comparison opno is, or kNone. */
Cmp
comparison(const GeoidxCatalog &o, Oid opno)
{
	for (int c = kGt; c <= kLe; c++)
		if (OidIsValid(o.float8_cmp[c - kGt]) && opno == o.float8_cmp[c - kGt])
			return (Cmp) c;
	return kNone;
}

/* Return the comparison with its operands swapped (x < d is d > x). */
Cmp
mirrored(Cmp c)
{
	switch (c)
	{
		case kGt:
			return kLt;
		case kGe:
			return kLe;
		case kLt:
			return kGt;
		case kLe:
			return kGe;
		default:
			return kNone;
	}
}

/* Rewrite `dist cmp bound` as a geoidx_beyond / geoidx_nearer call, or return NULL. */
Node *
rewrite_comparison(const GeoidxCatalog &o, OpExpr *op)
{
	if (list_length(op->args) != 2)
		return NULL;
	Cmp c = comparison(o, op->opno);
	if (c == kNone)
		return NULL;
	Node *l = (Node *) linitial(op->args), *r = (Node *) lsecond(op->args);
	Node *dist, *bound;
	int g;
	if ((g = distance_call(o, l)) >= 0)
	{
		dist = l;
		bound = r;
	}
	else if ((g = distance_call(o, r)) >= 0)
	{
		dist = r;
		bound = l;
		c = mirrored(c);
	}
	else
		return NULL;
	bool beyond = (c == kGt || c == kGe);
	bool inclusive = (c == kGe || c == kLe);
	Oid fn = beyond ? o.beyond_fn[g] : o.nearer_fn[g];
	if (!OidIsValid(fn))
		return NULL;
	OpExpr *d = (OpExpr *) dist;
	List *args =
		list_make4(linitial(d->args), lsecond(d->args), bound, makeBoolConst(inclusive, false));
	FuncExpr *f = makeFuncExpr(fn, BOOLOID, args, InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	f->location = op->location;
	return (Node *) f;
}

/* Rewrite NOT geoidx_dwithin(a, b, r, s) as geoidx_outside(a, b, r, s), or return NULL. */
Node *
rewrite_not(const GeoidxCatalog &o, BoolExpr *b)
{
	if (b->boolop != NOT_EXPR || list_length(b->args) != 1 || !IsA(linitial(b->args), FuncExpr))
		return NULL;
	FuncExpr *call = (FuncExpr *) linitial(b->args);
	for (int g = 0; g < 2; g++)
		if (OidIsValid(o.dwithin_fn[g]) && call->funcid == o.dwithin_fn[g] &&
			OidIsValid(o.outside_fn[g]) && list_length(call->args) == 4)
		{
			FuncExpr *f = makeFuncExpr(o.outside_fn[g], BOOLOID, list_copy(call->args), InvalidOid,
									   InvalidOid, COERCE_EXPLICIT_CALL);
			f->location = call->location;
			return (Node *) f;
		}
	return NULL;
}

/*
 * Call visit(am, index tuple) for each index of the table, read from the
 * relcache and syscache, not from the planner's index list: a partitioned
 * table's (partitioned) indexes are not in it, and its partitions inherit the
 * rewrites from it.
 */
template <class Visit>
void
each_index(Oid relid, Visit visit)
{
	Relation r = RelationIdGetRelation(relid);
	if (r == NULL)
		return;
	List *indexes = RelationGetIndexList(r);
	RelationClose(r);
	ListCell *lc;
	foreach (lc, indexes)
	{
		Oid ix = lfirst_oid(lc);
		HeapTuple ctup = SearchSysCache1(RELOID, ObjectIdGetDatum(ix));
		if (!HeapTupleIsValid(ctup))
			continue;
		Oid am = ((Form_pg_class) GETSTRUCT(ctup))->relam;
		ReleaseSysCache(ctup);
		HeapTuple itup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(ix));
		if (!HeapTupleIsValid(itup))
			continue;
		visit(am, itup);
		ReleaseSysCache(itup);
	}
	list_free(indexes);
}

/* Whether attno is in the partition key of a partitioned table (a column, or in an expression). */
bool
partition_key_column(Oid relid, AttrNumber attno)
{
	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		return false;
	Relation r = RelationIdGetRelation(relid);
	if (r == NULL)
		return false;
	bool found = false;
	PartitionKey key = RelationGetPartitionKey(r);
	for (int i = 0; key != NULL && i < key->partnatts; i++)
		if (key->partattrs[i] == attno)
			found = true;
	if (key != NULL && key->partexprs != NIL)
	{
		Bitmapset *cols = NULL;
		pull_varattnos((Node *) key->partexprs, 1, &cols);
		if (bms_is_member(attno - FirstLowInvalidHeapAttributeNumber, cols))
			found = true;
	}
	RelationClose(r);
	return found;
}

/*
 * Whether attno is the distribution column of a Citus table: Citus prunes
 * shards on the conditions as written (col IN (...) to the shards of those
 * values), and never on geoidx's operators. Read from Citus's catalog
 * pg_dist_partition (partkey is the column as a node string) when it is
 * there, with no Citus header or library.
 */
bool
citus_distribution_column(Oid relid, AttrNumber attno)
{
	Oid catalog = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	if (!OidIsValid(catalog))
		return false;
	AttrNumber relid_att = get_attnum(catalog, "logicalrelid");
	AttrNumber key_att = get_attnum(catalog, "partkey");
	if (relid_att == InvalidAttrNumber || key_att == InvalidAttrNumber)
		return false;
	Relation cat = table_open(catalog, AccessShareLock);
	ScanKeyData skey;
	ScanKeyInit(&skey, relid_att, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	SysScanDesc scan = systable_beginscan(cat, InvalidOid, false, NULL, 1, &skey);
	bool found = false;
	HeapTuple tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool isnull;
		Datum d = heap_getattr(tup, key_att, RelationGetDescr(cat), &isnull);
		if (!isnull)
		{
			Node *key = (Node *) stringToNode(TextDatumGetCString(d));
			found = key != NULL && IsA(key, Var) && ((Var *) key)->varattno == attno;
		}
	}
	systable_endscan(scan);
	table_close(cat, AccessShareLock);
	return found;
}

/*
 * geoidx_filter_only_column: whether attno is a key column after the point of
 * a geoidx index of the table and a key column of no other index, on a table
 * without partial indexes (filter_only_in_indexes), and neither a partition
 * key nor a Citus distribution column: pruning, which runs on the conditions
 * as written, must keep seeing col IN (...) there.
 */
bool
filter_only_in_indexes(const GeoidxCatalog &o, Oid relid, AttrNumber attno)
{
	bool in_geoidx = false, elsewhere = false;
	each_index(relid,
			   [&](Oid am, HeapTuple itup)
			   {
				   Form_pg_index form = (Form_pg_index) GETSTRUCT(itup);
				   /*
					* A partial index's predicate is proved from the conditions as written
					* (flag, cat IN (...)); a rewritten one might no longer prove it.
					*/
				   if (!heap_attisnull(itup, Anum_pg_index_indpred, NULL))
					   elsewhere = true;
				   for (int k = 0; k < form->indnkeyatts; k++)
					   if (form->indkey.values[k] == attno)
					   {
						   if (am == o.geoidx_am && k > 0)
							   in_geoidx = true;
						   else
							   elsewhere = true;
					   }
			   });
	return in_geoidx && !elsewhere;
}

bool
geoidx_filter_only_column(const GeoidxCatalog &o, Oid relid, AttrNumber attno)
{
	return !partition_key_column(relid, attno) && !citus_distribution_column(relid, attno) &&
		   filter_only_in_indexes(o, relid, attno);
}

/*
 * Rewrite col = ANY(array) (and col IN (...)) as col <@ array, or return NULL: only for a
 * column of this table that a geoidx index keeps after its point and that no
 * other index of the table has as a key (a btree on it wants = ANY as it is),
 * with the column type's own equality and an array of that type. PostgreSQL 15
 * would otherwise leave = ANY on a column after the first out of an ordered
 * (k-NN) scan; col <@ array is an ordinary index condition. pruned: the
 * partitions of a partitioned table, after pruning (rewrite_pruned_keys).
 */
Node *
rewrite_in(const GeoidxCatalog &o, ScalarArrayOpExpr *saop, RelOptInfo *rel, Oid relid,
		   bool pruned = false)
{
	if (!saop->useOr || list_length(saop->args) != 2 || !OidIsValid(o.in_op) || rel == NULL)
		return NULL;
	Node *l = (Node *) linitial(saop->args);
	Node *arr = (Node *) lsecond(saop->args);
	if (!IsA(l, Var))
		return NULL;
	Var *v = (Var *) l;
	if ((Index) v->varno != rel->relid || v->varlevelsup != 0 || v->varattno <= 0)
		return NULL;
	TypeCacheEntry *tc = lookup_type_cache(v->vartype, TYPECACHE_EQ_OPR);
	if (saop->opno != tc->eq_opr || get_element_type(exprType(arr)) != v->vartype)
		return NULL;
	if (!(pruned ? filter_only_in_indexes(o, relid, v->varattno)
				 : geoidx_filter_only_column(o, relid, v->varattno)))
		return NULL;
	OpExpr *op = (OpExpr *) make_opclause(o.in_op, BOOLOID, false, (Expr *) l, (Expr *) arr,
										  InvalidOid, saop->inputcollid);
	op->location = saop->location;
	return (Node *) op;
}

/* Whether a partition of the partitioned table is partitioned itself. */
bool
has_partitioned_partition(Oid relid)
{
	Relation r = RelationIdGetRelation(relid);
	if (r == NULL)
		return true;
	PartitionDesc desc = RelationGetPartitionDesc(r, true);
	bool found = false;
	for (int i = 0; desc != NULL && i < desc->nparts; i++)
		if (get_rel_relkind(desc->oids[i]) == RELKIND_PARTITIONED_TABLE)
			found = true;
	RelationClose(r);
	return found;
}

/*
 * The partitions of a partitioned table: its conditions keep col IN (...) on
 * a partition key for pruning (geoidx_filter_only_column), and each partition
 * is given them, translated, right after this hook runs for it. Plan-time
 * pruning is over by then, so an IN with a constant array (or with a whole
 * array as a parameter, which pruning never reads) becomes col <@ array in
 * the parent's condition, and each partition's geoidx index gets it as an
 * index condition (the filtered k-NN of a tenant within a hash partition).
 * Left as written: a list with parameters (col IN ($1, $2)), which run-time
 * pruning reads, and a parent with partitioned partitions, which prune on
 * the translated conditions in turn.
 */
void
rewrite_pruned_keys(const GeoidxCatalog &o, PlannerInfo *root, RelOptInfo *rel)
{
	if (rel == NULL || rel->reloptkind != RELOPT_OTHER_MEMBER_REL ||
		root->append_rel_array == NULL || root->append_rel_array[rel->relid] == NULL)
		return;
	Index parent_index = root->append_rel_array[rel->relid]->parent_relid;
	RelOptInfo *parent = root->simple_rel_array[parent_index];
	RangeTblEntry *parent_rte = root->simple_rte_array[parent_index];
	if (parent == NULL || parent->part_scheme == NULL || parent_rte->rtekind != RTE_RELATION)
		return;
	/*
	 * This runs once a partition: the catalog checks come after the cheap
	 * shape test, so that a parent without such an IN costs nothing more
	 * per partition (the partition list's walk was 64 x 64 lookups a plan).
	 */
	ListCell *lc;
	foreach (lc, parent->baserestrictinfo)
	{
		RestrictInfo *rinfo = (RestrictInfo *) lfirst(lc);
		if (!IsA(rinfo->clause, ScalarArrayOpExpr))
			continue;
		ScalarArrayOpExpr *saop = (ScalarArrayOpExpr *) rinfo->clause;
		if (list_length(saop->args) != 2 || IsA(lsecond(saop->args), ArrayExpr) ||
			!IsA(linitial(saop->args), Var) ||
			!partition_key_column(parent_rte->relid, ((Var *) linitial(saop->args))->varattno) ||
			has_partitioned_partition(parent_rte->relid))
			continue;
		Node *r = rewrite_in(o, saop, parent, parent_rte->relid, true);
		if (r != NULL)
			rinfo->clause = (Expr *) r;
	}
}

/*
 * Rewrite a boolean column of this table as itself (flag) or negated (NOT flag), as
 * flag = true / flag = false, or NULL: PostgreSQL folds flag = true into flag
 * before any index sees it, and only its own boolean operator families match
 * that shape. Same scope as rewrite_in; NULL stays NULL either way.
 */
Node *
rewrite_bool_column(const GeoidxCatalog &o, Node *n, RelOptInfo *rel, Oid relid)
{
	bool value = true;
	if (is_notclause(n))
	{
		n = (Node *) get_notclausearg((Expr *) n);
		value = false;
	}
	if (!IsA(n, Var) || rel == NULL)
		return NULL;
	Var *v = (Var *) n;
	if (v->vartype != BOOLOID || (Index) v->varno != rel->relid || v->varlevelsup != 0 ||
		v->varattno <= 0 || !geoidx_filter_only_column(o, relid, v->varattno))
		return NULL;
	return (Node *) make_opclause(BooleanEqualOperator, BOOLOID, false, (Expr *) v,
								  (Expr *) makeBoolConst(value, false), InvalidOid, InvalidOid);
}

/*
 * Rewrite one condition of an AND list (the planner has flattened nested ANDs
 * into implicit-AND lists by now, and a bare condition is a list of one) if it
 * is one of the shapes. Only whole conditions are replaced; a comparison under
 * OR or NOT stays as it is, which is also right, just not indexable.
 */
Node *
rewrite_condition(const GeoidxCatalog &o, Node *n, RelOptInfo *rel, Oid relid, bool *changed)
{
	Node *r = NULL;
	if (IsA(n, OpExpr))
		r = rewrite_comparison(o, (OpExpr *) n);
	else if (IsA(n, BoolExpr))
	{
		r = rewrite_not(o, (BoolExpr *) n);
		if (r == NULL)
			r = rewrite_bool_column(o, n, rel, relid);
	}
	else if (IsA(n, Var))
		r = rewrite_bool_column(o, n, rel, relid);
	else if (IsA(n, ScalarArrayOpExpr))
		r = rewrite_in(o, (ScalarArrayOpExpr *) n, rel, relid);
	if (r == NULL)
		return n;
	*changed = true;
	return r;
}

/* Whether an argument is known before the scan: another table's, a parameter, a constant. */
bool
known_before_scan(PlannerInfo *root, Node *arg, RelOptInfo *rel)
{
	return !bms_is_member(rel->relid, pull_varnos(root, arg)) && !contain_volatile_functions(arg);
}

/*
 * Whether arg is a geometry column of another table of the query that leads a
 * geoidx index: then that table's planning gives the call geoidx's operator
 * (which this table's index can also use, through its function's support),
 * and the function form must not take the call first.
 */
bool
other_side_takes_operator(const GeoidxCatalog &o, PlannerInfo *root, Node *arg)
{
	if (!IsA(arg, Var) || ((Var *) arg)->varlevelsup != 0 || ((Var *) arg)->varattno <= 0 ||
		((Var *) arg)->vartype != o.geometry_type)
		return false;
	Var *v = (Var *) arg;
	if (v->varno <= 0 || v->varno >= root->simple_rel_array_size)
		return false;
	RangeTblEntry *rte = root->simple_rte_array[v->varno];
	bool unconditional;
	return rte != NULL && rte->rtekind == RTE_RELATION &&
		   geoidx_leads_index(o, rte->relid, v->varattno, &unconditional);
}

/*
 * What stands for a PostGIS planar predicate on a column of this table that
 * leads a geoidx index (see the header), or NULL: geoidx's operator of it
 * where the family takes the column on that side, else geoidx's function of
 * it, whose support gives the index PostGIS's box condition
 * (planar_support.cc).
 */
Node *
planar_operator(const GeoidxCatalog &o, PlannerInfo *root, Node *n, RelOptInfo *rel, Oid relid)
{
	if (!geoidx_rewrite_postgis || rel == NULL || !IsA(n, FuncExpr))
		return NULL;
	FuncExpr *f = (FuncExpr *) n;
	const int nargs = list_length(f->args);
	Oid op[2] = {InvalidOid, InvalidOid}; /* the operator with the column as argument 0, 1 */
	Oid fn = InvalidOid;                  /* else geoidx's function */
	if (nargs == 2 && f->funcid == o.planar_contains_fn)
		op[0] = o.planar_contains_op, fn = o.gx_planar_contains_fn;
	else if (nargs == 2 && f->funcid == o.planar_covers_fn)
		op[0] = o.planar_covers_op, fn = o.gx_planar_covers_fn;
	else if (nargs == 2 && f->funcid == o.planar_within_fn)
		op[1] = o.planar_within_op, fn = o.gx_planar_within_fn;
	else if (nargs == 2 && f->funcid == o.planar_intersects_fn)
		op[0] = op[1] = o.planar_intersects_op;
	else if (nargs == 2 && f->funcid == o.planar_coveredby_fn)
		fn = o.gx_planar_coveredby_fn;
	else if (nargs == 3 && f->funcid == o.planar_dwithin_fn)
		fn = o.gx_planar_dwithin_fn;
	else
		return NULL;
	for (int i = 0; i < 2; i++)
	{
		if (!OidIsValid(op[i]) && !OidIsValid(fn))
			continue;
		Node *col = (Node *) list_nth(f->args, i);
		Node *other = (Node *) list_nth(f->args, 1 - i);
		if (!IsA(col, Var))
			continue;
		Var *v = (Var *) col;
		bool unconditional; /* any leading geoidx index: PostGIS's call checks the rest */
		if ((Index) v->varno != rel->relid || v->varlevelsup != 0 || v->varattno <= 0 ||
			v->vartype != o.geometry_type || exprType(other) != o.geometry_type ||
			!known_before_scan(root, other, rel) ||
			(nargs == 3 && !known_before_scan(root, (Node *) lthird(f->args), rel)) ||
			!geoidx_leads_index(o, relid, v->varattno, &unconditional))
			continue;
		if (OidIsValid(op[i]))
			return (Node *) make_opclause(op[i], BOOLOID, false, (Expr *) linitial(f->args),
										  (Expr *) lsecond(f->args), InvalidOid, f->inputcollid);
		if (OidIsValid(op[1 - i]) && other_side_takes_operator(o, root, other))
			continue;
		return (Node *) makeFuncExpr(fn, BOOLOID, f->args, InvalidOid, f->inputcollid,
									 COERCE_EXPLICIT_CALL);
	}
	return NULL;
}

/* Whether n has no Var of this query level and nothing volatile: a constant or parameter. */
bool
free_of_tables(PlannerInfo *root, Node *n)
{
	return bms_is_empty(pull_varnos(root, n)) && !contain_volatile_functions(n);
}

/* The operator family of a geoidx index of the table whose first key column is attno, or 0. */
Oid
leading_geoidx_family(const GeoidxCatalog &o, Oid relid, AttrNumber attno)
{
	Oid family = InvalidOid;
	each_index(relid,
			   [&](Oid am, HeapTuple itup)
			   {
				   Form_pg_index form = (Form_pg_index) GETSTRUCT(itup);
				   if (OidIsValid(family) || am != o.geoidx_am || form->indnkeyatts == 0 ||
					   form->indkey.values[0] != attno)
					   return;
				   bool isnull;
				   Datum classes =
					   SysCacheGetAttr(INDEXRELID, itup, Anum_pg_index_indclass, &isnull);
				   if (!isnull)
					   family =
						   get_opclass_family(((oidvector *) DatumGetPointer(classes))->values[0]);
			   });
	return family;
}

/*
 * geoidx_dwithin, geoidx_beyond, geoidx_nearer (pos <~> c > x, ...),
 * geoidx_outside (NOT geoidx_dwithin) and geoidx_ring (an AND of its hole and
 * its disc, for the caller to splice into the quals), on a column of this
 * table that leads a geoidx index, with every other argument a constant or a
 * parameter and the centre a point in every row: the index conditions their
 * support functions would give that index (support.cc, support_regions.cc),
 * when they decide the call exactly, replace the call in the query itself.
 * PostgreSQL keeps a support function's original clause as a per-row Filter
 * on a bitmap heap scan, since it is not the index condition; the index's own operator
 * becomes the Recheck Cond, evaluated only on lossy pages (and the index's
 * bitmap is exact). The operator decides every row as the call does, NULL
 * and EMPTY included as far as a condition of a top-level AND can tell (an
 * EMPTY centre's disc is NULL where the call is false). A centre that holds
 * a column of another table (a join) keeps the call, and with it the choice
 * of which side's index serves it.
 */
Node *
rewrite_to_index_condition(const GeoidxCatalog &o, PlannerInfo *root, Node *n, RelOptInfo *rel,
						   Oid relid)
{
	if (rel == NULL || !IsA(n, FuncExpr))
		return NULL;
	FuncExpr *f = (FuncExpr *) n;
	bool dwithin = false;
	for (int t = 0; t < 2; t++)
		dwithin |= OidIsValid(o.dwithin_fn[t]) && f->funcid == o.dwithin_fn[t];
	int g;
	GeoidxPred pred = dwithin ? GeoidxPred::none : geoidx_which_pred(f->funcid, &g);
	if (!dwithin && pred == GeoidxPred::none)
		return NULL;
	if (list_length(f->args) < 3)
		return NULL;
	for (int i = 0; i < 2; i++)
	{
		Node *col = (Node *) list_nth(f->args, i);
		if (!IsA(col, Var))
			continue;
		Var *v = (Var *) col;
		if ((Index) v->varno != rel->relid || v->varlevelsup != 0 || v->varattno <= 0)
			continue;
		bool rest_known = true;
		for (int k = 0; k < list_length(f->args); k++)
			rest_known &= k == i || free_of_tables(root, (Node *) list_nth(f->args, k));
		Node *other = (Node *) list_nth(f->args, 1 - i);
		if (!rest_known || exprType(other) != v->vartype ||
			!geoidx_is_point_for_every_row(other, o))
			continue;
		Oid family = leading_geoidx_family(o, relid, v->varattno);
		if (!OidIsValid(family))
			continue;
		/* the index the conditions are for: only its table matters to them */
		IndexOptInfo *scope = makeNode(IndexOptInfo);
		scope->rel = rel;
		SupportRequestIndexCondition req;
		MemSet(&req, 0, sizeof(req));
		req.type = T_SupportRequestIndexCondition;
		req.root = root;
		req.funcid = f->funcid;
		req.node = n;
		req.indexarg = i;
		req.index = scope;
		req.indexcol = 0;
		req.opfamily = family;
		req.indexcollation = InvalidOid;
		req.lossy = true;
		List *conds =
			dwithin ? geoidx_dwithin_index_conditions(&req) : geoidx_region_index_conditions(&req);
		/* a ring is its hole and its disc (geoidx_circle_sel estimates the hole beside its disc) */
		if (list_length(conds) != (pred == GeoidxPred::ring ? 2 : 1) || req.lossy)
			continue;
		/*
		 * A literal centre that is no valid point raises its error now, naming
		 * the call's argument, as the call's estimate did when the call stayed
		 * (the circle's constructor would name its own centre).
		 */
		if (IsA(other, Const) && !((Const *) other)->constisnull)
		{
			GeoidxPoint centre;
			geoidx::LonLat ll;
			geoidx_read_point(((Const *) other)->constvalue,
							  psprintf("argument %d of %s", 2 - i, get_func_name(f->funcid)),
							  &centre, &ll);
		}
		return list_length(conds) == 1 ? (Node *) linitial(conds) : (Node *) make_andclause(conds);
	}
	return NULL;
}

/* Rewrite one AND-ed condition. */
Node *
rewrite_qual(const GeoidxCatalog &o, PlannerInfo *root, Node *qual, RelOptInfo *rel, Oid relid,
			 bool *changed)
{
	qual = geoidx_rewrite_geography_forms(o, root, qual, rel, relid, changed);
	Node *op = planar_operator(o, root, qual, rel, relid);
	if (op == NULL)
	{
		/* NOT geoidx_dwithin becomes geoidx_outside first, <~> > x geoidx_beyond */
		qual = rewrite_condition(o, qual, rel, relid, changed);
		op = rewrite_to_index_condition(o, root, qual, rel, relid);
		if (op == NULL)
			return qual;
	}
	*changed = true;
	return op;
}

/* Rewrite the conditions of a WHERE or ON clause, in place. */
Node *
rewrite_quals(const GeoidxCatalog &o, PlannerInfo *root, Node *quals, RelOptInfo *rel, Oid relid,
			  bool *changed)
{
	if (quals == NULL)
		return NULL;
	if (IsA(quals, List))
	{
		List *out = NIL, *added = NIL;
		ListCell *lc;
		foreach (lc, (List *) quals)
		{
			Node *q = (Node *) lfirst(lc);
			Node *r = rewrite_qual(o, root, q, rel, relid, changed);
			/* a ring's two conditions join the list: PostgreSQL's quals are a flat AND */
			List *parts = r != q && is_andclause(r) ? ((BoolExpr *) r)->args : list_make1(r);
			ListCell *pc;
			foreach (pc, parts)
			{
				out = lappend(out, lfirst(pc));
				Node *disc =
					geoidx_sphere_distance_candidates(o, root, (Node *) lfirst(pc), rel, relid);
				if (disc != NULL && !list_member((List *) quals, disc))
					added = lappend(added, disc);
			}
		}
		if (added != NIL)
			*changed = true;
		return (Node *) list_concat(out, added);
	}
	if (is_andclause(quals))
	{
		BoolExpr *b = (BoolExpr *) quals;
		b->args = (List *) rewrite_quals(o, root, (Node *) b->args, rel, relid, changed);
		return quals;
	}
	return rewrite_qual(o, root, quals, rel, relid, changed);
}

/* Rewrite the conditions of every level of a join tree, in place. */
void
rewrite_jointree(const GeoidxCatalog &o, PlannerInfo *root, Node *jt, RelOptInfo *rel, Oid relid,
				 bool *changed)
{
	if (jt == NULL)
		return;
	if (IsA(jt, FromExpr))
	{
		FromExpr *f = (FromExpr *) jt;
		f->quals = rewrite_quals(o, root, f->quals, rel, relid, changed);
		ListCell *lc;
		foreach (lc, f->fromlist)
			rewrite_jointree(o, root, (Node *) lfirst(lc), rel, relid, changed);
	}
	else if (IsA(jt, JoinExpr))
	{
		JoinExpr *j = (JoinExpr *) jt;
		j->quals = rewrite_quals(o, root, j->quals, rel, relid, changed);
		rewrite_jointree(o, root, j->larg, rel, relid, changed);
		rewrite_jointree(o, root, j->rarg, rel, relid, changed);
	}
}

} // namespace

bool geoidx_rewrite_postgis = true;

/*
 * Whether attno of the table leads a geoidx index (its first key column);
 * *unconditional: one such index is not partial, so every row's value passed
 * its checks (SRID 4326 or 0) when it was inserted.
 */
bool
geoidx_leads_index(const GeoidxCatalog &o, Oid relid, AttrNumber attno, bool *unconditional)
{
	bool found = false;
	*unconditional = false;
	each_index(relid,
			   [&](Oid am, HeapTuple itup)
			   {
				   Form_pg_index form = (Form_pg_index) GETSTRUCT(itup);
				   if (am != o.geoidx_am || form->indnkeyatts == 0 ||
					   form->indkey.values[0] != attno)
					   return;
				   found = true;
				   if (heap_attisnull(itup, Anum_pg_index_indpred, NULL))
					   *unconditional = true;
			   });
	return found;
}

namespace
{

/* Whether an ORDER BY expression is a geoidx ordering whose distances may be lower bounds. */
bool
lossy_ordering(const GeoidxCatalog &o, Node *e, Index relid)
{
	if (e == NULL || !IsA(e, OpExpr) || list_length(((OpExpr *) e)->args) != 2)
		return false;
	OpExpr *op = (OpExpr *) e;
	const Oid ops[5] = {o.distance_op[0], o.distance_op[1], o.sphere_knn_op, o.pg_geog_knn_op,
						o.planar_knn_op};
	bool ordering = false;
	for (Oid x : ops)
		ordering |= OidIsValid(x) && op->opno == x;
	Node *col = (Node *) linitial(op->args);
	if (!ordering || !IsA(col, Var) || ((Var *) col)->varno != (int) relid)
		return false;
	return !geoidx_is_point_for_every_row((Node *) lsecond(op->args), o);
}

/*
 * An index-only scan cannot take the lower bounds a geoidx scan gives for the
 * distance to a shape (or to what may be one: a parameter), which the executor
 * rechecks in a plain index scan, and PostgreSQL raises "lossy distance
 * functions are not supported in index-only scans" at run time. Where the
 * query orders this table so, its geoidx indexes return no column for this
 * query: the planner builds the plain ordered index scan instead.
 */
void
no_lossy_index_only(const GeoidxCatalog &o, PlannerInfo *root, RelOptInfo *rel)
{
	if (rel == NULL || root->parse->sortClause == NIL)
		return;
	/* a partition's ORDER BY names the partitioned table it is scanned for */
	Index relid = rel->relid;
	while (root->append_rel_array != NULL && root->append_rel_array[relid] != NULL)
		relid = root->append_rel_array[relid]->parent_relid;
	bool lossy = false;
	ListCell *lc;
	foreach (lc, root->processed_tlist)
	{
		TargetEntry *te = (TargetEntry *) lfirst(lc);
		if (te->ressortgroupref != 0 &&
			get_sortgroupref_clause_noerr(te->ressortgroupref, root->parse->sortClause) != NULL)
			lossy |= lossy_ordering(o, (Node *) te->expr, relid);
	}
	if (!lossy)
		return;
	foreach (lc, rel->indexlist)
	{
		IndexOptInfo *ix = (IndexOptInfo *) lfirst(lc);
		if (ix->relam == o.geoidx_am)
			for (int i = 0; i < ix->ncolumns; i++)
				ix->canreturn[i] = false;
	}
}

} // namespace

/* Counts the planner's table lookups: a planning of a table starts a new count (tree_estimate.cc).
 */
uint64 geoidx_relation_info_calls = 0;

namespace
{

/* Rewrite the query's conditions before the planner distributes them to its tables. */
void
geoidx_get_relation_info(PlannerInfo *root, Oid relid, bool inhparent, RelOptInfo *rel)
{
	geoidx_relation_info_calls++;
	if (prev_hook)
		prev_hook(root, relid, inhparent, rel);
	if (root->parse == NULL || root->parse->jointree == NULL || !IsTransactionState())
		return;
	const GeoidxCatalog &o = geoidx_catalog_if_present();
	if (!o.present)
		return;
	bool changed = false;
	rewrite_jointree(o, root, (Node *) root->parse->jointree, rel, relid, &changed);
	/*
	 * A partial index's predicate gets the same rewrites, so that a query that
	 * repeats it still proves it (a row satisfies each rewritten condition
	 * exactly when it satisfies the original).
	 */
	if (rel != NULL)
	{
		ListCell *lc;
		foreach (lc, rel->indexlist)
		{
			IndexOptInfo *ix = (IndexOptInfo *) lfirst(lc);
			if (ix->indpred != NIL)
				ix->indpred =
					(List *) rewrite_quals(o, root, (Node *) ix->indpred, rel, relid, &changed);
		}
	}
	geoidx_rewrite_geography_order(o, root, rel, relid);
	if (inhparent)
		geoidx_prune_cells_at_plan_time(root, rel);
	geoidx_keep_cell_bounds_from_partitions(root, rel);
	rewrite_pruned_keys(o, root, rel);
	no_lossy_index_only(o, root, rel);
}

} // namespace

/* Install the planner hook, after whatever hook was there. */
void
geoidx_install_rewrite_hook(void)
{
	DefineCustomBoolVariable(
		"geoidx.rewrite_postgis",
		"Gives PostGIS's predicates on a geoidx-indexed column a geoidx index condition.",
		"ST_Contains, ST_Covers, ST_Intersects and ST_Within on a column that leads a geoidx "
		"index become geoidx's operators of them (col ##@> g for ST_Contains(col, g)), which call "
		"PostGIS; ST_DWithin, ST_Distance, ST_Intersects, ST_Covers and ST_CoveredBy of "
		"col::geography (or of a geography column) become geoidx_dwithin, <~>, geoidx_intersects, "
		"geoidx_covers and geoidx_coveredby, which give the same answers. The index can serve "
		"both. Off: they are planned as PostGIS plans them.",
		&geoidx_rewrite_postgis, true, PGC_USERSET, 0, NULL, NULL, NULL);
	prev_hook = get_relation_info_hook;
	get_relation_info_hook = geoidx_get_relation_info;
}
