/*
 * Planner support for geoidx_dwithin, and the estimator of <@.
 *
 * Index conditions. geoidx_dwithin(a, b, metres [, use_spheroid]) on an indexed
 * column (either a or b) with everything else constant for the scan becomes
 *   - on a geoidx index:            col <@ geoidx_circle(other, metres, use_spheroid)
 *     an exact condition (lossy = false): the index decides ST_DWithin itself;
 *   - on a GiST or SP-GiST index whose operator family has PostGIS's
 *     && (geometry, geometry):      col && geoidx_search_box(other, metres, use_spheroid)
 *     a lossy one: the original call stays as a filter.
 * The same for geography arguments on a geoidx geography index (geoidx_circle's
 * geography overload); on PostGIS's own geography GiST index nothing: the call
 * stays as it is (a box in degrees is no key of it; its own ST_DWithin is the
 * function for that index).
 *
 * Selectivity. With a constant centre and radius, the rows within the circle are
 * estimated as PostGIS's && estimate for the search box times the share of the
 * box's area the circle covers (pi/4 for small circles): the histogram has no
 * finer resolution than the box. The same estimate serves <@ (geoidx_circle_sel).
 * For a geography column PostGIS's estimator of && (geography, geography) is
 * asked instead, with the box PostGIS's own ST_DWithin(geography) gives its index,
 * _ST_Expand(centre, metres) (geocentric, as the column's statistics), times pi/4
 * for the disc in the square.
 *
 * Everything looked up by name (types, functions, operators, in the geoidx and
 * postgis extensions' schemas, never through search_path) is cached for the
 * backend and forgotten whenever pg_proc or pg_operator change.
 */
#include "degree_box.h"
#include "geodesy.h"
#include "region.h"

#include "geoidx.h"

extern "C"
{
#include "catalog/pg_am.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "catalog/pg_collation.h"
#include "utils/builtins.h"
#include "optimizer/optimizer.h"
#include "optimizer/plancat.h"
#include "utils/inval.h"
#include "utils/syscache.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"
}

#include <cmath>

namespace
{

/* PostGIS's default for a spatial function it cannot estimate. */
constexpr double kDefaultSelectivity = 0.005;

Oid
opfamily_am(Oid opfamily)
{
	HeapTuple tup = SearchSysCache1(OPFAMILYOID, ObjectIdGetDatum(opfamily));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for operator family %u", opfamily);
	Oid am = ((Form_pg_opfamily) GETSTRUCT(tup))->opfmethod;
	ReleaseSysCache(tup);
	return am;
}

/* ---------- index conditions ---------- */

/*
 * Metres added to the radius when the index evaluates ST_DWithin in the other
 * argument order: far above the few 1e-15 rad by which PostGIS's great-circle
 * angle of (a, b) and of (b, a) can differ (times R: ~1e-8 m).
 */
constexpr double kOrderSlackMetres = 1e-6;

bool
is_true_const(Node *n)
{
	return IsA(n, Const) && !((Const *) n)->constisnull && DatumGetBool(((Const *) n)->constvalue);
}

/* metres + kOrderSlackMetres; a constant is folded, and left alone if negative (it is an error). */
Node *
widen_radius(Node *metres, const GeoidxCatalog &o)
{
	if (IsA(metres, Const))
	{
		Const *c = (Const *) metres;
		if (c->constisnull || !(DatumGetFloat8(c->constvalue) >= 0.0))
			return metres;
		return (Node *) makeConst(FLOAT8OID, -1, InvalidOid, sizeof(float8),
								  Float8GetDatum(DatumGetFloat8(c->constvalue) + kOrderSlackMetres),
								  false, FLOAT8PASSBYVAL);
	}
	Const *slack = makeConst(FLOAT8OID, -1, InvalidOid, sizeof(float8),
							 Float8GetDatum(kOrderSlackMetres), false, FLOAT8PASSBYVAL);
	return (Node *) make_opclause(o.float8_plus_op, FLOAT8OID, false, (Expr *) metres,
								  (Expr *) slack, InvalidOid, InvalidOid);
}

List *
index_condition(SupportRequestIndexCondition *req)
{
	if (!is_funcclause(req->node))
		return NIL;
	FuncExpr *clause = (FuncExpr *) req->node;
	int nargs = list_length(clause->args);
	if (nargs < 3 || nargs > 4 || req->indexarg < 0 || req->indexarg > 1)
		return NIL;

	const GeoidxCatalog &o = geoidx_catalog();
	Node *column = (Node *) list_nth(clause->args, req->indexarg);
	Node *other = (Node *) list_nth(clause->args, 1 - req->indexarg);
	Node *metres = (Node *) lthird(clause->args);
	Node *use_spheroid = nargs == 4 ? (Node *) lfourth(clause->args) : makeBoolConst(true, false);
	Oid type = exprType(column);
	if (exprType(other) != type)
		return NIL;
	Oid within_op, circle_fn;
	if (type == o.geometry_type)
	{
		within_op = o.within_op[0];
		circle_fn = o.circle_fn[0];
	}
	else if (OidIsValid(o.geography_type) && type == o.geography_type)
	{
		within_op = o.within_op[1];
		circle_fn = o.circle_fn[1];
	}
	else
		return NIL;

	Oid op, fn, fn_type;
	if (OidIsValid(within_op) && OidIsValid(circle_fn) && op_in_opfamily(within_op, req->opfamily))
	{
		/*
		 * geoidx: the index decides ST_DWithin(centre, col) exactly (point_within
		 * takes the centre first). That is geoidx_dwithin(centre, col) to the
		 * last bit, and geoidx_dwithin(col, centre) too on the spheroid: PROJ's
		 * geod_inverse puts the two points in a canonical order, so its distance
		 * is symmetric, and ST_DWithin's sphere pre-test (< 0.95 radius) decides
		 * the same either way. PostGIS's great-circle formula is not symmetric in
		 * the last bits, so for the sphere (or an unknown model) with the column
		 * first the index gets a radius 1 um larger and the call stays as the
		 * filter. (A parameter radius in [-1 um, 0) then errors only on the rows
		 * the index returns, rather than on the first row.)
		 */
		bool exact = req->indexarg == 1 || is_true_const(use_spheroid);
		if (!exact)
			metres = widen_radius(metres, o);
		op = within_op;
		fn = circle_fn;
		fn_type = o.circle_type;
		req->lossy = !exact;
	}
	else if (type != o.geometry_type)
		return NIL; /* geography on another index, PostGIS's GiST included */
	else
	{
		Oid am = opfamily_am(req->opfamily);
		if ((am != GIST_AM_OID && am != SPGIST_AM_OID) ||
			!op_in_opfamily(o.overlap_op[0], req->opfamily))
			return NIL;
		/* GiST / SP-GiST: a box that holds the circle; the call itself stays as the filter. */
		op = o.overlap_op[0];
		fn = o.box_fn;
		fn_type = o.geometry_type;
		req->lossy = true;
	}

	FuncExpr *rhs = makeFuncExpr(fn, fn_type, list_make3(other, metres, use_spheroid), InvalidOid,
								 InvalidOid, COERCE_EXPLICIT_CALL);
	/* Computable once per scan: no Vars of the indexed table, nothing volatile. */
	if (!is_pseudo_constant_for_index(req->root, (Node *) rhs, req->index))
		return NIL;
	return list_make1(
		make_opclause(op, BOOLOID, false, (Expr *) column, (Expr *) rhs, InvalidOid, InvalidOid));
}

/* ---------- selectivity ---------- */

/* _ST_Expand('SRID=4326;POINT(lon lat)'::geography, radius): a geography with the box */
Datum
geography_search_box(geoidx::LonLat centre, double radius, const GeoidxCatalog &o)
{
	char wkt[96];
	snprintf(wkt, sizeof(wkt), "SRID=4326;POINT(%.17g %.17g)", centre.lon, centre.lat);
	Datum point = OidInputFunctionCall(o.geography_input, wkt, o.geography_ioparam, -1);
	return OidFunctionCall2(o.geog_expand_fn, point, Float8GetDatum(radius));
}

/*
 * Rows of `column` (an expression of one relation) within the circle: the &&
 * estimate of the search box (two boxes across the antimeridian) times the
 * circle's share of their area.
 */
double
circle_selectivity(PlannerInfo *root, Node *column, geoidx::LonLat centre, double radius,
				   bool use_spheroid, int var_relid)
{
	if (std::isnan(radius) || radius < 0.0)
		return kDefaultSelectivity; /* the call raises an error; no estimate is right */

	const GeoidxCatalog &o = geoidx_catalog();
	Oid type = exprType(column);
	bool geography = OidIsValid(o.geography_type) && type == o.geography_type;
	if (type != o.geometry_type &&
		!(geography && OidIsValid(o.overlap_op[1]) && OidIsValid(o.geog_expand_fn)))
		return kDefaultSelectivity; /* a string overload's, or no estimator */
	if (radius >= M_PI * geoidx::kSphereRadius)
		return 1.0; /* half the circumference: everything */

	if (geography)
	{
		Const *box = makeConst(o.geography_type, -1, InvalidOid, -1,
							   geography_search_box(centre, radius, o), false, false);
		double sel = restriction_selectivity(root, o.overlap_op[1], list_make2(column, box),
											 InvalidOid, var_relid) *
					 (M_PI / 4.0);
		if (!(sel >= 0.0))
			return 0.0;
		return sel > 1.0 ? 1.0 : sel;
	}

	geoidx::DegreeBox boxes[2];
	int n = geoidx::search_box_pieces(centre, radius, use_spheroid, boxes);
	double overlap = 0.0;
	for (int i = 0; i < n; i++)
	{
		Const *box = makeConst(o.geometry_type, -1, InvalidOid, -1, geoidx_box_geometry(&boxes[i]),
							   false, false);
		overlap += restriction_selectivity(root, o.overlap_op[0], list_make2(column, box),
										   InvalidOid, var_relid);
	}
	double sel = overlap * geoidx::circle_fraction(radius, boxes, n);
	if (!(sel >= 0.0))
		return 0.0;
	return sel > 1.0 ? 1.0 : sel;
}

/* The centre in a constant geometry; false (no estimate) if EMPTY or not finite. */
bool
constant_centre(Const *c, const char *what, geoidx::LonLat *ll, bool *empty)
{
	GeoidxPoint p;
	geoidx_decode_point(c->constvalue, what, &p);
	*empty = p.empty;
	if (p.empty)
		return false;
	return geoidx::normalize_like_geography(p.x, p.y, ll) != geoidx::CoordCheck::not_finite;
}

double
dwithin_selectivity(SupportRequestSelectivity *req)
{
	int nargs = list_length(req->args);
	if (req->is_join || nargs < 3 || nargs > 4)
		return kDefaultSelectivity;

	Node *a = (Node *) linitial(req->args);
	Node *b = (Node *) lsecond(req->args);
	Node *ea = estimate_expression_value(req->root, a);
	Node *eb = estimate_expression_value(req->root, b);
	Node *em = estimate_expression_value(req->root, (Node *) lthird(req->args));
	Node *es = nargs == 4 ? estimate_expression_value(req->root, (Node *) lfourth(req->args))
						  : makeBoolConst(true, false);
	if (!IsA(em, Const) || !IsA(es, Const))
		return kDefaultSelectivity;
	if (((Const *) em)->constisnull || ((Const *) es)->constisnull)
		return 0.0; /* strict: NULL, never true */

	Node *column;
	Const *centre;
	const char *what;
	if (IsA(eb, Const) && !IsA(ea, Const))
	{
		column = a;
		centre = (Const *) eb;
		what = "argument 2 of geoidx_dwithin";
	}
	else if (IsA(ea, Const) && !IsA(eb, Const))
	{
		column = b;
		centre = (Const *) ea;
		what = "argument 1 of geoidx_dwithin";
	}
	else
		return kDefaultSelectivity;
	if (centre->constisnull)
		return 0.0;

	geoidx::LonLat ll;
	bool empty;
	if (!constant_centre(centre, what, &ll, &empty))
		return empty ? 0.0 : kDefaultSelectivity;
	return circle_selectivity(req->root, column, ll, DatumGetFloat8(((Const *) em)->constvalue),
							  DatumGetBool(((Const *) es)->constvalue), req->varRelid);
}

/* ---------- the region predicates ---------- */

enum class Pred
{
	none,
	beyond,
	nearer,
	outside,
	ring,
};

Pred
which_pred(Oid fn, int *g)
{
	const GeoidxCatalog &o = geoidx_catalog();
	for (*g = 0; *g < 2; (*g)++)
	{
		if (!OidIsValid(fn))
			break;
		if (fn == o.beyond_fn[*g])
			return Pred::beyond;
		if (fn == o.nearer_fn[*g])
			return Pred::nearer;
		if (fn == o.outside_fn[*g])
			return Pred::outside;
		if (fn == o.ring_fn[*g])
			return Pred::ring;
	}
	return Pred::none;
}

Expr *
region_clause(const GeoidxCatalog &o, int g, Node *column, Oid fn, List *args)
{
	FuncExpr *rhs =
		makeFuncExpr(fn, o.circle_type, args, InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	return make_opclause(o.within_op[g], BOOLOID, false, (Expr *) column, (Expr *) rhs, InvalidOid,
						 InvalidOid);
}

/*
 * col <@ circle conditions for a region predicate on a geoidx index. The
 * distance comparisons are exact in either argument order (the spheroid
 * distance is symmetric, see index_condition); outside and ring are exact as
 * geoidx_dwithin is, and with the sphere and the column first the radii move by
 * kOrderSlackMetres outwards (constants only) and the call stays as the filter.
 */
List *
region_index_conditions(SupportRequestIndexCondition *req)
{
	if (!is_funcclause(req->node) || req->indexarg < 0 || req->indexarg > 1)
		return NIL;
	FuncExpr *clause = (FuncExpr *) req->node;
	int g;
	Pred pred = which_pred(clause->funcid, &g);
	if (pred == Pred::none)
		return NIL;
	const GeoidxCatalog &o = geoidx_catalog();
	if (!OidIsValid(o.within_op[g]) || !op_in_opfamily(o.within_op[g], req->opfamily))
		return NIL;
	int nargs = list_length(clause->args);
	if (nargs != (pred == Pred::ring ? 5 : 4))
		return NIL;
	Node *column = (Node *) list_nth(clause->args, req->indexarg);
	Node *other = (Node *) list_nth(clause->args, 1 - req->indexarg);
	List *conds = NIL;
	req->lossy = false;

	if (pred == Pred::beyond || pred == Pred::nearer)
	{
		Node *inclusive = (Node *) lfourth(clause->args);
		if (!IsA(inclusive, Const) || ((Const *) inclusive)->constisnull)
			return NIL;
		bool incl = DatumGetBool(((Const *) inclusive)->constvalue);
		const char *op = pred == Pred::beyond ? (incl ? ">=" : ">") : (incl ? "<=" : "<");
		Node *optext = (Node *) makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
										  PointerGetDatum(cstring_to_text(op)), false, false);
		if (!OidIsValid(o.circle_distance_fn[g]))
			return NIL;
		conds = list_make1(region_clause(o, g, column, o.circle_distance_fn[g],
										 list_make3(other, optext, lthird(clause->args))));
	}
	else
	{
		/*
		 * The hole (outside; a ring's inner radius) is decided in the call's
		 * argument order, point_first when the column is its first argument:
		 * exact. A ring's disc is geoidx_circle, decided centre first: exact on
		 * the spheroid or with the column second, else 1 um wider (as
		 * geoidx_dwithin's) and the call stays as the filter.
		 */
		Node *use_spheroid = (Node *) llast(clause->args);
		if (!OidIsValid(o.circle_outside_fn[g]) || !OidIsValid(o.circle_fn[g]))
			return NIL;
		Node *point_first = makeBoolConst(req->indexarg == 0, false);
		conds = list_make1(
			region_clause(o, g, column, o.circle_outside_fn[g],
						  list_make4(other, lthird(clause->args), use_spheroid, point_first)));
		if (pred == Pred::ring)
		{
			Node *outer = (Node *) lfourth(clause->args);
			if (req->indexarg == 0 && !is_true_const(use_spheroid))
			{
				outer = widen_radius(outer, o);
				req->lossy = true;
			}
			conds = lappend(conds, region_clause(o, g, column, o.circle_fn[g],
												 list_make3(other, outer, use_spheroid)));
		}
	}
	ListCell *lc;
	foreach (lc, conds)
	{
		Node *rhs = (Node *) lsecond(((OpExpr *) lfirst(lc))->args);
		if (!is_pseudo_constant_for_index(req->root, rhs, req->index))
			return NIL;
	}
	return conds;
}

/*
 * Share of rows in a region of `mode` around a constant centre: the disc's
 * estimate, or its complement.
 */
double
region_selectivity(PlannerInfo *root, Node *column, geoidx::LonLat centre, double radius,
				   bool use_spheroid, geoidx::RegionMode mode, int var_relid)
{
	bool outer = mode == geoidx::RegionMode::outside || mode == geoidx::RegionMode::dist_gt ||
				 mode == geoidx::RegionMode::dist_ge;
	if (mode != geoidx::RegionMode::within && mode != geoidx::RegionMode::outside)
	{
		if (std::isnan(radius))
			return outer ? 0.0 : 1.0;
		if (radius < 0.0)
			return outer ? 1.0 : 0.0;
	}
	double s = circle_selectivity(root, column, centre, radius, use_spheroid, var_relid);
	return outer ? 1.0 - s : s;
}

/*
 * What to assume of a region whose centre or bound is not known at planning
 * time (a generic plan's parameters): a disc or ring holds few rows, beyond a
 * bound or outside a disc almost all. Guessing a paging key as selective as a
 * radius would make the generic plan look dearer than the custom ones, and
 * each execution would then plan again.
 */
double
unknown_region_selectivity(bool outer)
{
	return outer ? 1.0 - kDefaultSelectivity : kDefaultSelectivity;
}

double
region_pred_selectivity(SupportRequestSelectivity *req)
{
	int g;
	Pred pred = which_pred(req->funcid, &g);
	int nargs = list_length(req->args);
	if (req->is_join || pred == Pred::none || nargs != (pred == Pred::ring ? 5 : 4))
		return kDefaultSelectivity;
	const double fallback =
		unknown_region_selectivity(pred == Pred::beyond || pred == Pred::outside);

	Node *ea = estimate_expression_value(req->root, (Node *) linitial(req->args));
	Node *eb = estimate_expression_value(req->root, (Node *) lsecond(req->args));
	Node *column;
	Const *centre;
	if (IsA(eb, Const) && !IsA(ea, Const))
	{
		column = (Node *) linitial(req->args);
		centre = (Const *) eb;
	}
	else if (IsA(ea, Const) && !IsA(eb, Const))
	{
		column = (Node *) lsecond(req->args);
		centre = (Const *) ea;
	}
	else
		return fallback;
	double nums[2];
	for (int i = 0; i < (pred == Pred::ring ? 2 : 1); i++)
	{
		Node *e = estimate_expression_value(req->root, (Node *) list_nth(req->args, 2 + i));
		if (!IsA(e, Const))
			return fallback;
		if (((Const *) e)->constisnull)
			return 0.0;
		nums[i] = DatumGetFloat8(((Const *) e)->constvalue);
	}
	Node *flag = estimate_expression_value(req->root, (Node *) llast(req->args));
	if (!IsA(flag, Const))
		return fallback;
	if (centre->constisnull || ((Const *) flag)->constisnull)
		return 0.0;
	bool flagv = DatumGetBool(((Const *) flag)->constvalue);

	geoidx::LonLat ll;
	bool empty;
	if (!constant_centre(centre, "the centre of a geoidx region", &ll, &empty))
		return empty ? 0.0 : kDefaultSelectivity;
	if (pred == Pred::ring)
	{
		double s = circle_selectivity(req->root, column, ll, nums[1], flagv, req->varRelid) -
				   circle_selectivity(req->root, column, ll, nums[0], flagv, req->varRelid);
		return s < 0.0 ? 0.0 : s;
	}
	/* the last argument is `inclusive` for the distance comparisons, `use_spheroid` for outside */
	geoidx::RegionMode mode =
		pred == Pred::outside ? geoidx::RegionMode::outside
		: pred == Pred::beyond
			? (flagv ? geoidx::RegionMode::dist_ge : geoidx::RegionMode::dist_gt)
			: (flagv ? geoidx::RegionMode::dist_le : geoidx::RegionMode::dist_lt);
	bool use_spheroid = pred == Pred::outside ? flagv : true;
	return region_selectivity(req->root, column, ll, nums[0], use_spheroid, mode, req->varRelid);
}

} // namespace

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_dwithin_support);
	PG_FUNCTION_INFO_V1(geoidx_region_support);
	PG_FUNCTION_INFO_V1(geoidx_circle_sel);
	PG_FUNCTION_INFO_V1(geoidx_in_array_sel);
}

namespace
{

/* One support function's answers: index conditions and selectivity, by the predicate's own rules.
 */
Datum
answer_support(Node *rawreq, List *(*conditions)(SupportRequestIndexCondition *),
			   double (*selectivity)(SupportRequestSelectivity *))
{
	if (IsA(rawreq, SupportRequestIndexCondition))
		return PointerGetDatum(conditions((SupportRequestIndexCondition *) rawreq));
	if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;
		req->selectivity = selectivity(req);
		return PointerGetDatum(req);
	}
	return PointerGetDatum(NULL);
}

} // namespace

extern "C" Datum
geoidx_region_support(PG_FUNCTION_ARGS)
{
	return answer_support((Node *) PG_GETARG_POINTER(0), region_index_conditions,
						  region_pred_selectivity);
}

extern "C" Datum
geoidx_dwithin_support(PG_FUNCTION_ARGS)
{
	return answer_support((Node *) PG_GETARG_POINTER(0), index_condition, dwithin_selectivity);
}

/*
 * RESTRICT of col <@ array: what PostgreSQL estimates for col = ANY(array),
 * the condition it stands for.
 */
extern "C" Datum
geoidx_in_array_sel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	List *args = (List *) PG_GETARG_POINTER(2);
	int var_relid = PG_GETARG_INT32(3);
	if (list_length(args) != 2)
		PG_RETURN_FLOAT8(kDefaultSelectivity);
	TypeCacheEntry *tc = lookup_type_cache(exprType((Node *) linitial(args)), TYPECACHE_EQ_OPR);
	if (!OidIsValid(tc->eq_opr))
		PG_RETURN_FLOAT8(kDefaultSelectivity);
	ScalarArrayOpExpr *saop = makeNode(ScalarArrayOpExpr);
	saop->opno = tc->eq_opr;
	saop->opfuncid = get_opcode(tc->eq_opr);
	saop->useOr = true;
	saop->inputcollid = PG_GET_COLLATION();
	saop->args = args;
	saop->location = -1;
	PG_RETURN_FLOAT8(scalararraysel(root, saop, false, var_relid, JOIN_INNER, NULL));
}

/* RESTRICT of <@: (root, operator, args = [column, circle], varRelid). */
extern "C" Datum
geoidx_circle_sel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	List *args = (List *) PG_GETARG_POINTER(2);
	int var_relid = PG_GETARG_INT32(3);

	if (list_length(args) != 2)
		PG_RETURN_FLOAT8(kDefaultSelectivity);
	Node *column = (Node *) linitial(args);
	Node *circle = estimate_expression_value(root, (Node *) lsecond(args));
	if (!IsA(circle, Const) || IsA(column, Const))
	{
		/* a circle of parameters: at least its kind is known from the function that makes it */
		bool outer = false;
		if (IsA(circle, FuncExpr))
		{
			const GeoidxCatalog &o = geoidx_catalog();
			FuncExpr *f = (FuncExpr *) circle;
			for (int g = 0; g < 2; g++)
			{
				if (f->funcid == o.circle_outside_fn[g])
					outer = true;
				else if (f->funcid == o.circle_distance_fn[g] && list_length(f->args) == 3 &&
						 IsA(lsecond(f->args), Const) && !((Const *) lsecond(f->args))->constisnull)
				{
					char *op = TextDatumGetCString(((Const *) lsecond(f->args))->constvalue);
					outer = op[0] == '>';
				}
			}
		}
		PG_RETURN_FLOAT8(unknown_region_selectivity(outer));
	}
	if (((Const *) circle)->constisnull)
		PG_RETURN_FLOAT8(0.0);

	const GeoidxCircle *c = (const GeoidxCircle *) DatumGetPointer(((Const *) circle)->constvalue);
	geoidx::LonLat ll = {c->lon, c->lat};
	if (c->mode < 0 || c->mode >= geoidx::kRegionModes)
		PG_RETURN_FLOAT8(kDefaultSelectivity);
	PG_RETURN_FLOAT8(region_selectivity(root, column, ll, c->radius, c->use_spheroid != 0,
										(geoidx::RegionMode) c->mode, var_relid));
}
