/*
 * The planner support of geoidx's planar predicate functions (planar_functions.cc):
 * where the rewrite (rewrite.cc) leaves PostGIS's call as a function, because
 * no operator of geoidx's family takes the column on that side, this gives the
 * index the box condition PostGIS's own support gives GiST, lossy, the call
 * staying as the filter:
 *
 *   geoidx_planar_within(col, g), _coveredby(col, g),
 *   geoidx_planar_contains(g, col), _covers(g, col)    ->  col @ g
 *   geoidx_planar_within(g, col), _coveredby(g, col),
 *   geoidx_planar_contains(col, g), _covers(col, g)    ->  col ~ g
 *   geoidx_planar_dwithin(col, g, d), (g, col, d)      ->  col && ST_Expand(g, d)
 *
 * Each holds for every row the predicate keeps: a geometry within another has
 * its coordinate box inside the other's, and rounding both outwards to floats
 * keeps it so; ST_DWithin's partners lie in the other's box grown by d, which
 * is how PostGIS indexes it. The selectivity is the box condition's, from
 * PostGIS's own estimator of && (as PostGIS estimates its functions).
 */
#include "geoidx.h"

extern "C"
{
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/plancat.h"
#include "utils/selfuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
}

namespace
{

enum class Shape
{
	none,
	inner, /* the first argument lies within the second: within, coveredby */
	outer, /* the first holds the second: contains, covers */
	near,  /* dwithin */
};

Shape
shape_of(const GeoidxCatalog &o, Oid fn)
{
	if (!OidIsValid(fn))
		return Shape::none;
	if (fn == o.gx_planar_within_fn || fn == o.gx_planar_coveredby_fn)
		return Shape::inner;
	if (fn == o.gx_planar_contains_fn || fn == o.gx_planar_covers_fn)
		return Shape::outer;
	if (fn == o.gx_planar_dwithin_fn)
		return Shape::near;
	return Shape::none;
}

/* The box operator and right-hand side for `column` at position col_arg (0 or 1). */
bool
box_condition(const GeoidxCatalog &o, Shape shape, List *args, int col_arg, Oid *op, Node **rhs)
{
	Node *other = (Node *) list_nth(args, 1 - col_arg);
	switch (shape)
	{
		case Shape::inner:
			*op = col_arg == 0 ? o.box_within_op : o.box_contains_op;
			*rhs = other;
			break;
		case Shape::outer:
			*op = col_arg == 0 ? o.box_contains_op : o.box_within_op;
			*rhs = other;
			break;
		case Shape::near:
			if (list_length(args) != 3 || !OidIsValid(o.pg_expand_fn))
				return false;
			*op = o.overlap_op[0];
			*rhs = (Node *) makeFuncExpr(o.pg_expand_fn, o.geometry_type,
										 list_make2(other, lthird(args)), InvalidOid, InvalidOid,
										 COERCE_EXPLICIT_CALL);
			break;
		case Shape::none:
			return false;
	}
	return OidIsValid(*op);
}

/* The call's function and arguments, whether written as a function or an operator. */
bool
call_of(Node *node, Oid *fn, List **args)
{
	if (is_funcclause(node))
	{
		*fn = ((FuncExpr *) node)->funcid;
		*args = ((FuncExpr *) node)->args;
		return true;
	}
	if (is_opclause(node))
	{
		*fn = get_opcode(((OpExpr *) node)->opno);
		*args = ((OpExpr *) node)->args;
		return true;
	}
	return false;
}

List *
index_conditions(SupportRequestIndexCondition *req)
{
	const GeoidxCatalog &o = geoidx_catalog();
	Oid fn;
	List *args;
	if (!call_of(req->node, &fn, &args) || req->indexarg < 0 || req->indexarg > 1 ||
		list_length(args) < 2)
		return NIL;
	Node *column = (Node *) list_nth(args, req->indexarg);
	if (exprType(column) != o.geometry_type ||
		exprType((Node *) list_nth(args, 1 - req->indexarg)) != o.geometry_type)
		return NIL;
	Oid op;
	Node *rhs;
	if (!box_condition(o, shape_of(o, fn), args, req->indexarg, &op, &rhs) ||
		!op_in_opfamily(op, req->opfamily) ||
		!is_pseudo_constant_for_index(req->root, rhs, req->index))
		return NIL;
	req->lossy = true;
	return list_make1(
		make_opclause(op, BOOLOID, false, (Expr *) column, (Expr *) rhs, InvalidOid, InvalidOid));
}

/* The box condition's selectivity, the column taken to be the argument with Vars. */
double
selectivity(SupportRequestSelectivity *req)
{
	const GeoidxCatalog &o = geoidx_catalog();
	Shape shape = shape_of(o, req->funcid);
	if (shape == Shape::none || list_length(req->args) < 2)
		return DEFAULT_INEQ_SEL;
	int col_arg = contain_var_clause((Node *) linitial(req->args)) ? 0 : 1;
	Oid op;
	Node *rhs;
	if (!box_condition(o, shape, req->args, col_arg, &op, &rhs))
		return DEFAULT_INEQ_SEL;
	if (!req->is_join)
		rhs = estimate_expression_value(req->root, rhs);
	List *pair = list_make2(list_nth(req->args, col_arg), rhs);
	Selectivity s =
		req->is_join
			? join_selectivity(req->root, op, pair, req->inputcollid, req->jointype, req->sjinfo)
			: restriction_selectivity(req->root, op, pair, req->inputcollid, req->varRelid);
	CLAMP_PROBABILITY(s);
	return s;
}

} // namespace

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_planar_support);
}

/* Answer the planner's requests for geoidx's planar predicate functions. */
extern "C" Datum
geoidx_planar_support(PG_FUNCTION_ARGS)
{
	Node *rawreq = (Node *) PG_GETARG_POINTER(0);
	if (IsA(rawreq, SupportRequestIndexCondition))
		PG_RETURN_POINTER(index_conditions((SupportRequestIndexCondition *) rawreq));
	if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;
		req->selectivity = selectivity(req);
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}
