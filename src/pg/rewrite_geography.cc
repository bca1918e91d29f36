/*
 * PostGIS's geography forms, as apps send them, on a column that a geoidx
 * index serves: the calls become geoidx's own, which give the same answers
 * (each is defined as, and tested against, its PostGIS counterpart) and
 * which the index can serve.
 *
 *   ST_DWithin(col::geography, g, r [, s])     ->  geoidx_dwithin(col, g', r, s)
 *   ST_Distance(col::geography, g [, true])    ->  col <~> g'
 *   ST_Intersects(col::geography, g)           ->  geoidx_intersects(col, g')
 *   ST_Covers(col::geography, g)               ->  geoidx_covers(col, g')
 *   ST_CoveredBy(col::geography, g)            ->  geoidx_coveredby(col, g')
 *   ORDER BY col::geography <-> g              ->  ORDER BY col <~~> g' (the sphere's k-NN)
 *   ST_Distance(col::geography, g, false) < r  ->  itself, AND col <@ geoidx_candidate_circle(g',
 * r) (the sphere: also ST_DistanceSphere(col, g), a SQL function PostGIS defines as that call,
 * which the planner has inlined by now)
 *
 * with the column on either side, in the argument order written; col is a
 * geometry column under PostGIS's cast to geography (g' is then g's geometry:
 * what was cast, or g cast back), or a geography column with geoidx's
 * geography operator class (g' = g). ST_Distance is replaced wherever it
 * stands in a condition, so `ST_Distance(...) < r` goes on to become
 * geoidx_nearer (rewrite.cc), and in an ORDER BY, where `col <~> g'` is the
 * index's own ordering (PostGIS cannot index that order at all).
 *
 * A call is replaced only where the replacement is exact for every input:
 *   - the column leads a geoidx index, and every value of it has SRID 4326
 *     (or 0, which the cast reads as 4326): a non-partial geoidx index
 *     checked each one, or the column's type says SRID 4326;
 *   - g does not read the column's table and is not volatile (known before
 *     the scan, so the index can use it);
 *   - a constant g has SRID 4326 (or 0 before the cast): PostGIS raises its
 *     mixed-SRID error only on a row, an index scan raises geoidx's when the
 *     scan starts, also on an empty table, so a constant of another SRID is
 *     left to PostGIS;
 *   - ST_DWithin's radius is not volatile (any value: a NaN or negative one
 *     gives false in both);
 *   - ST_Distance uses the spheroid (the default, or a constant true).
 * NULL gives NULL either way (all are strict); EMPTY gives false or NULL as
 * in PostGIS. geoidx.rewrite_postgis = off leaves every call as written.
 */
#include "geoidx.h"

extern "C"
{
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/tlist.h"
#include "utils/lsyscache.h"
}

#include <cmath>
#include <limits>

namespace
{

constexpr int32 kWgs84 = 4326;

enum class Form
{
	kNone,
	kDWithin,
	kDistance,
	kIntersects,
	kCovers,
	kCoveredBy
};

struct Context
{
	const GeoidxCatalog *o;
	PlannerInfo *root;
	RelOptInfo *rel;
	Oid relid;
	bool only_distance; /* the ORDER BY pass: ST_Distance alone */
	bool changed;
};

/* Which PostGIS geography function fn is. */
Form
form_of(const GeoidxCatalog &o, Oid fn)
{
	if (!OidIsValid(fn))
		return Form::kNone;
	if (fn == o.pg_dwithin_fn)
		return Form::kDWithin;
	if (fn == o.pg_distance_fn)
		return Form::kDistance;
	if (fn == o.pg_intersects_fn)
		return Form::kIntersects;
	if (fn == o.pg_covers_fn)
		return Form::kCovers;
	if (fn == o.pg_coveredby_fn)
		return Form::kCoveredBy;
	return Form::kNone;
}

/* Whether every value of a column of this type modifier can be trusted to be SRID 4326. */
bool
typmod_is_wgs84(int32 typmod)
{
	return typmod >= 0 && GeoidxTypmodSrid(typmod) == kWgs84;
}

/*
 * What a cast to geography(Type, SRID) does to a value of a 2-D column of
 * SRID 4326: nothing, where its type is Geometry (any) and its SRID 4326 (or
 * unknown), without Z or M. Anything else may raise PostGIS's typmod error for
 * some row, which the rewritten call would not.
 */
bool
typmod_cast_is_identity(const FuncExpr *f, const Var *column)
{
	Node *typmod = (Node *) lsecond(f->args);
	if (!IsA(typmod, Const) || ((Const *) typmod)->constisnull)
		return false;
	int32 t = DatumGetInt32(((Const *) typmod)->constvalue);
	int32 srid = t < 0 ? 0 : GeoidxTypmodSrid(t);
	bool to_any =
		t < 0 || (GeoidxTypmodType(t) == 0 && !GeoidxTypmodHasZ(t) && !GeoidxTypmodHasM(t));
	int32 c = column->vartypmod;
	bool column_2d = c >= 0 && !GeoidxTypmodHasZ(c) && !GeoidxTypmodHasM(c);
	return to_any && (srid == kWgs84 || srid == 0) && column_2d;
}

/*
 * The column under a geography argument: a geometry Var of the table under
 * PostGIS's cast (g = 0; also under a cast to geography(Geometry, 4326) that
 * changes nothing, as ORMs write it), or a geography Var (g = 1), that a
 * geoidx index serves and whose every value has SRID 4326 or 0. NULL
 * otherwise.
 */
Var *
indexed_column(const Context &cx, Node *arg, int *g)
{
	const GeoidxCatalog &o = *cx.o;
	Var *v = NULL;
	FuncExpr *typmod_cast = NULL;
	if (IsA(arg, FuncExpr) && ((FuncExpr *) arg)->funcid == o.pg_geography_typmod_fn &&
		OidIsValid(o.pg_geography_typmod_fn) && list_length(((FuncExpr *) arg)->args) == 3)
	{
		typmod_cast = (FuncExpr *) arg;
		arg = (Node *) linitial(typmod_cast->args);
	}
	if (IsA(arg, FuncExpr) && ((FuncExpr *) arg)->funcid == o.pg_geography_fn &&
		list_length(((FuncExpr *) arg)->args) == 1 && IsA(linitial(((FuncExpr *) arg)->args), Var))
	{
		v = (Var *) linitial(((FuncExpr *) arg)->args);
		*g = 0;
		if (v->vartype != o.geometry_type)
			return NULL;
	}
	else if (IsA(arg, Var) && ((Var *) arg)->vartype == o.geography_type)
	{
		v = (Var *) arg;
		*g = 1;
	}
	else
		return NULL;
	if ((Index) v->varno != cx.rel->relid || v->varlevelsup != 0 || v->varattno <= 0)
		return NULL;
	if (typmod_cast != NULL && !typmod_cast_is_identity(typmod_cast, v))
		return NULL;
	bool unconditional = false;
	if (!geoidx_leads_index(o, cx.relid, v->varattno, &unconditional))
		return NULL;
	if (!unconditional && !typmod_is_wgs84(v->vartypmod))
		return NULL;
	return v;
}

/* Whether a constant geometry or geography is NULL or of SRID 4326 (or 0, before the cast). */
bool
constant_srid_ok(Const *c, bool allow_zero)
{
	if (c->constisnull)
		return true;
	int32 srid = geoidx_datum_srid(c->constvalue);
	return srid == kWgs84 || (allow_zero && srid == 0);
}

/*
 * The other argument as geoidx's call takes it (g: the column's type), or
 * NULL where the replacement would not be exact or could not use the index.
 */
Node *
other_argument(const Context &cx, Node *arg, int g)
{
	const GeoidxCatalog &o = *cx.o;
	if (exprType(arg) != o.geography_type || contain_volatile_functions(arg) ||
		bms_is_member(cx.rel->relid, pull_varnos(cx.root, arg)))
		return NULL;
	if (g == 1)
		return IsA(arg, Const) && !constant_srid_ok((Const *) arg, false) ? NULL : arg;
	/* for a geometry column: what was cast to geography, or the geography cast back */
	if (IsA(arg, FuncExpr) && ((FuncExpr *) arg)->funcid == o.pg_geography_fn &&
		list_length(((FuncExpr *) arg)->args) == 1)
	{
		Node *inner = (Node *) linitial(((FuncExpr *) arg)->args);
		if (exprType(inner) != o.geometry_type)
			return NULL;
		return IsA(inner, Const) && !constant_srid_ok((Const *) inner, true) ? NULL : inner;
	}
	if (IsA(arg, Const) && !constant_srid_ok((Const *) arg, false))
		return NULL;
	if (!OidIsValid(o.pg_geometry_fn))
		return NULL;
	Node *back = (Node *) makeFuncExpr(o.pg_geometry_fn, o.geometry_type, list_make1(arg),
									   InvalidOid, InvalidOid, COERCE_EXPLICIT_CAST);
	return eval_const_expressions(cx.root, back);
}

/*
 * The indexed column among f's first two arguments (*side: which) and the
 * other argument as geoidx's call takes it; false if neither side serves.
 */
bool
column_pair(const Context &cx, const FuncExpr *f, Var **col, Node **other, int *g, int *side)
{
	for (*side = 0; *side < 2; (*side)++)
	{
		*col = indexed_column(cx, (Node *) list_nth(f->args, *side), g);
		if (*col == NULL)
			continue;
		*other = other_argument(cx, (Node *) list_nth(f->args, 1 - *side), *g);
		if (*other != NULL)
			return true;
	}
	return false;
}

/* geoidx's call for one PostGIS geography call, or NULL to leave it. */
Node *
replacement(const Context &cx, FuncExpr *f)
{
	const GeoidxCatalog &o = *cx.o;
	Form form = form_of(o, f->funcid);
	if (form == Form::kNone || (cx.only_distance && form != Form::kDistance) ||
		list_length(f->args) < 2)
		return NULL;
	if (form == Form::kDistance &&
		(list_length(f->args) != 3 || !geoidx_is_true_const((Node *) lthird(f->args))))
		return NULL;
	if (form == Form::kDWithin &&
		(list_length(f->args) != 4 || contain_volatile_functions((Node *) lthird(f->args))))
		return NULL;
	Var *col;
	Node *other;
	int g, side;
	if (!column_pair(cx, f, &col, &other, &g, &side))
		return NULL;
	Node *a = side == 0 ? (Node *) col : other;
	Node *b = side == 0 ? other : (Node *) col;
	if (form == Form::kDistance)
	{
		if (!OidIsValid(o.distance_op[g]))
			return NULL;
		Expr *op = make_opclause(o.distance_op[g], FLOAT8OID, false, (Expr *) a, (Expr *) b,
								 InvalidOid, InvalidOid);
		((OpExpr *) op)->location = f->location;
		return (Node *) op;
	}
	Oid fn = InvalidOid;
	List *args = list_make2(a, b);
	switch (form)
	{
		case Form::kDWithin:
			fn = o.dwithin_fn[g];
			args = lappend(lappend(args, lthird(f->args)), lfourth(f->args));
			break;
		case Form::kIntersects:
			fn = o.intersects_fn[g];
			break;
		case Form::kCovers:
			fn = o.covers_fn[g];
			break;
		case Form::kCoveredBy:
			fn = o.coveredby_fn[g];
			break;
		default:
			break;
	}
	if (!OidIsValid(fn))
		return NULL;
	FuncExpr *call =
		makeFuncExpr(fn, BOOLOID, args, InvalidOid, f->inputcollid, COERCE_EXPLICIT_CALL);
	call->location = f->location;
	return (Node *) call;
}

/*
 * In an ORDER BY, col::geography <-> g (PostGIS's k-NN distance on its
 * sphere), the column first: col <~~> g', which is that very call (PostGIS's
 * value) and an ordering operator of geoidx's family. The column second is
 * left as written: the sphere's angle is not symmetric in its last bits. A
 * geography column needs nothing: its <-> is in the family as it stands.
 */
Node *
knn_replacement(const Context &cx, OpExpr *op)
{
	const GeoidxCatalog &o = *cx.o;
	if (!OidIsValid(o.pg_geog_knn_op) || op->opno != o.pg_geog_knn_op ||
		!OidIsValid(o.sphere_knn_op) || list_length(op->args) != 2)
		return NULL;
	int g;
	Var *col = indexed_column(cx, (Node *) linitial(op->args), &g);
	if (col == NULL || g != 0)
		return NULL;
	Node *other = other_argument(cx, (Node *) lsecond(op->args), g);
	if (other == NULL)
		return NULL;
	Expr *r = make_opclause(o.sphere_knn_op, FLOAT8OID, false, (Expr *) col, (Expr *) other,
							InvalidOid, InvalidOid);
	((OpExpr *) r)->location = op->location;
	return (Node *) r;
}

Node *
mutate(Node *n, void *arg)
{
	Context *cx = (Context *) arg;
	if (n == NULL || IsA(n, Query))
		return n;
	n = expression_tree_mutator(
		n, reinterpret_cast<Node *(*) ()>(reinterpret_cast<void (*)()>(mutate)), arg);
	Node *r = NULL;
	if (IsA(n, FuncExpr))
		r = replacement(*cx, (FuncExpr *) n);
	else if (IsA(n, OpExpr) && cx->only_distance)
		r = knn_replacement(*cx, (OpExpr *) n);
	if (r != NULL)
	{
		cx->changed = true;
		return r;
	}
	return n;
}

/* Which of < <= > >= (float8) opno is: 2 <, 3 <=, 0 >, 1 >= (catalog order), or -1. */
int
float8_comparison(const GeoidxCatalog &o, Oid opno)
{
	for (int i = 0; i < 4; i++)
		if (OidIsValid(o.float8_cmp[i]) && opno == o.float8_cmp[i])
			return i;
	return -1;
}

/* Whether the ORDER BY of this query may be given another (equal) expression. */
bool
plain_ordered_select(const Query *q)
{
	return q->commandType == CMD_SELECT && q->sortClause != NIL && !q->hasAggs &&
		   q->groupClause == NIL && q->groupingSets == NIL && q->havingQual == NULL &&
		   !q->hasWindowFuncs && q->setOperations == NULL && !q->hasTargetSRFs;
}

} // namespace

/*
 * The radius of the candidate disc of a sphere-distance comparison with the
 * bound n, or NULL: a constant as it is; a parameter (or any bound known
 * before the scan) as CASE WHEN n = 'NaN' THEN 'Infinity' ELSE n END, since
 * d < NaN holds for every row (float8 puts NaN above every number, and NaN =
 * NaN) and only the whole sphere's disc has them all; a constant NaN bound
 * gives no condition at all.
 */
Node *
geoidx_disc_radius(const GeoidxCatalog &o, PlannerInfo *root, RelOptInfo *rel, Node *n)
{
	if (exprType(n) != FLOAT8OID)
		return NULL;
	if (IsA(n, Const))
	{
		if (((Const *) n)->constisnull || std::isnan(DatumGetFloat8(((Const *) n)->constvalue)))
			return NULL;
		return n;
	}
	if (!OidIsValid(o.float8_eq_op) || contain_volatile_functions(n) ||
		bms_is_member(rel->relid, pull_varnos(root, n)))
		return NULL;
	CaseWhen *w = makeNode(CaseWhen);
	w->expr =
		make_opclause(o.float8_eq_op, BOOLOID, false, (Expr *) n,
					  (Expr *) makeConst(FLOAT8OID, -1, InvalidOid, sizeof(float8),
										 Float8GetDatum(std::nan("")), false, FLOAT8PASSBYVAL),
					  InvalidOid, InvalidOid);
	w->result = (Expr *) makeConst(FLOAT8OID, -1, InvalidOid, sizeof(float8),
								   Float8GetDatum(std::numeric_limits<double>::infinity()), false,
								   FLOAT8PASSBYVAL);
	w->location = -1;
	CaseExpr *c = makeNode(CaseExpr);
	c->casetype = FLOAT8OID;
	c->casecollid = InvalidOid;
	c->arg = NULL;
	c->args = list_make1(w);
	c->defresult = (Expr *) n;
	c->location = -1;
	return (Node *) c;
}

/*
 * For a sphere distance compared with a bound known before the scan,
 * ST_Distance(col::geography, g, false) < r (or <=, or the mirror;
 * ST_DistanceSphere(col, g) is that call, inlined), the lossy condition
 * col <@ geoidx_candidate_circle(g', r) to add beside it, or NULL. geoidx has
 * no region of the sphere distance, but every row the comparison keeps is in
 * that disc (it holds sphere distances up to r plus 1 %), so the comparison
 * stays, as PostGIS wrote it, and the index reads only the disc. A NaN bound
 * keeps every row (geoidx_disc_radius).
 */
Node *
geoidx_sphere_distance_candidates(const GeoidxCatalog &o, PlannerInfo *root, Node *qual,
								  RelOptInfo *rel, Oid relid)
{
	if (!geoidx_rewrite_postgis || rel == NULL || !IsA(qual, OpExpr) ||
		list_length(((OpExpr *) qual)->args) != 2 || !OidIsValid(o.pg_distance_fn))
		return NULL;
	OpExpr *op = (OpExpr *) qual;
	int cmp = float8_comparison(o, op->opno);
	Node *l = (Node *) linitial(op->args), *r = (Node *) lsecond(op->args);
	Node *dist, *bound;
	if (cmp == 2 || cmp == 3) /* d < r, d <= r */
		dist = l, bound = r;
	else if (cmp == 0 || cmp == 1) /* r > d, r >= d */
		dist = r, bound = l;
	else
		return NULL;
	if (!IsA(dist, FuncExpr) || ((FuncExpr *) dist)->funcid != o.pg_distance_fn ||
		list_length(((FuncExpr *) dist)->args) != 3)
		return NULL;
	Node *radius = geoidx_disc_radius(o, root, rel, bound);
	if (radius == NULL)
		return NULL;
	FuncExpr *f = (FuncExpr *) dist;
	Node *spheroid = (Node *) lthird(f->args);
	if (!IsA(spheroid, Const) || ((Const *) spheroid)->constisnull ||
		geoidx_is_true_const(spheroid))
		return NULL; /* the spheroid's is rewritten to <~> itself */
	Context cx = {&o, root, rel, relid, false, false};
	Var *col;
	Node *other;
	int g, side;
	if (!column_pair(cx, f, &col, &other, &g, &side) || !OidIsValid(o.candidate_fn[g]) ||
		!OidIsValid(o.within_op[g]))
		return NULL;
	FuncExpr *disc = makeFuncExpr(o.candidate_fn[g], o.circle_type, list_make2(other, radius),
								  InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	return (Node *) make_opclause(o.within_op[g], BOOLOID, false, (Expr *) col,
								  (Expr *) eval_const_expressions(root, (Node *) disc), InvalidOid,
								  InvalidOid);
}

/* Replace the geography forms in one condition (see the header); the condition itself otherwise. */
Node *
geoidx_rewrite_geography_forms(const GeoidxCatalog &o, PlannerInfo *root, Node *expr,
							   RelOptInfo *rel, Oid relid, bool *changed)
{
	if (!geoidx_rewrite_postgis || rel == NULL || expr == NULL || !OidIsValid(o.pg_dwithin_fn))
		return expr;
	Context cx = {&o, root, rel, relid, false, false};
	Node *r = mutate(expr, &cx);
	if (!cx.changed)
		return expr;
	*changed = true;
	return r;
}

/*
 * Replace ST_Distance(col::geography, g) in the ORDER BY's expressions by
 * col <~> g', before the planner reads the query's order (query_planner asks
 * for it after the tables are looked up). Only in a plain SELECT: where rows
 * are grouped, the grouping must keep matching the expressions as written.
 */
void
geoidx_rewrite_geography_order(const GeoidxCatalog &o, PlannerInfo *root, RelOptInfo *rel,
							   Oid relid)
{
	if (!geoidx_rewrite_postgis || rel == NULL || !OidIsValid(o.pg_distance_fn) ||
		!plain_ordered_select(root->parse))
		return;
	Context cx = {&o, root, rel, relid, true, false};
	ListCell *lc;
	foreach (lc, root->processed_tlist)
	{
		TargetEntry *te = (TargetEntry *) lfirst(lc);
		if (te->ressortgroupref == 0 ||
			get_sortgroupref_clause_noerr(te->ressortgroupref, root->parse->sortClause) == NULL)
			continue;
		te->expr = (Expr *) mutate((Node *) te->expr, &cx);
	}
}
