/*
 * The shape predicates: geoidx_covers, geoidx_coveredby, geoidx_intersects
 * (geometry or geography on either side, any kind the geography type has),
 * the candidate disc that makes them index conditions, and their planner
 * support.
 *
 * Each predicate is PostGIS geography's own answer (postgis_calls.cc):
 * ST_Covers(a::geography, b::geography) and so on, errors included. The
 * index narrows the rows it is asked about: a predicate on an indexed column
 * with the other argument constant for the scan becomes
 *
 *   col <@ geoidx_candidate_circle(other, 0)
 *
 * a disc on the sphere that holds the other argument's box (plus a metre), and
 * is lossy: the call stays as the filter. Whatever covers, is covered by or
 * intersects the other argument has a point in that disc, and its box (which
 * holds the shape, interior included) reaches into it, so the index drops only
 * rows the predicate is false for. geoidx_dwithin with a constant shape for
 * the other argument gets the same condition with its radius added.
 */
#include <cmath>

#include "covers_shape.h"
#include "geodesy.h"
#include "region.h"
#include "shape_distance.h"

#include "geoidx.h"

extern "C"
{
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
}

namespace
{

/* PostGIS's sphere radius (WGS84's mean radius), in metres. */
constexpr double kSphereMetres = 6371008.771415059;

/*
 * The prepared polygon of poly and the decoded point pt, for the fast paths
 * below; NULL where they do not apply (poly is not a polygon, pt is not a
 * point or is EMPTY, poly has no prepared form): PostGIS answers then.
 */
const geoidx::CoverShape *
prepared_pair(Datum poly, const char *what_poly, Datum pt, const char *what_pt, GeoidxPoint *p,
			  geoidx::LonLat *ll)
{
	if (!geoidx_datum_is_shape(poly) || geoidx_datum_is_shape(pt))
		return NULL;
	if (!geoidx_read_point(pt, what_pt, p, ll))
		return NULL;
	const geoidx::CoverShape *shape = geoidx_cover_shape(poly, what_poly);
	/*
	 * An EMPTY polygon covers nothing and has no distance (NULL): its prepared
	 * form, no ring at all, would put every point outside at an endless one.
	 */
	bool empty = shape != NULL;
	for (uint32 i = 0; empty && i < shape->npolygons; i++)
		empty = shape->polygons[i].nrings == 0;
	if (empty)
	{
		geoidx_cover_shape_done();
		return NULL;
	}
	return shape;
}

} // namespace

/*
 * ST_Covers(polygon, point) where the prepared polygon decides it (1 or 0),
 * -1 where it does not (another kind, or a point too near an edge): then
 * PostGIS answers. Every argument is checked as PostGIS's path checks it.
 */
int
geoidx_prepared_covers(Datum poly, const char *what_poly, Datum pt, const char *what_pt)
{
	GeoidxPoint p;
	geoidx::LonLat ll;
	const geoidx::CoverShape *shape = prepared_pair(poly, what_poly, pt, what_pt, &p, &ll);
	if (shape == NULL)
		return -1;
	geoidx::Cover c = geoidx::cover_shape_covers(*shape, geoidx::covers_vector(p.x, p.y));
	geoidx_cover_shape_done();
	switch (c)
	{
		case geoidx::Cover::inside:
			return 1;
		case geoidx::Cover::outside:
			return 0;
		default:
			return -1;
	}
}

/*
 * Bounds of PostGIS's distance between a polygon and a point from the
 * prepared polygon: 0 for a point it covers; for one it does not cover, the
 * metre bounds of the point's angle to the boundary (covers_shape.h). False
 * where they are not known (another kind, a point too near an edge).
 */
bool
geoidx_prepared_distance_bounds(Datum poly, const char *what_poly, Datum pt, const char *what_pt,
								bool use_spheroid, double *lo, double *hi)
{
	GeoidxPoint p;
	geoidx::LonLat ll;
	const geoidx::CoverShape *shape = prepared_pair(poly, what_poly, pt, what_pt, &p, &ll);
	if (shape == NULL)
		return false;
	const geoidx::Vec3 v = geoidx::covers_vector(p.x, p.y);
	geoidx::Cover c = geoidx::cover_shape_covers(*shape, v);
	double alo = 0.0, ahi = 0.0;
	if (c == geoidx::Cover::outside)
		geoidx::cover_shape_boundary_angles(*shape, v, &alo, &ahi);
	geoidx_cover_shape_done();
	switch (c)
	{
		case geoidx::Cover::inside:
			*lo = *hi = 0.0;
			return true;
		case geoidx::Cover::uncertain:
			return false;
		default:
			break;
	}
	*lo = geoidx::metres_lower_bound(alo, use_spheroid);
	*hi = geoidx::metres_upper_bound(ahi, use_spheroid);
	return true;
}

namespace
{

/* How many polygon-point distances this backend computed, and how many it left to PostGIS. */
struct
{
	int64 computed;
	int64 deferred;
} distances;

} // namespace

/*
 * PostGIS's ST_Distance(polygon, point) from the prepared polygon, computed
 * as PostGIS computes it (shape_distance.h); false where geoidx leaves it to
 * PostGIS (another kind, a point near an edge, a tie between edges).
 */
bool
geoidx_prepared_distance(Datum poly, const char *what_poly, Datum pt, const char *what_pt,
						 bool use_spheroid, double *metres, bool knn)
{
	GeoidxPoint p;
	geoidx::LonLat ll;
	const geoidx::CoverShape *shape = prepared_pair(poly, what_poly, pt, what_pt, &p, &ll);
	if (shape == NULL)
		return false;
	bool known =
		geoidx::shape_point_distance(*shape, geoidx::geographic_point(ll),
									 geoidx::covers_vector(p.x, p.y), use_spheroid, metres, knn);
	geoidx_cover_shape_done();
	if (known)
		distances.computed++;
	else
		distances.deferred++;
	return known;
}

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_shape_distances);
}

/*
 * geoidx_shape_distances(): how many distances between a polygon and a point
 * (<~>, geoidx_distance) this backend computed itself, and how many it left to
 * PostGIS, since it started.
 */
extern "C" Datum
geoidx_shape_distances(PG_FUNCTION_ARGS)
{
	TupleDesc desc;
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "geoidx_shape_distances: a composite result type is needed");
	Datum values[2] = {Int64GetDatum(distances.computed), Int64GetDatum(distances.deferred)};
	bool nulls[2] = {false, false};
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/* ST_DWithin(polygon, point, metres) where those bounds decide it (1 or 0), else -1. */
int
geoidx_prepared_dwithin(Datum poly, const char *what_poly, Datum pt, const char *what_pt,
						double metres, bool use_spheroid)
{
	double lo, hi;
	if (!geoidx_prepared_distance_bounds(poly, what_poly, pt, what_pt, use_spheroid, &lo, &hi))
		return -1;
	if (hi <= metres && (hi < metres || lo == 0.0))
		return 1;
	if (lo > metres)
		return 0;
	return -1;
}

/* ST_Intersects(polygon, point) where the prepared polygon's distance bounds decide it, else -1. */
int
geoidx_prepared_intersects(Datum poly, const char *what_poly, Datum pt, const char *what_pt)
{
	double lo, hi;
	if (!geoidx_prepared_distance_bounds(poly, what_poly, pt, what_pt, true, &lo, &hi))
		return -1;
	if (hi == 0.0)
		return 1;
	if (lo > 1e-6)
		return 0;
	return -1;
}

namespace
{

/* The predicate's answer from PostGIS, for arguments 0 and 1. */
Datum
predicate(FunctionCallInfo fcinfo, int fn, const char *what_a, const char *what_b)
{
	Datum r;
	geoidx_postgis_call(fn, PG_GETARG_DATUM(0), what_a, PG_GETARG_DATUM(1), what_b, 0.0, true, &r);
	return r;
}

/*
 * The angle (radians) of a cap around the unit vector c that holds every unit
 * vector of box b: the farthest point of a box from c is one of its corners,
 * and a chord of length k subtends 2 asin(k / 2).
 */
double
cap_angle(const geoidx::Box3 &b, const geoidx::Vec3 &c)
{
	double far2 = 0.0;
	for (int corner = 0; corner < 8; corner++)
	{
		double x = (corner & 1) ? b.hi[0] : b.lo[0];
		double y = (corner & 2) ? b.hi[1] : b.lo[1];
		double z = (corner & 4) ? b.hi[2] : b.lo[2];
		double d2 = (x - c.x) * (x - c.x) + (y - c.y) * (y - c.y) + (z - c.z) * (z - c.z);
		far2 = std::max(far2, d2);
	}
	double chord = std::sqrt(far2);
	return chord >= 2.0 ? M_PI : 2.0 * std::asin(chord / 2.0);
}

} // namespace

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_covers);
	PG_FUNCTION_INFO_V1(geoidx_coveredby);
	PG_FUNCTION_INFO_V1(geoidx_intersects);
	PG_FUNCTION_INFO_V1(geoidx_candidate_circle);
	PG_FUNCTION_INFO_V1(geoidx_candidate_beyond);
	PG_FUNCTION_INFO_V1(geoidx_shape_support);
}

/* geoidx_covers(a, b) = ST_Covers(a::geography, b::geography). */
extern "C" Datum
geoidx_covers(PG_FUNCTION_ARGS)
{
	int fast = geoidx_prepared_covers(PG_GETARG_DATUM(0), "argument 1 of geoidx_covers",
									  PG_GETARG_DATUM(1), "argument 2 of geoidx_covers");
	if (fast >= 0)
		PG_RETURN_BOOL(fast == 1);
	return predicate(fcinfo, GEOIDX_PG_COVERS, "argument 1 of geoidx_covers",
					 "argument 2 of geoidx_covers");
}

/* geoidx_coveredby(a, b) = ST_CoveredBy(a::geography, b::geography). */
extern "C" Datum
geoidx_coveredby(PG_FUNCTION_ARGS)
{
	int fast = geoidx_prepared_covers(PG_GETARG_DATUM(1), "argument 2 of geoidx_coveredby",
									  PG_GETARG_DATUM(0), "argument 1 of geoidx_coveredby");
	if (fast >= 0)
		PG_RETURN_BOOL(fast == 1);
	return predicate(fcinfo, GEOIDX_PG_COVEREDBY, "argument 1 of geoidx_coveredby",
					 "argument 2 of geoidx_coveredby");
}

/* geoidx_intersects(a, b) = ST_Intersects(a::geography, b::geography). */
extern "C" Datum
geoidx_intersects(PG_FUNCTION_ARGS)
{
	/*
	 * PostGIS's ST_Intersects(geography) is ST_DWithin(a, b, 1e-12 m) on the
	 * spheroid: a point well inside a polygon is at distance 0 from it, one
	 * whose distance is bounded above a micrometre is not within it.
	 */
	int fast = geoidx_prepared_intersects(PG_GETARG_DATUM(0), "argument 1 of geoidx_intersects",
										  PG_GETARG_DATUM(1), "argument 2 of geoidx_intersects");
	if (fast < 0)
		fast = geoidx_prepared_intersects(PG_GETARG_DATUM(1), "argument 2 of geoidx_intersects",
										  PG_GETARG_DATUM(0), "argument 1 of geoidx_intersects");
	if (fast >= 0)
		PG_RETURN_BOOL(fast == 1);
	return predicate(fcinfo, GEOIDX_PG_INTERSECTS, "argument 1 of geoidx_intersects",
					 "argument 2 of geoidx_intersects");
}

/*
 * The candidate disc of a decoded, non-EMPTY value p: a centre and a sphere
 * radius holding every point within metres of p (see geoidx_candidate_circle).
 */
void
geoidx_candidate_disc(const GeoidxPoint *p, const char *what, double metres, geoidx::LonLat *ll,
					  double *radius)
{
	double angle = 0.0;
	if (p->shape)
	{
		/* p->x, p->y: the direction of the box's centre (gserialized.cc) */
		*ll = geoidx::LonLat{p->x, p->y};
		geoidx::Vec3 centre = geoidx::unit_vector(geoidx::geographic_point(*ll));
		angle = cap_angle(p->box, centre);
	}
	else
		geoidx_point_unit(p, what, ll, NULL);
	*radius = angle >= M_PI - 1e-9 ? std::numeric_limits<double>::infinity()
								   : angle * kSphereMetres * (1.0 + 1e-9) + 1.01 * metres + 1.0;
}

/*
 * geoidx_candidate_circle(g, metres): a candidate disc (GEOIDX_CIRCLE_CANDIDATE,
 * on the sphere) holding every point within metres of g, for the spheroid or
 * the sphere: the cap of g's box, plus metres and 1 % (the sphere's distances
 * are within 0.5 % of the spheroid's), plus a metre. NULL for an EMPTY g,
 * and for a NaN or negative radius (nothing is within it).
 */
extern "C" Datum
geoidx_candidate_circle(PG_FUNCTION_ARGS)
{
	static const char *const what = "argument 1 of geoidx_candidate_circle";
	double metres = PG_GETARG_FLOAT8(1);
	GeoidxPoint p;
	geoidx_decode_any(PG_GETARG_DATUM(0), what, &p);
	if (p.empty || geoidx_radius_holds_nothing(metres)) /* a disc of nothing: no row */
		PG_RETURN_NULL();
	GeoidxCircle *c = (GeoidxCircle *) palloc0(sizeof(GeoidxCircle));
	geoidx::LonLat ll;
	geoidx_candidate_disc(&p, what, metres, &ll, &c->radius);
	c->lon = ll.lon;
	c->lat = ll.lat;
	c->use_spheroid = 0;
	c->mode = (int16) geoidx::RegionMode::within;
	c->flags = GEOIDX_CIRCLE_CANDIDATE;
	PG_RETURN_POINTER(c);
}

/*
 * geoidx_candidate_beyond(g, op, metres): a region holding every row whose
 * <~> distance to g is op (> or >=) metres, the lossy index condition of
 * keyset paging away from a value that may be a shape. For a point it is
 * geoidx_circle_distance's exact region; NULL for an EMPTY g (its distance is
 * NULL). For a shape it is the outside of a sphere disc around its box's
 * centre c, of radius 0.99 metres minus the cap of the box. Why that holds
 * every row beyond: PostGIS's spheroid distance to a shape is the geodesic to
 * the shape's point nearest on the sphere, and a geodesic is at most a^2/b
 * (6,399,594 m) per radian of the angle between its ends; the sphere's
 * distance is kSphereMetres (6,371,009 m) per radian, 0.9955 of that. So a row
 * beyond x lies more than x * 0.9955 minus the cap from c on the sphere.
 */
extern "C" Datum
geoidx_candidate_beyond(PG_FUNCTION_ARGS)
{
	static const char *const what = "argument 1 of geoidx_candidate_beyond";
	const char *op = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (strcmp(op, ">") != 0 && strcmp(op, ">=") != 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("geoidx_candidate_beyond: unknown comparison \"%s\"", op),
						errhint("Use > or >=.")));
	GeoidxPoint p;
	geoidx_decode_any(PG_GETARG_DATUM(0), what, &p);
	if (p.empty)
		PG_RETURN_NULL();
	if (!p.shape)
		return geoidx_circle_distance(fcinfo);
	geoidx::LonLat centre;
	double reach; /* the box's cap in metres on the sphere, a metre more; +Infinity: everything */
	geoidx_candidate_disc(&p, what, 0.0, &centre, &reach);
	GeoidxCircle *c = (GeoidxCircle *) palloc0(sizeof(GeoidxCircle));
	c->lon = centre.lon;
	c->lat = centre.lat;
	/* NaN and +-Infinity stay what they are or become NaN: all outside regions of everything or
	 * of more than the rows beyond (none is beyond NaN or +Infinity) */
	c->radius = 0.99 * PG_GETARG_FLOAT8(2) - reach;
	c->use_spheroid = 0;
	c->mode = (int16) geoidx::RegionMode::outside;
	c->flags = 0;
	PG_RETURN_POINTER(c);
}

/*
 * How far, at most, a point of a decoded shape lies from the centre of its box
 * (p->x, p->y), in metres on the spheroid: the sphere angle of its cap times
 * the equatorial radius, plus 1 % (no geodesic on WGS84 is that much longer
 * than its angle on a sphere of that radius) and a metre. +Infinity for a cap
 * of the whole sphere.
 */
double
geoidx_shape_reach_metres(const GeoidxPoint *p)
{
	geoidx::Vec3 centre = geoidx::unit_vector(geoidx::geographic_point(geoidx::LonLat{p->x, p->y}));
	double angle = cap_angle(p->box, centre);
	if (angle >= M_PI - 1e-9)
		return std::numeric_limits<double>::infinity();
	return angle * 6378137.0 * 1.01 + 1.0;
}

namespace
{

/* 0 for geometry, 1 for geography, -1 for any other type (the catalog's arrays' index). */
int
point_type_index(const GeoidxCatalog &o, Oid type)
{
	if (type == o.geometry_type)
		return 0;
	if (OidIsValid(o.geography_type) && type == o.geography_type)
		return 1;
	return -1;
}

} // namespace

/*
 * The index condition of a shape predicate, or of geoidx_dwithin with a
 * constant shape: col <@ geoidx_candidate_circle(other, metres), lossy.
 */
List *
geoidx_shape_index_condition(SupportRequestIndexCondition *req, Node *column, Node *other,
							 Node *metres)
{
	const GeoidxCatalog &o = geoidx_catalog();
	Oid type = exprType(column);
	int g = point_type_index(o, type);
	if (g < 0)
		return NIL;
	if (exprType(other) != type || !OidIsValid(o.within_op[g]) || !OidIsValid(o.candidate_fn[g]) ||
		!op_in_opfamily(o.within_op[g], req->opfamily))
		return NIL;
	FuncExpr *rhs = makeFuncExpr(o.candidate_fn[g], o.circle_type, list_make2(other, metres),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	if (!is_pseudo_constant_for_index(req->root, (Node *) rhs, req->index))
		return NIL;
	req->lossy = true;
	return list_make1(make_opclause(o.within_op[g], BOOLOID, false, (Expr *) column, (Expr *) rhs,
									InvalidOid, InvalidOid));
}

namespace
{

/*
 * The exact index condition of a shape predicate: col ~@> other (covers),
 * col <@~ other (coveredby), col ~&& other (intersects). The operator is the
 * predicate itself, so nothing is lossy, and the scan decides what it can from
 * the index (scan_probe.cc). With the column second covers and coveredby
 * are commuted: covers(other, col) is coveredby(col, other) in PostGIS by
 * definition. intersects(other, col) is not: PostGIS's cached and uncached
 * paths can answer a point at an edge differently in the two orders, and the
 * shapes differential (090) found the commuted index scan rejecting 4 edge
 * pairs of 112k that every PostGIS path accepts; it keeps the lossy candidate
 * disc and the call as the filter. NIL where the operator is not in the
 * index's family (an index of an older version).
 */
List *
exact_shape_condition(SupportRequestIndexCondition *req, FuncExpr *clause, Node *column,
					  Node *other)
{
	bool commuted = req->indexarg == 1;
	const GeoidxCatalog &o = geoidx_catalog();
	Oid type = exprType(column);
	int g = point_type_index(o, type);
	if (g < 0)
		return NIL;
	const char *name = get_func_name(clause->funcid);
	Oid op = InvalidOid;
	if (name == NULL)
		return NIL;
	if (strcmp(name, "geoidx_covers") == 0)
		op = commuted ? o.coveredby_op[g] : o.covers_op[g];
	else if (strcmp(name, "geoidx_coveredby") == 0)
		op = commuted ? o.covers_op[g] : o.coveredby_op[g];
	else if (strcmp(name, "geoidx_intersects") == 0 && !commuted)
		op = o.intersects_op[g];
	if (!OidIsValid(op) || exprType(other) != type || !op_in_opfamily(op, req->opfamily) ||
		!is_pseudo_constant_for_index(req->root, other, req->index))
		return NIL;
	req->lossy = false;
	return list_make1(make_opclause(op, BOOLOID, false, (Expr *) column, (Expr *) other, InvalidOid,
									clause->inputcollid));
}

} // namespace

/* Answer the planner's index condition requests for geoidx_covers, _coveredby, _intersects. */
extern "C" Datum
geoidx_shape_support(PG_FUNCTION_ARGS)
{
	Node *rawreq = (Node *) PG_GETARG_POINTER(0);
	if (!IsA(rawreq, SupportRequestIndexCondition))
		PG_RETURN_POINTER(NULL);
	SupportRequestIndexCondition *req = (SupportRequestIndexCondition *) rawreq;
	if (!is_funcclause(req->node) || req->indexarg < 0 || req->indexarg > 1)
		PG_RETURN_POINTER(NULL);
	FuncExpr *clause = (FuncExpr *) req->node;
	if (list_length(clause->args) != 2)
		PG_RETURN_POINTER(NULL);
	Node *column = (Node *) list_nth(clause->args, req->indexarg);
	Node *other = (Node *) list_nth(clause->args, 1 - req->indexarg);
	List *exact = exact_shape_condition(req, clause, column, other);
	if (exact != NIL)
		PG_RETURN_POINTER(exact);
	Node *zero = (Node *) makeConst(FLOAT8OID, -1, InvalidOid, sizeof(float8), Float8GetDatum(0.0),
									false, FLOAT8PASSBYVAL);
	PG_RETURN_POINTER(geoidx_shape_index_condition(req, column, other, zero));
}
