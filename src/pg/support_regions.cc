/*
 * The index conditions of the region predicates (geoidx_beyond, geoidx_nearer,
 * geoidx_outside, geoidx_ring, see regions.cc): `col <@ circle` conditions
 * whose circle values are the regions of src/core/region.h.
 */
#include "geoidx.h"

extern "C"
{
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
}

#include <cmath>

/* Return which region predicate fn is, and in *g its type (0 geometry, 1 geography). */
GeoidxPred
geoidx_which_pred(Oid fn, int *g)
{
	const GeoidxCatalog &o = geoidx_catalog();
	for (*g = 0; *g < 2; (*g)++)
	{
		if (!OidIsValid(fn))
			break;
		if (fn == o.beyond_fn[*g])
			return GeoidxPred::beyond;
		if (fn == o.nearer_fn[*g])
			return GeoidxPred::nearer;
		if (fn == o.outside_fn[*g])
			return GeoidxPred::outside;
		if (fn == o.ring_fn[*g])
			return GeoidxPred::ring;
	}
	return GeoidxPred::none;
}

namespace
{

/* Build col <@ fn(args), the circle of type g that fn makes. */
Expr *
region_clause(const GeoidxCatalog &o, int g, Node *column, Oid fn, List *args)
{
	FuncExpr *rhs =
		makeFuncExpr(fn, o.circle_type, args, InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	return make_opclause(o.within_op[g], BOOLOID, false, (Expr *) column, (Expr *) rhs, InvalidOid,
						 InvalidOid);
}

} // namespace

/*
 * Build the col <@ circle conditions of a region predicate on a geoidx index. The
 * distance comparisons are exact in either argument order (the spheroid
 * distance is symmetric, see support.cc); outside and ring are exact as
 * geoidx_dwithin is, and with the sphere and the column first the radii move by
 * kOrderSlackMetres outwards (constants only) and the call stays as the filter.
 */
List *
geoidx_region_index_conditions(SupportRequestIndexCondition *req)
{
	if (!is_funcclause(req->node) || req->indexarg < 0 || req->indexarg > 1)
		return NIL;
	FuncExpr *clause = (FuncExpr *) req->node;
	int g;
	GeoidxPred pred = geoidx_which_pred(clause->funcid, &g);
	if (pred == GeoidxPred::none)
		return NIL;
	const GeoidxCatalog &o = geoidx_catalog();
	if (!OidIsValid(o.within_op[g]) || !op_in_opfamily(o.within_op[g], req->opfamily))
		return NIL;
	int nargs = list_length(clause->args);
	if (nargs != (pred == GeoidxPred::ring ? 5 : 4))
		return NIL;
	Node *column = (Node *) list_nth(clause->args, req->indexarg);
	Node *other = (Node *) list_nth(clause->args, 1 - req->indexarg);
	List *conds = NIL;
	req->lossy = false;

	bool maybe_shape = !geoidx_is_point_for_every_row(other, o);
	/*
	 * A constant shape: its regions are no circles around a point. Nearer
	 * than a radius is within the candidate disc of that radius (lossy, the
	 * call stays as the filter), for a constant number >= 0 (nearer than NaN
	 * is every row, float8's order); beyond is below; the other regions get
	 * no condition.
	 */
	if (IsA(other, Const) && maybe_shape && pred != GeoidxPred::beyond)
	{
		Node *bound = (Node *) lthird(clause->args);
		if (pred != GeoidxPred::nearer || !IsA(bound, Const) || ((Const *) bound)->constisnull)
			return NIL;
		double r = DatumGetFloat8(((Const *) bound)->constvalue);
		if (std::isnan(r) || r < 0.0)
			return NIL;
		return geoidx_shape_index_condition(req, column, other, bound);
	}
	/*
	 * A parameter the planner cannot prove a point may be a shape at run
	 * time, which no circle of a point holds. Nearer than a bound is within
	 * the candidate disc of that bound (a NaN bound: the whole sphere's), a
	 * ring within that of its outer radius, and the call stays as the filter
	 * (cheap for a point: the memos of geoidx_nearer and geoidx_dwithin). The
	 * outside of a shape is no circle's: no condition.
	 */
	if (maybe_shape && pred == GeoidxPred::outside)
		return NIL;
	if (maybe_shape && (pred == GeoidxPred::nearer || pred == GeoidxPred::ring))
	{
		Node *bound =
			(Node *) (pred == GeoidxPred::ring ? lfourth(clause->args) : lthird(clause->args));
		Node *radius = geoidx_disc_radius(o, req->root, req->index->rel, bound);
		return radius == NULL ? NIL : geoidx_shape_index_condition(req, column, other, radius);
	}

	if (pred == GeoidxPred::beyond || pred == GeoidxPred::nearer)
	{
		Node *inclusive = (Node *) lfourth(clause->args);
		if (!IsA(inclusive, Const) || ((Const *) inclusive)->constisnull)
			return NIL;
		bool incl = DatumGetBool(((Const *) inclusive)->constvalue);
		const char *op = pred == GeoidxPred::beyond ? (incl ? ">=" : ">") : (incl ? "<=" : "<");
		Node *optext = (Node *) makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
										  PointerGetDatum(cstring_to_text(op)), false, false);
		/*
		 * Beyond a value that may be a shape (a constant shape, or a parameter
		 * the planner cannot prove a point): geoidx_candidate_beyond's region,
		 * exact for a point, holding every row beyond a shape; the call stays
		 * as the filter, which a page of keyset paging runs on its rows only.
		 */
		bool shape_beyond = maybe_shape && pred == GeoidxPred::beyond;
		Oid fn = shape_beyond ? o.candidate_beyond_fn[g] : o.circle_distance_fn[g];
		if (!OidIsValid(fn))
			return NIL;
		req->lossy = shape_beyond;
		conds = list_make1(
			region_clause(o, g, column, fn, list_make3(other, optext, lthird(clause->args))));
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
		if (pred == GeoidxPred::ring)
		{
			Node *outer = (Node *) lfourth(clause->args);
			if (req->indexarg == 0 && !geoidx_is_true_const(use_spheroid))
			{
				outer = geoidx_widen_radius(outer, o);
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
