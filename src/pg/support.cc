/*
 * Planner support for geoidx_dwithin and the region predicates: their support
 * functions, and the index conditions of geoidx_dwithin (those of the region
 * predicates are in support_regions.cc, every estimate in selectivity.cc).
 *
 * Index conditions. geoidx_dwithin(a, b, metres [, use_spheroid]) on an indexed
 * column (either a or b) with everything else constant for the scan becomes
 *   - on a geoidx index:            col <@ geoidx_circle(other, metres, use_spheroid)
 *     an exact condition (lossy = false): the index decides ST_DWithin itself;
 *   - on a GiST or SP-GiST index whose operator family has PostGIS's
 *     && (geometry, geometry):      col && geoidx_search_box(other, metres, use_spheroid)
 *     a lossy one: the original call stays as a filter. Only for a column
 *     and a centre that are points in every row (a geometry(Point) column):
 *     the box in degrees does not hold a shape's geodesic edges.
 * When other may be a shape in some row or for some parameter value (anything
 * but a constant point, a Point-typed column, PostGIS's point constructors),
 * the geoidx condition is the lossy col <@ geoidx_candidate_circle(other,
 * metres) of the shape predicates instead, with the call as the filter.
 * The same for geography arguments on a geoidx geography index (geoidx_circle's
 * geography overload); on PostGIS's own geography GiST index nothing: the call
 * stays as it is (a box in degrees is no key of it; its own ST_DWithin is the
 * function for that index).
 *
 * Every OID comes from the one catalog cache (catalog.cc).
 */
#include "geoidx.h"

extern "C"
{
#include "catalog/pg_am.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/syscache.h"
}

namespace
{

/* Return the access method of an operator family. */
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

} // namespace

/* Return whether n is the constant true (a known use_spheroid). */
bool
geoidx_is_true_const(Node *n)
{
	return IsA(n, Const) && !((Const *) n)->constisnull && DatumGetBool(((Const *) n)->constvalue);
}

/*
 * Return metres + kOrderSlackMetres; a constant is folded, and left alone if
 * NaN or negative (a disc of nothing either way).
 */
Node *
geoidx_widen_radius(Node *metres, const GeoidxCatalog &o)
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

namespace
{

/* Whether PostGIS's function fn makes a point of any arguments (ST_MakePoint, ST_Point...). */
bool
makes_point(const char *fn)
{
	static const char *const names[] = {"st_makepoint", "st_makepointm", "st_point",
										"st_pointz",    "st_pointm",     "st_pointzm"};
	for (const char *n : names)
		if (strcmp(fn, n) == 0)
			return true;
	return false;
}

/*
 * Whether other is a point (or EMPTY, or NULL) in every row and for every
 * parameter value: a constant, a column or cast whose type modifier says
 * Point, or PostGIS's point constructors under ST_SetSRID, ST_Transform and
 * the casts. Only then can geoidx_circle(other, ...) be the index condition:
 * it is a disc around a point, and raises an error for a shape.
 */
bool
is_point_for_every_row(Node *other, const GeoidxCatalog &o)
{
	if (IsA(other, Const))
		return ((Const *) other)->constisnull ||
			   !geoidx_datum_is_shape(((Const *) other)->constvalue);
	if (IsA(other, RelabelType))
		return is_point_for_every_row((Node *) ((RelabelType *) other)->arg, o);
	int32 typmod = exprTypmod(other);
	if (typmod >= 0 && GeoidxTypmodType(typmod) == GEOIDX_TYPMOD_POINTTYPE)
		return true;
	if (!IsA(other, FuncExpr) || !OidIsValid(o.pg_geography_fn))
		return false;
	FuncExpr *f = (FuncExpr *) other;
	if (get_func_namespace(f->funcid) != get_func_namespace(o.pg_geography_fn))
		return false;
	const char *name = get_func_name(f->funcid);
	if (name == NULL)
		return false;
	if (makes_point(name))
		return true;
	if (f->args != NIL && (strcmp(name, "st_setsrid") == 0 || strcmp(name, "st_transform") == 0 ||
						   strcmp(name, "geography") == 0 || strcmp(name, "geometry") == 0))
		return is_point_for_every_row((Node *) linitial(f->args), o);
	return false;
}

/* Build the index condition of geoidx_dwithin on a geoidx, GiST or SP-GiST index, or NIL. */
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

	/*
	 * A shape, or what may be one (a zone from the outer side of a join, a
	 * parameter): the disc of a point cannot hold it, the candidate disc can,
	 * and the call stays as the filter. (GiST's box below refuses it itself.)
	 */
	const bool geoidx_index =
		OidIsValid(within_op) && OidIsValid(circle_fn) && op_in_opfamily(within_op, req->opfamily);
	if (geoidx_index && !is_point_for_every_row(other, o))
		return geoidx_shape_index_condition(req, column, other, metres);

	Oid op, fn, fn_type;
	if (geoidx_index)
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
		 * filter. (A parameter radius in [-1 um, 0) then gives the index a
		 * tiny disc, and the filter false for the rows it returns.)
		 */
		bool exact = req->indexarg == 1 || geoidx_is_true_const(use_spheroid);
		if (!exact)
			metres = geoidx_widen_radius(metres, o);
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
		/*
		 * The box in degrees holds the points within the radius, not a shape's
		 * geodesic edges (which bulge beyond the degree box of their ends) nor
		 * a ring around a pole: only a column of points may use it, and only a
		 * point centre has one.
		 */
		if (!is_point_for_every_row(column, o) || !is_point_for_every_row(other, o))
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

/* Answer a support request: index conditions and selectivity, by the predicate's own rules. */
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

/* Build the index conditions of geoidx_dwithin for the index of a request (see the header). */
List *
geoidx_dwithin_index_conditions(SupportRequestIndexCondition *req)
{
	return index_condition(req);
}

/* Whether other is a point (or EMPTY, or NULL) in every row and for every parameter value. */
bool
geoidx_is_point_for_every_row(Node *other, const GeoidxCatalog &o)
{
	return is_point_for_every_row(other, o);
}

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_dwithin_support);
	PG_FUNCTION_INFO_V1(geoidx_region_support);
}

/* Answer the planner's requests for geoidx_beyond, geoidx_nearer, geoidx_outside, geoidx_ring. */
extern "C" Datum
geoidx_region_support(PG_FUNCTION_ARGS)
{
	return answer_support((Node *) PG_GETARG_POINTER(0), geoidx_region_index_conditions,
						  geoidx_region_pred_selectivity);
}

/* Answer the planner's requests for geoidx_dwithin. */
extern "C" Datum
geoidx_dwithin_support(PG_FUNCTION_ARGS)
{
	return answer_support((Node *) PG_GETARG_POINTER(0), index_condition,
						  geoidx_dwithin_selectivity);
}
