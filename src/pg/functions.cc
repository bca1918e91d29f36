/*
 * The distance functions: the distance operator <~>, geoidx_distance and
 * geoidx_dwithin (the circle type and <@ are in circle.cc, geoidx_search_box
 * in search_box.cc, the string overloads in text_args.cc).
 *
 * Every answer is PostGIS geography's: the coordinates go through the
 * geometry->geography cast (geoidx_point_unit) and the core's st_distance /
 * st_dwithin, which repeat PostGIS's arithmetic in PostGIS's order. Argument
 * order matters for the exact test: PostGIS's great-circle formula is not
 * symmetric to the last bit, so geoidx_dwithin(a, b) always ends in
 * st_dwithin(a, b) (src/core/dwithin_memo.h).
 *
 * Each of them takes geometry or geography (the same C function: both are
 * GSERIALIZED, and a geography holds what the cast would have made of it), and
 * also strings, so that untyped literals stay unambiguous (see text_args.cc).
 *
 * ORDER BY col <~> centre LIMIT k computes col <~> centre again for every row
 * the index returns (the executor projects the ORDER BY expression): <~> and
 * geoidx_distance take the scan's own value for that row from
 * distance_memo.cc instead of a second geodesic.
 *
 * A shape on either side (anything but a point) is PostGIS's own answer
 * (postgis_calls.cc).
 *
 * geoidx_distance, <~> and geoidx_dwithin run once per row in sequential scans:
 * they read the points in place (no detoast for ordinary points, no palloc),
 * and geoidx_dwithin keeps the cheap tests of the last centre it saw in
 * fn_extra (a DwithinMemo), so that most rows are decided without a geodesic.
 */
#include "dwithin_memo.h"
#include "geodesy.h"

#include "geoidx.h"

#include <cmath>
#include <type_traits>

namespace
{

static_assert(std::is_trivially_destructible_v<geoidx::DwithinMemo>,
			  "fn_extra is freed, not destroyed");

/* Return ST_Distance of arguments 0 and 1 as geography; NULL if either is EMPTY. */
Datum
distance_common(FunctionCallInfo fcinfo, bool use_spheroid, const char *what1, const char *what2)
{
	GeoidxPoint a, b;
	geoidx::LonLat lla, llb;

	if (geoidx_datum_is_shape(PG_GETARG_DATUM(0)) || geoidx_datum_is_shape(PG_GETARG_DATUM(1)))
	{
		/* a polygon and a point: geoidx computes what PostGIS would where it can be sure */
		double d;
		if (geoidx_prepared_distance(PG_GETARG_DATUM(0), what1, PG_GETARG_DATUM(1), what2,
									 use_spheroid, &d) ||
			geoidx_prepared_distance(PG_GETARG_DATUM(1), what2, PG_GETARG_DATUM(0), what1,
									 use_spheroid, &d))
			PG_RETURN_FLOAT8(d);
		Datum r;
		if (!geoidx_postgis_call(GEOIDX_PG_DISTANCE, PG_GETARG_DATUM(0), what1, PG_GETARG_DATUM(1),
								 what2, 0.0, use_spheroid, &r))
			PG_RETURN_NULL();
		return r;
	}
	bool have_a = geoidx_read_point(PG_GETARG_DATUM(0), what1, &a, &lla);
	bool have_b = geoidx_read_point(PG_GETARG_DATUM(1), what2, &b, &llb);
	if (!have_a || !have_b)
		PG_RETURN_NULL();
	/* the row a k-NN scan just returned: the scan computed this very distance */
	double d;
	if (use_spheroid && geoidx_distance_memo_find(a.x, a.y, geoidx::RawPoint{b.x, b.y}, &d))
		PG_RETURN_FLOAT8(d);
	PG_RETURN_FLOAT8(geoidx::st_distance(geoidx::geographic_point(lla),
										 geoidx::geographic_point(llb), use_spheroid));
}

} // namespace

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_distance_op);
	PG_FUNCTION_INFO_V1(geoidx_distance);
	PG_FUNCTION_INFO_V1(geoidx_dwithin);
}

/* Return a <~> b = ST_Distance(a::geography, b::geography); NULL if either is EMPTY. */
extern "C" Datum
geoidx_distance_op(PG_FUNCTION_ARGS)
{
	return distance_common(fcinfo, true, "the left operand of <~>", "the right operand of <~>");
}

/* Return ST_Distance(a::geography, b::geography, use_spheroid). */
extern "C" Datum
geoidx_distance(PG_FUNCTION_ARGS)
{
	return distance_common(fcinfo, PG_GETARG_BOOL(2), "argument 1 of geoidx_distance",
						   "argument 2 of geoidx_distance");
}

/*
 * The cheap tests of the centre seen last by this call site (either argument
 * may be the constant one), kept in fn_extra: zeroed memory is the empty memo.
 */
geoidx::DwithinMemo *
geoidx_call_dwithin_memo(FunctionCallInfo fcinfo)
{
	geoidx::DwithinMemo *memo = (geoidx::DwithinMemo *) fcinfo->flinfo->fn_extra;
	if (memo == NULL)
	{
		memo = (geoidx::DwithinMemo *) MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
															  sizeof(geoidx::DwithinMemo));
		fcinfo->flinfo->fn_extra = memo;
	}
	return memo;
}

/* Return ST_DWithin(a::geography, b::geography, metres, use_spheroid); false if either is EMPTY. */
extern "C" Datum
geoidx_dwithin(PG_FUNCTION_ARGS)
{
	double metres = PG_GETARG_FLOAT8(2);
	bool use_spheroid = PG_NARGS() > 3 ? PG_GETARG_BOOL(3) : true;
	GeoidxPoint a, b;
	geoidx::LonLat lla, llb;

	if (geoidx_datum_is_shape(PG_GETARG_DATUM(0)) || geoidx_datum_is_shape(PG_GETARG_DATUM(1)))
	{
		Datum r;
		if (geoidx_radius_holds_nothing(metres)) /* PostGIS's answer (or its error) */
		{
			geoidx_postgis_call(GEOIDX_PG_DWITHIN, PG_GETARG_DATUM(0),
								"argument 1 of geoidx_dwithin", PG_GETARG_DATUM(1),
								"argument 2 of geoidx_dwithin", metres, use_spheroid, &r);
			return r;
		}
		/* a polygon and a point: decided from the prepared polygon where its bounds decide */
		int fast = geoidx_prepared_dwithin(PG_GETARG_DATUM(0), "argument 1 of geoidx_dwithin",
										   PG_GETARG_DATUM(1), "argument 2 of geoidx_dwithin",
										   metres, use_spheroid);
		if (fast < 0)
			fast = geoidx_prepared_dwithin(PG_GETARG_DATUM(1), "argument 2 of geoidx_dwithin",
										   PG_GETARG_DATUM(0), "argument 1 of geoidx_dwithin",
										   metres, use_spheroid);
		if (fast >= 0)
			PG_RETURN_BOOL(fast == 1);
		geoidx_postgis_call(GEOIDX_PG_DWITHIN, PG_GETARG_DATUM(0), "argument 1 of geoidx_dwithin",
							PG_GETARG_DATUM(1), "argument 2 of geoidx_dwithin", metres,
							use_spheroid, &r);
		return r;
	}
	bool have_a = geoidx_read_point(PG_GETARG_DATUM(0), "argument 1 of geoidx_dwithin", &a, &lla);
	bool have_b = geoidx_read_point(PG_GETARG_DATUM(1), "argument 2 of geoidx_dwithin", &b, &llb);
	if (!have_a || !have_b || geoidx_radius_holds_nothing(metres))
		PG_RETURN_BOOL(false);

	PG_RETURN_BOOL(
		geoidx::dwithin_memo_test(geoidx_call_dwithin_memo(fcinfo), geoidx::RawPoint{a.x, a.y}, lla,
								  geoidx::RawPoint{b.x, b.y}, llb, metres, use_spheroid));
}

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_sphere_knn_distance);
}

/*
 * a <~~> b = a::geography <-> b::geography: PostGIS's k-NN distance on its
 * sphere, computed by PostGIS (the executor's recheck of a sphere-ordered
 * scan, and where the rewrite put it in place of that expression).
 */
extern "C" Datum
geoidx_sphere_knn_distance(PG_FUNCTION_ARGS)
{
	/* a polygon and a point: from the prepared polygon, where geoidx is sure of PostGIS's value */
	const char *what1 = "the left operand of <~~>", *what2 = "the right operand of <~~>";
	double m;
	if (geoidx_prepared_distance(PG_GETARG_DATUM(0), what1, PG_GETARG_DATUM(1), what2, false, &m,
								 true) ||
		geoidx_prepared_distance(PG_GETARG_DATUM(1), what2, PG_GETARG_DATUM(0), what1, false, &m,
								 true))
		PG_RETURN_FLOAT8(m);
	Datum d;
	if (!geoidx_postgis_call(GEOIDX_PG_KNN, PG_GETARG_DATUM(0), "the left operand of <~~>",
							 PG_GETARG_DATUM(1), "the right operand of <~~>", 0.0, false, &d))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(d);
}
