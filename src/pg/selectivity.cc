/*
 * The planner's estimates for geoidx_dwithin, the region predicates, <@ and
 * col <@ array.
 *
 * With a constant centre and radius, the rows within the circle are counted
 * in a geoidx index on the column where there is one (tree_estimate.cc), and
 * otherwise estimated as PostGIS's && estimate for the search box times the
 * share of the box's area the circle covers (pi/4 for small circles): the
 * histogram has no finer resolution than the box. The same estimate serves <@ (geoidx_circle_sel).
 * For a geography column PostGIS's estimator of && (geography, geography) is
 * asked instead, with the box PostGIS's own ST_DWithin(geography) gives its
 * index, _ST_Expand(centre, metres) (geocentric, as the column's statistics),
 * times pi/4 for the disc in the square.
 */
#include "degree_box.h"
#include "geodesy.h"
#include "region.h"
#include "region_share.h"

#include "geoidx.h"

extern "C"
{
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/plancat.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"
}

#include <cmath>
#include <utility>

namespace
{

/* The estimate where there is none (see region_share.h). */
constexpr double kDefaultSelectivity = geoidx::kDefaultShare;

/* Return _ST_Expand('SRID=4326;POINT(lon lat)'::geography, radius): a geography with the box. */
Datum
geography_search_box(geoidx::LonLat centre, double radius, const GeoidxCatalog &o)
{
	char wkt[96];
	snprintf(wkt, sizeof(wkt), "SRID=4326;POINT(%.17g %.17g)", centre.lon, centre.lat);
	Datum point = OidInputFunctionCall(o.geography_input, wkt, o.geography_ioparam, -1);
	return OidFunctionCall2(o.geog_expand_fn, point, Float8GetDatum(radius));
}

/*
 * Estimate the rows of `column` (an expression of one relation) within the circle: the &&
 * estimate of the search box (two boxes across the antimeridian) times the
 * circle's share of their area.
 */
double
circle_selectivity(PlannerInfo *root, Node *column, geoidx::LonLat centre, double radius,
				   bool use_spheroid, int var_relid, int max_pages = kGeoidxEstimatePages)
{
	geoidx::DiscRadius bound = geoidx::classify_disc_radius(radius);
	if (bound == geoidx::DiscRadius::invalid)
		return kDefaultSelectivity;

	const GeoidxCatalog &o = geoidx_catalog();
	Oid type = exprType(column);
	bool geography = OidIsValid(o.geography_type) && type == o.geography_type;
	if (type != o.geometry_type &&
		!(geography && OidIsValid(o.overlap_op[1]) && OidIsValid(o.geog_expand_fn)))
		return kDefaultSelectivity; /* a string overload's, or no estimator */
	if (bound == geoidx::DiscRadius::everything)
		return 1.0;

	double rows, total;
	if (geoidx_tree_estimate(root, column, centre, radius, use_spheroid, &rows, &total, max_pages))
		return geoidx::clamp_share(rows / total);

	if (geography)
	{
		Const *box = makeConst(o.geography_type, -1, InvalidOid, -1,
							   geography_search_box(centre, radius, o), false, false);
		double sel = restriction_selectivity(root, o.overlap_op[1], list_make2(column, box),
											 InvalidOid, var_relid) *
					 (M_PI / 4.0);
		return geoidx::clamp_share(sel);
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
	return geoidx::clamp_share(overlap * geoidx::circle_fraction(radius, boxes, n));
}

/*
 * Read the centre of a constant geometry; false (no estimate) if EMPTY or not
 * finite. A shape (the other side of geoidx_dwithin may be one) is read as
 * the centre of its box, *reach the metres its points may lie from there;
 * without reach, a shape gets no estimate.
 */
bool
constant_centre(Const *c, const char *what, geoidx::LonLat *ll, bool *empty,
				double *reach = nullptr)
{
	GeoidxPoint p;
	geoidx_decode_any(c->constvalue, what, &p);
	*empty = p.empty;
	if (p.empty || (p.shape && reach == nullptr))
		return false;
	if (reach != nullptr)
		*reach = p.shape ? geoidx_shape_reach_metres(&p) : 0.0;
	return geoidx::normalize_like_geography(p.x, p.y, ll) != geoidx::CoordCheck::not_finite;
}

/*
 * The chance that a centre drawn from a partitioned table's rows lies among
 * this partition's: 1 / (the partitions planned) where the table is
 * partitioned by range or list on geoidx_cell of the column, so that each
 * partition's rows are a region of their own; 1 otherwise (every partition's
 * rows lie everywhere, and a centre is amid each partition's as amid the
 * table's).
 */
double
centre_in_partition(PlannerInfo *root, Node *column)
{
	if (!IsA(column, Var) || root->append_rel_array == NULL)
		return 1.0;
	Index relid = ((Var *) column)->varno;
	AppendRelInfo *app = root->append_rel_array[relid];
	if (app == NULL)
		return 1.0;
	RelOptInfo *parent = root->simple_rel_array[app->parent_relid];
	int level;
	Var *col = parent == NULL ? NULL : geoidx_cell_partition_key(geoidx_catalog(), parent, &level);
	AttrNumber att = ((Var *) column)->varattno;
	if (col == NULL || att < 1 || att > app->num_child_cols ||
		col->varattno != app->parent_colnos[att - 1])
		return 1.0;
	int live = bms_num_members(parent->live_parts);
	return live > 1 ? 1.0 / live : 1.0;
}

/*
 * The centres a disc of unknown centre is estimated around, and the pages
 * each of their estimates may read: the mean of many rough counts, cheap
 * enough to pay at every planning (a generic plan can be planned again and
 * again; the memo below spares most of them).
 */
constexpr int kSampledCentres = 16;
constexpr int kSamplePages = 6;

/*
 * The last few sampled estimates, kept by the backend for as long as the
 * table's size is what it was (the pages the planner reads, the rows
 * pg_class says): a sample reads hundreds of pages (8.7 ms for a 200 km disc
 * in 85k clustered points), and a generic plan that PostgreSQL plans again
 * and again must not pay it each time. Stale between ANALYZEs as any
 * statistic is, never across a change of the table's size.
 */
struct SampledMemo
{
	bool used;
	Oid relid; /* the table (a range-table index means another table in a subquery) */
	AttrNumber varattno;
	BlockNumber pages;
	double tuples;
	double metres;
	bool use_spheroid;
	double share; /* the mean share around the samples, before centre_in_partition */
};
constexpr int kSampledMemo = 8;
SampledMemo sampled_memo[kSampledMemo];
int sampled_next = 0;

/*
 * The share of rows within a constant radius of a centre not known at
 * planning (a parameter of a generic plan, a column of an outer row): the
 * mean share around kSampledCentres points of the column itself, taken from
 * its geoidx index, since a centre asked for is most often where the rows
 * are. False (the default estimate) without such an index or a constant
 * radius; a generic plan then costs its disc at the default share, which
 * makes PostgreSQL plan every execution anew.
 */
bool
sampled_centre_selectivity(PlannerInfo *root, Node *column, Node *radius, Node *spheroid,
						   int var_relid, double *share)
{
	radius = estimate_expression_value(root, radius);
	spheroid = estimate_expression_value(root, spheroid);
	if (!IsA(radius, Const) || !IsA(spheroid, Const) || ((Const *) radius)->constisnull ||
		((Const *) spheroid)->constisnull)
		return false;
	double metres = DatumGetFloat8(((Const *) radius)->constvalue);
	bool use_spheroid = DatumGetBool(((Const *) spheroid)->constvalue);
	if (geoidx::classify_disc_radius(metres) == geoidx::DiscRadius::invalid || !IsA(column, Var))
		return false;
	const Var *v = (const Var *) column;
	if (v->varlevelsup != 0 || v->varno < 1 || v->varno >= root->simple_rel_array_size)
		return false;
	Oid relid = planner_rt_fetch(v->varno, root)->relid;
	RelOptInfo *rel = root->simple_rel_array[v->varno];
	if (rel == NULL)
		return false;
	for (const SampledMemo &m : sampled_memo)
		if (m.used && m.relid == relid && m.varattno == v->varattno && m.pages == rel->pages &&
			m.tuples == rel->tuples && m.metres == metres && m.use_spheroid == use_spheroid)
		{
			*share = geoidx::clamp_share(m.share * centre_in_partition(root, column));
			return true;
		}
	geoidx::LonLat centres[kSampledCentres];
	int n = geoidx_tree_sample_points(root, column, centres, kSampledCentres);
	if (n == 0)
		return false;
	double sum = 0.0;
	for (int i = 0; i < n; i++)
		sum += circle_selectivity(root, column, centres[i], metres, use_spheroid, var_relid,
								  kSamplePages);
	double mean = sum / n;
	sampled_memo[sampled_next] =
		SampledMemo{true, relid, v->varattno, rel->pages, rel->tuples, metres, use_spheroid, mean};
	sampled_next = (sampled_next + 1) % kSampledMemo;
	*share = geoidx::clamp_share(mean * centre_in_partition(root, column));
	return true;
}

} // namespace

/* Estimate the share of rows for which geoidx_dwithin holds. */
double
geoidx_dwithin_selectivity(SupportRequestSelectivity *req)
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
	{
		/* a centre of parameters: the disc around where the rows are, on average */
		double share;
		bool va = contain_var_clause(a), vb = contain_var_clause(b);
		if (va != vb &&
			sampled_centre_selectivity(req->root, va ? a : b, em, es, req->varRelid, &share))
			return share;
		return kDefaultSelectivity;
	}
	if (centre->constisnull)
		return 0.0;

	geoidx::LonLat ll;
	bool empty;
	double reach = 0.0;
	if (!constant_centre(centre, what, &ll, &empty, &reach))
		return empty ? 0.0 : kDefaultSelectivity;
	return circle_selectivity(req->root, column, ll,
							  DatumGetFloat8(((Const *) em)->constvalue) + reach,
							  DatumGetBool(((Const *) es)->constvalue), req->varRelid);
}

namespace
{

/*
 * Estimate the share of rows in a region of `mode` around a constant centre: the disc's
 * estimate, or its complement.
 */
double
region_selectivity(PlannerInfo *root, Node *column, geoidx::LonLat centre, double radius,
				   bool use_spheroid, geoidx::RegionMode mode, int var_relid)
{
	double share;
	if (geoidx::bound_decides_share(mode, radius, &share))
		return share;
	return geoidx::region_share_of_disc(
		mode, circle_selectivity(root, column, centre, radius, use_spheroid, var_relid));
}

/*
 * A region predicate whose centre is not known at planning (a parameter of a
 * generic plan, a column of an outer row) and whose bounds are: its share
 * of the discs sampled where the rows are, as geoidx_dwithin's; else fallback.
 */
double
sampled_region_selectivity(SupportRequestSelectivity *req, GeoidxPred pred, double fallback)
{
	Node *a = (Node *) linitial(req->args), *b = (Node *) lsecond(req->args);
	bool va = contain_var_clause(a), vb = contain_var_clause(b);
	if (va == vb)
		return fallback;
	Node *column = va ? a : b;
	/* the last argument is use_spheroid for outside and ring, inclusive for the comparisons */
	Node *spheroid = pred == GeoidxPred::outside || pred == GeoidxPred::ring
						 ? (Node *) llast(req->args)
						 : makeBoolConst(true, false);
	double near_share, far_share;
	if (!sampled_centre_selectivity(req->root, column, (Node *) lthird(req->args), spheroid,
									req->varRelid, &near_share))
		return fallback;
	switch (pred)
	{
		case GeoidxPred::ring:
			if (!sampled_centre_selectivity(req->root, column, (Node *) lfourth(req->args),
											spheroid, req->varRelid, &far_share))
				return fallback;
			return geoidx::ring_share(far_share, near_share);
		case GeoidxPred::outside:
			return geoidx::region_share_of_disc(geoidx::RegionMode::outside, near_share);
		case GeoidxPred::beyond:
			return geoidx::region_share_of_disc(geoidx::RegionMode::dist_gt, near_share);
		case GeoidxPred::nearer:
			return geoidx::region_share_of_disc(geoidx::RegionMode::dist_lt, near_share);
		case GeoidxPred::none:
			break;
	}
	return fallback;
}

} // namespace

/* Estimate the share of rows for which a region predicate holds. */
double
geoidx_region_pred_selectivity(SupportRequestSelectivity *req)
{
	int g;
	GeoidxPred pred = geoidx_which_pred(req->funcid, &g);
	int nargs = list_length(req->args);
	if (req->is_join || pred == GeoidxPred::none || nargs != (pred == GeoidxPred::ring ? 5 : 4))
		return kDefaultSelectivity;
	const double fallback =
		geoidx::unknown_region_share(pred == GeoidxPred::beyond || pred == GeoidxPred::outside);

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
		return sampled_region_selectivity(req, pred, fallback);
	double nums[2];
	for (int i = 0; i < (pred == GeoidxPred::ring ? 2 : 1); i++)
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
	if (pred == GeoidxPred::ring)
	{
		return geoidx::ring_share(
			circle_selectivity(req->root, column, ll, nums[1], flagv, req->varRelid),
			circle_selectivity(req->root, column, ll, nums[0], flagv, req->varRelid));
	}
	/* the last argument is `inclusive` for the distance comparisons, `use_spheroid` for outside */
	geoidx::RegionMode mode =
		pred == GeoidxPred::outside ? geoidx::RegionMode::outside
		: pred == GeoidxPred::beyond
			? (flagv ? geoidx::RegionMode::dist_ge : geoidx::RegionMode::dist_gt)
			: (flagv ? geoidx::RegionMode::dist_le : geoidx::RegionMode::dist_lt);
	bool use_spheroid = pred == GeoidxPred::outside ? flagv : true;
	return region_selectivity(req->root, column, ll, nums[0], use_spheroid, mode, req->varRelid);
}

namespace
{

/* A restriction estimator's arguments: (root, operator, args, varRelid). */
struct RestrictCall
{
	PlannerInfo *root;
	List *args;
	int var_relid;
};

/* Read a restriction estimator's arguments; return false unless the operator has two operands. */
bool
read_restrict_call(FunctionCallInfo fcinfo, RestrictCall *call)
{
	call->root = (PlannerInfo *) PG_GETARG_POINTER(0);
	call->args = (List *) PG_GETARG_POINTER(2);
	call->var_relid = PG_GETARG_INT32(3);
	return list_length(call->args) == 2;
}

} // namespace

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_circle_sel);
	PG_FUNCTION_INFO_V1(geoidx_shape_op_sel);
	PG_FUNCTION_INFO_V1(geoidx_in_array_sel);
}

/*
 * Estimate col <@ array (its RESTRICT) as PostgreSQL estimates col = ANY(array),
 * the condition it stands for.
 */
extern "C" Datum
geoidx_in_array_sel(PG_FUNCTION_ARGS)
{
	RestrictCall call;
	if (!read_restrict_call(fcinfo, &call))
		PG_RETURN_FLOAT8(kDefaultSelectivity);
	TypeCacheEntry *tc =
		lookup_type_cache(exprType((Node *) linitial(call.args)), TYPECACHE_EQ_OPR);
	if (!OidIsValid(tc->eq_opr))
		PG_RETURN_FLOAT8(kDefaultSelectivity);
	ScalarArrayOpExpr *saop = makeNode(ScalarArrayOpExpr);
	saop->opno = tc->eq_opr;
	saop->opfuncid = get_opcode(tc->eq_opr);
	saop->useOr = true;
	saop->inputcollid = PG_GET_COLLATION();
	saop->args = call.args;
	saop->location = -1;
	PG_RETURN_FLOAT8(scalararraysel(call.root, saop, false, call.var_relid, JOIN_INNER, NULL));
}

namespace
{

/* The circle operands of the `column <@ circle` conditions of column's table. */
List *
circles_on_column(PlannerInfo *root, Node *column)
{
	if (root == NULL || root->simple_rel_array == NULL || !IsA(column, Var) ||
		((Var *) column)->varlevelsup != 0)
		return NIL;
	Index varno = ((Var *) column)->varno;
	if (varno >= (Index) root->simple_rel_array_size || root->simple_rel_array[varno] == NULL)
		return NIL;
	const GeoidxCatalog &o = geoidx_catalog();
	List *out = NIL;
	ListCell *lc;
	foreach (lc, root->simple_rel_array[varno]->baserestrictinfo)
	{
		Expr *clause = ((RestrictInfo *) lfirst(lc))->clause;
		if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
			continue;
		OpExpr *op = (OpExpr *) clause;
		if ((op->opno == o.within_op[0] || op->opno == o.within_op[1]) &&
			equal(linitial(op->args), column))
			out = lappend(out, lsecond(op->args));
	}
	return out;
}

/*
 * The radius of the smallest disc around the same centre as hole (an outside
 * region), on the same column, among the conditions of the column's table:
 * a ring, as geoidx_ring's rewrite leaves it (rewrite.cc), or as written.
 */
bool
disc_beside_hole(PlannerInfo *root, Node *column, const GeoidxCircle *hole, double *radius)
{
	bool found = false;
	ListCell *lc;
	foreach (lc, circles_on_column(root, column))
	{
		Node *c = estimate_expression_value(root, (Node *) lfirst(lc));
		if (!IsA(c, Const) || ((Const *) c)->constisnull)
			continue;
		const GeoidxCircle *d = (const GeoidxCircle *) DatumGetPointer(((Const *) c)->constvalue);
		if (d->mode != (int16) geoidx::RegionMode::within || d->lon != hole->lon ||
			d->lat != hole->lat || d->use_spheroid != hole->use_spheroid)
			continue;
		if (!found || d->radius < *radius)
			*radius = d->radius;
		found = true;
	}
	return found;
}

/*
 * The same for a hole of parameters, geoidx_circle_outside(centre, radius,
 * use_spheroid, point_first): the share of the rows of a disc
 * geoidx_circle(centre, radius', use_spheroid) beside it that lie outside it,
 * both sampled where the rows are (a generic plan's ring).
 */
bool
sampled_hole_beside_disc(PlannerInfo *root, Node *column, const FuncExpr *hole, int var_relid,
						 double *share)
{
	const GeoidxCatalog &o = geoidx_catalog();
	if (list_length(hole->args) != 4 ||
		(hole->funcid != o.circle_outside_fn[0] && hole->funcid != o.circle_outside_fn[1]))
		return false;
	ListCell *lc;
	foreach (lc, circles_on_column(root, column))
	{
		if (!IsA(lfirst(lc), FuncExpr))
			continue;
		FuncExpr *d = (FuncExpr *) lfirst(lc);
		if ((d->funcid != o.circle_fn[0] && d->funcid != o.circle_fn[1]) ||
			list_length(d->args) != 3 || !equal(linitial(d->args), linitial(hole->args)) ||
			!equal(lthird(d->args), lthird(hole->args)))
			continue;
		double disc, inside;
		if (!sampled_centre_selectivity(root, column, (Node *) lsecond(d->args),
										(Node *) lthird(d->args), var_relid, &disc) ||
			!sampled_centre_selectivity(root, column, (Node *) lsecond(hole->args),
										(Node *) lthird(hole->args), var_relid, &inside))
			return false;
		*share = disc > 0.0 ? geoidx::clamp_share(geoidx::ring_share(disc, inside) / disc) : 1.0;
		return true;
	}
	return false;
}

} // namespace

/*
 * Estimate pos <@ circle (its RESTRICT): (root, operator, args = [column, circle], varRelid).
 * A hole beside its disc (a ring) is estimated as the share of the disc's rows
 * outside the hole: PostgreSQL multiplies the two conditions' estimates, and
 * the ring's share is no product of the disc's and the hole's.
 */
extern "C" Datum
geoidx_circle_sel(PG_FUNCTION_ARGS)
{
	RestrictCall call;
	if (!read_restrict_call(fcinfo, &call))
		PG_RETURN_FLOAT8(kDefaultSelectivity);
	Node *column = (Node *) linitial(call.args);
	Node *circle = estimate_expression_value(call.root, (Node *) lsecond(call.args));
	if (!IsA(circle, Const) || IsA(column, Const))
	{
		/* a circle of parameters: at least its kind is known from the function that makes it */
		bool outer = false;
		if (IsA(circle, FuncExpr))
		{
			const GeoidxCatalog &o = geoidx_catalog();
			FuncExpr *f = (FuncExpr *) circle;
			double share;
			if (!IsA(column, Const) &&
				sampled_hole_beside_disc(call.root, column, f, call.var_relid, &share))
				PG_RETURN_FLOAT8(share);
			if ((f->funcid == o.circle_fn[0] || f->funcid == o.circle_fn[1]) &&
				list_length(f->args) == 3 && !IsA(column, Const) &&
				sampled_centre_selectivity(call.root, column, (Node *) lsecond(f->args),
										   (Node *) lthird(f->args), call.var_relid, &share))
				PG_RETURN_FLOAT8(share);
			/*
			 * the candidate disc of a centre that may be a shape (a geometry
			 * parameter): sampled as the disc of a point, what such a
			 * parameter most often is (geoidx_dwithin's own estimate does so)
			 */
			if ((f->funcid == o.candidate_fn[0] || f->funcid == o.candidate_fn[1]) &&
				list_length(f->args) == 2 && !IsA(column, Const) &&
				sampled_centre_selectivity(call.root, column, (Node *) lsecond(f->args),
										   makeBoolConst(false, false), call.var_relid, &share))
				PG_RETURN_FLOAT8(share);
			for (int g = 0; g < 2; g++)
			{
				if (f->funcid == o.circle_outside_fn[g] || f->funcid == o.candidate_beyond_fn[g])
					outer = true;
				else if (f->funcid == o.circle_distance_fn[g] && list_length(f->args) == 3 &&
						 IsA(lsecond(f->args), Const) && !((Const *) lsecond(f->args))->constisnull)
				{
					char *op = TextDatumGetCString(((Const *) lsecond(f->args))->constvalue);
					outer = op[0] == '>';
				}
			}
		}
		PG_RETURN_FLOAT8(geoidx::unknown_region_share(outer));
	}
	if (((Const *) circle)->constisnull)
		PG_RETURN_FLOAT8(0.0);

	const GeoidxCircle *c = (const GeoidxCircle *) DatumGetPointer(((Const *) circle)->constvalue);
	geoidx::LonLat ll = {c->lon, c->lat};
	if (c->mode < 0 || c->mode >= geoidx::kRegionModes)
		PG_RETURN_FLOAT8(kDefaultSelectivity);
	double disc_radius = 0.0;
	if (c->mode == (int16) geoidx::RegionMode::outside &&
		disc_beside_hole(call.root, column, c, &disc_radius))
	{
		bool sph = c->use_spheroid != 0;
		double disc = circle_selectivity(call.root, column, ll, disc_radius, sph, call.var_relid);
		if (!(disc > 0.0))
			PG_RETURN_FLOAT8(1.0); /* the product is the disc's 0 */
		double hole = circle_selectivity(call.root, column, ll, c->radius, sph, call.var_relid);
		PG_RETURN_FLOAT8(geoidx::clamp_share(geoidx::ring_share(disc, hole) / disc));
	}
	PG_RETURN_FLOAT8(region_selectivity(call.root, column, ll, c->radius, c->use_spheroid != 0,
										(geoidx::RegionMode) c->mode, call.var_relid));
}

/*
 * Estimate col ~@> g, col <@~ g, col ~&& g (their RESTRICT) as the rows that
 * reach into g's candidate disc, the part of the table the index reads.
 */
extern "C" Datum
geoidx_shape_op_sel(PG_FUNCTION_ARGS)
{
	RestrictCall call;
	if (!read_restrict_call(fcinfo, &call))
		PG_RETURN_FLOAT8(kDefaultSelectivity);
	Node *column = (Node *) linitial(call.args);
	Node *other = (Node *) lsecond(call.args);
	/* g ##<@ col and g ##&& col: the column on the right */
	if (!IsA(column, Var) && IsA(other, Var))
		std::swap(column, other);
	other = estimate_expression_value(call.root, other);
	if (!IsA(other, Const) || IsA(column, Const))
		PG_RETURN_FLOAT8(geoidx::unknown_region_share(false));
	if (((Const *) other)->constisnull)
		PG_RETURN_FLOAT8(0.0);
	GeoidxPoint p;
	geoidx_decode_any(((Const *) other)->constvalue, "the argument of a shape operator", &p);
	if (p.empty)
		PG_RETURN_FLOAT8(0.0);
	geoidx::LonLat centre;
	double radius;
	geoidx_candidate_disc(&p, "the argument of a shape operator", 0.0, &centre, &radius);
	PG_RETURN_FLOAT8(circle_selectivity(call.root, column, centre, radius, false, call.var_relid));
}
