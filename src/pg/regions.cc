/*
 * The predicates that scan a region other than a disc, and the circle values
 * that are their index keys (see src/core/region.h):
 *
 *   geoidx_beyond(a, b, x [, inclusive])   = a <~> b > x   (>= x): keyset paging
 *   geoidx_nearer(a, b, x [, inclusive])   = a <~> b < x   (<= x)
 *   geoidx_outside(a, b, r [, spheroid])   = NOT geoidx_dwithin(a, b, r)
 *   geoidx_ring(a, b, rmin, rmax [, sph.]) = geoidx_dwithin(a, b, rmax)
 *                                            AND NOT geoidx_dwithin(a, b, rmin)
 *
 * Each is the expression on the right to the last bit, NULLs included (the
 * planner rewrites those expressions into these calls, see rewrite.cc), and
 * each has the support function that turns it into `col <@ circle` index
 * conditions (support_regions.cc).
 */
#include "dwithin_memo.h"
#include "geodesy.h"

#include "geoidx.h"

extern "C"
{
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/typcache.h"
}

#include <type_traits>

static_assert(std::is_trivially_destructible_v<GeoidxInList>,
			  "an IN list lives in fn_extra or a scan's memory, freed and never destroyed");

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_circle_outside);
	PG_FUNCTION_INFO_V1(geoidx_circle_distance);
	PG_FUNCTION_INFO_V1(geoidx_beyond);
	PG_FUNCTION_INFO_V1(geoidx_nearer);
	PG_FUNCTION_INFO_V1(geoidx_outside);
	PG_FUNCTION_INFO_V1(geoidx_ring);
}

namespace
{

/*
 * Read both points as the geography cast leaves them; false if either is EMPTY.
 * what[0], what[1] name them in errors (constants: this runs once per row).
 */
bool
read_pair(FunctionCallInfo fcinfo, const char *const what[2], geoidx::GeoPoint *a,
		  geoidx::GeoPoint *b)
{
	GeoidxPoint p;
	geoidx::LonLat lla, llb;
	bool have_a = geoidx_read_point(PG_GETARG_DATUM(0), what[0], &p, &lla);
	bool have_b = geoidx_read_point(PG_GETARG_DATUM(1), what[1], &p, &llb);
	if (!have_a || !have_b)
		return false;
	*a = geoidx::geographic_point(lla);
	*b = geoidx::geographic_point(llb);
	return true;
}

/*
 * Compare a <~> b with x; NULL where a <~> b is NULL (an EMPTY point). Two
 * points are judged first by the cheap tests of a memo around the argument
 * that stays the same from row to row (fn_extra, as geoidx_dwithin's): the
 * filter of a scan whose index condition was the candidate disc of a
 * parameter, which the planner could not prove a point, runs on every row.
 */
Datum
compare_distance(FunctionCallInfo fcinfo, const char *const what[2], bool beyond)
{
	double x = PG_GETARG_FLOAT8(2);
	bool inclusive = PG_NARGS() > 3 ? PG_GETARG_BOOL(3) : false;
	double d;
	if (geoidx_datum_is_shape(PG_GETARG_DATUM(0)) || geoidx_datum_is_shape(PG_GETARG_DATUM(1)))
	{
		Datum r;
		if (!geoidx_postgis_call(GEOIDX_PG_DISTANCE, PG_GETARG_DATUM(0), what[0],
								 PG_GETARG_DATUM(1), what[1], 0.0, true, &r))
			PG_RETURN_NULL();
		d = DatumGetFloat8(r);
	}
	else
	{
		GeoidxPoint pa, pb;
		geoidx::LonLat lla, llb;
		bool have_a = geoidx_read_point(PG_GETARG_DATUM(0), what[0], &pa, &lla);
		bool have_b = geoidx_read_point(PG_GETARG_DATUM(1), what[1], &pb, &llb);
		if (!have_a || !have_b)
			PG_RETURN_NULL();
		if (x >= 0.0 && std::isfinite(x))
		{
			geoidx::Verdict v = geoidx::dwithin_memo_classify(
				geoidx_call_dwithin_memo(fcinfo), geoidx::RawPoint{pa.x, pa.y}, lla,
				geoidx::RawPoint{pb.x, pb.y}, llb, x, true);
			/* inside: d < x, so not >, >= and also < and <=; outside: the converse */
			if (v != geoidx::Verdict::maybe)
				PG_RETURN_BOOL(beyond == (v == geoidx::Verdict::outside));
		}
		d = geoidx::st_distance(geoidx::geographic_point(lla), geoidx::geographic_point(llb), true);
	}
	/* float8's own comparisons: NaN above every number */
	if (beyond)
		PG_RETURN_BOOL(inclusive ? float8_ge(d, x) : float8_gt(d, x));
	PG_RETURN_BOOL(inclusive ? float8_le(d, x) : float8_lt(d, x));
}

} // namespace

/*
 * Make geoidx_circle_outside(centre, metres, use_spheroid, point_first): the
 * complement of geoidx_circle; with point_first, of ST_DWithin(point, centre).
 */
extern "C" Datum
geoidx_circle_outside(PG_FUNCTION_ARGS)
{
	return geoidx_make_circle(fcinfo, PG_GETARG_FLOAT8(1), PG_GETARG_BOOL(2),
							  (int) geoidx::RegionMode::outside,
							  PG_NARGS() > 3 && PG_GETARG_BOOL(3));
}

/* Make geoidx_circle_distance(centre, op, metres): the points whose <~> distance is op metres. */
extern "C" Datum
geoidx_circle_distance(PG_FUNCTION_ARGS)
{
	const char *op = text_to_cstring(PG_GETARG_TEXT_PP(1));
	geoidx::RegionMode mode;
	if (strcmp(op, ">") == 0)
		mode = geoidx::RegionMode::dist_gt;
	else if (strcmp(op, ">=") == 0)
		mode = geoidx::RegionMode::dist_ge;
	else if (strcmp(op, "<") == 0)
		mode = geoidx::RegionMode::dist_lt;
	else if (strcmp(op, "<=") == 0)
		mode = geoidx::RegionMode::dist_le;
	else
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("geoidx_circle_distance: unknown comparison \"%s\"", op),
						errhint("Use one of >, >=, <, <=.")));
	return geoidx_make_circle(fcinfo, PG_GETARG_FLOAT8(2), true, (int) mode, false);
}

/* Return geoidx_beyond(a, b, x, inclusive) = a <~> b > x (>= x if inclusive). */
extern "C" Datum
geoidx_beyond(PG_FUNCTION_ARGS)
{
	static const char *const what[2] = {"argument 1 of geoidx_beyond",
										"argument 2 of geoidx_beyond"};
	return compare_distance(fcinfo, what, true);
}

/* Return geoidx_nearer(a, b, x, inclusive) = a <~> b < x (<= x if inclusive). */
extern "C" Datum
geoidx_nearer(PG_FUNCTION_ARGS)
{
	static const char *const what[2] = {"argument 1 of geoidx_nearer",
										"argument 2 of geoidx_nearer"};
	return compare_distance(fcinfo, what, false);
}

/*
 * Return geoidx_outside(a, b, metres, use_spheroid) = NOT geoidx_dwithin(a, b, ...):
 * the same function on the same arguments (and the same per-call cache), negated.
 */
extern "C" Datum
geoidx_outside(PG_FUNCTION_ARGS)
{
	Datum within = geoidx_dwithin(fcinfo);
	PG_RETURN_BOOL(!DatumGetBool(within));
}

/*
 * Return geoidx_ring(a, b, min, max, use_spheroid) = geoidx_dwithin(a, b, max) AND
 * NOT geoidx_dwithin(a, b, min), a NaN or negative radius included (nothing is
 * within it); an EMPTY point is in no ring.
 */
extern "C" Datum
geoidx_ring(PG_FUNCTION_ARGS)
{
	double rmin = PG_GETARG_FLOAT8(2), rmax = PG_GETARG_FLOAT8(3);
	bool use_spheroid = PG_NARGS() > 4 ? PG_GETARG_BOOL(4) : true;
	geoidx::GeoPoint a, b;
	static const char *const what[2] = {"argument 1 of geoidx_ring", "argument 2 of geoidx_ring"};
	if (geoidx_datum_is_shape(PG_GETARG_DATUM(0)) || geoidx_datum_is_shape(PG_GETARG_DATUM(1)))
	{
		Datum in_max, in_min;
		geoidx_postgis_call(GEOIDX_PG_DWITHIN, PG_GETARG_DATUM(0), what[0], PG_GETARG_DATUM(1),
							what[1], rmax, use_spheroid, &in_max);
		if (!DatumGetBool(in_max))
			PG_RETURN_BOOL(false);
		geoidx_postgis_call(GEOIDX_PG_DWITHIN, PG_GETARG_DATUM(0), what[0], PG_GETARG_DATUM(1),
							what[1], rmin, use_spheroid, &in_min);
		PG_RETURN_BOOL(!DatumGetBool(in_min));
	}
	if (!read_pair(fcinfo, what, &a, &b))
		PG_RETURN_BOOL(false);
	PG_RETURN_BOOL(
		!geoidx_radius_holds_nothing(rmax) && geoidx::st_dwithin(a, b, rmax, use_spheroid) &&
		(geoidx_radius_holds_nothing(rmin) || !geoidx::st_dwithin(a, b, rmin, use_spheroid)));
}

/* ---------- col <@ array: "is one of", the index form of col = ANY(array) ---------- */

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_in_array);
}

/*
 * Return value <@ array = value = ANY(array) with the element type's default
 * equality, NULLs included: true if an element equals the value, else NULL if
 * an element is NULL, else false.
 */
extern "C" Datum
geoidx_in_array(PG_FUNCTION_ARGS)
{
	Datum value = PG_GETARG_DATUM(0);
	ArrayType *arr = PG_GETARG_ARRAYTYPE_P(1);
	GeoidxInList *list = (GeoidxInList *) fcinfo->flinfo->fn_extra;
	if (list == NULL || list->source_size != VARSIZE(arr) ||
		memcmp(list->source, arr, VARSIZE(arr)) != 0)
	{
		list = geoidx_in_list_make(arr, PG_GET_COLLATION(), fcinfo->flinfo->fn_mcxt);
		fcinfo->flinfo->fn_extra = list;
	}
	int r = geoidx_in_list_test(list, value);
	if (r < 0)
		PG_RETURN_NULL();
	PG_RETURN_BOOL(r > 0);
}

/* Make the array's elements and the equality to compare with them, once per array. */
GeoidxInList *
geoidx_in_list_make(ArrayType *arr, Oid collation, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	GeoidxInList *list = (GeoidxInList *) palloc0(sizeof(GeoidxInList));
	list->source_size = VARSIZE(arr);
	list->source = (char *) palloc(list->source_size);
	memcpy(list->source, arr, list->source_size);
	ArrayType *copy = (ArrayType *) list->source;
	Oid elemtype = ARR_ELEMTYPE(copy);
	TypeCacheEntry *tc = lookup_type_cache(elemtype, TYPECACHE_EQ_OPR_FINFO);
	if (!OidIsValid(tc->eq_opr_finfo.fn_oid))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FUNCTION),
						errmsg("could not identify an equality operator for type %s",
							   format_type_be(elemtype))));
	fmgr_info_copy(&list->eq, &tc->eq_opr_finfo, cxt);
	list->collation = collation;
	int16 typlen;
	bool typbyval;
	char typalign;
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	deconstruct_array(copy, elemtype, typlen, typbyval, typalign, &list->elems, &list->nulls,
					  &list->n);
	list->any_null = false;
	list->nvalues = 0;
	for (int i = 0; i < list->n; i++)
	{
		list->any_null |= list->nulls[i];
		list->nvalues += list->nulls[i] ? 0 : 1;
	}
	MemoryContextSwitchTo(old);
	return list;
}

/* Test value: 1 an element equals it; 0 none does and none is NULL; -1 none does, one is NULL. */
int
geoidx_in_list_test(const GeoidxInList *list, Datum value)
{
	for (int i = 0; i < list->n; i++)
		if (!list->nulls[i] &&
			DatumGetBool(FunctionCall2Coll(const_cast<FmgrInfo *>(&list->eq), list->collation,
										   value, list->elems[i])))
			return 1;
	return list->any_null ? -1 : 0;
}
