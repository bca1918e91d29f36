/*
 * Call the geometry version of a string overload: geoidx_circle(text, ...), text <@ geoidx_circle,
 * geoidx_distance(text, varchar, ...), text <~> varchar and
 * geoidx_dwithin(text, varchar, ...). With a geometry and a geography version of
 * each, a call with untyped literals, geoidx_dwithin('SRID=4326;POINT(1 2)',
 * 'SRID=4326;POINT(1 1)', 100), would be ambiguous: PostgreSQL resolves an
 * unknown argument to the string category when a candidate takes one (as
 * PostGIS's ST_DWithin(text, text, float8) does). These read the points with
 * geometry's input function and call the geometry function.
 *
 * Why (text, varchar) for two points: a (text, text) candidate would tie with
 * (geometry, geometry) for geoidx_dwithin(pos, some_text, ...) (one exact match
 * each), which the geometry version alone answers (text casts to geometry
 * implicitly); geometry has no cast to varchar, so (text, varchar) drops out
 * there, still wins (text, text) calls by its one exact match, and wins
 * (unknown, unknown) because text is the preferred string type.
 */
#include "geoidx.h"

#include <type_traits>

namespace
{

/*
 * The geometry function a string overload calls, and geometry's input function.
 * inner has its own fn_extra, so the geometry function keeps its caches.
 */
struct StringCall
{
	FmgrInfo geometry_in;
	Oid ioparam;
	FmgrInfo inner;
};

/*
 * Call fn, the geometry version of a string overload, with the first npoints
 * arguments read by geometry's input function, exactly as the literal used to
 * be read: the same answers and errors.
 */
Datum
call_with_geometry(FunctionCallInfo fcinfo, PGFunction fn, int npoints)
{
	StringCall *sc = (StringCall *) fcinfo->flinfo->fn_extra;
	if (sc == NULL)
	{
		MemoryContext cxt = fcinfo->flinfo->fn_mcxt;
		Oid infunc;
		sc = (StringCall *) MemoryContextAllocZero(cxt, sizeof(StringCall));
		getTypeInputInfo(geoidx_geometry_type(), &infunc, &sc->ioparam);
		fmgr_info_cxt(infunc, &sc->geometry_in, cxt);
		sc->inner.fn_addr = fn;
		sc->inner.fn_oid = fcinfo->flinfo->fn_oid;
		sc->inner.fn_nargs = fcinfo->flinfo->fn_nargs;
		sc->inner.fn_strict = true;
		sc->inner.fn_retset = false;
		sc->inner.fn_stats = fcinfo->flinfo->fn_stats;
		sc->inner.fn_mcxt = cxt;
		sc->inner.fn_expr = fcinfo->flinfo->fn_expr;
		fcinfo->flinfo->fn_extra = sc;
	}

	int nargs = PG_NARGS();
	Assert(nargs <= 4 && npoints <= nargs);
	LOCAL_FCINFO(inner, 4);
	InitFunctionCallInfoData(*inner, &sc->inner, nargs, fcinfo->fncollation, NULL, NULL);
	for (int i = 0; i < nargs; i++)
	{
		inner->args[i].isnull = false; /* the overloads are strict */
		if (i < npoints)
			inner->args[i].value = InputFunctionCall(
				&sc->geometry_in, text_to_cstring(PG_GETARG_TEXT_PP(i)), sc->ioparam, -1);
		else
			inner->args[i].value = PG_GETARG_DATUM(i);
	}
	Datum result = FunctionCallInvoke(inner);
	fcinfo->isnull = inner->isnull;
	return result;
}

static_assert(std::is_trivially_destructible_v<StringCall>, "fn_extra is freed, not destroyed");

} // namespace

/*
 * Define the string overload name(...) of the geometry function fn, whose
 * first npoints arguments are points.
 */
#define GEOIDX_STRING_OVERLOAD(name, fn, npoints)                                                  \
	extern "C"                                                                                     \
	{                                                                                              \
		PG_FUNCTION_INFO_V1(name);                                                                 \
	}                                                                                              \
	extern "C" Datum name(PG_FUNCTION_ARGS)                                                        \
	{                                                                                              \
		return call_with_geometry(fcinfo, fn, npoints);                                            \
	}

/* geoidx_circle(text, ...), text <@ geoidx_circle */
GEOIDX_STRING_OVERLOAD(geoidx_circle_make_text, geoidx_circle_make, 1)
GEOIDX_STRING_OVERLOAD(geoidx_within_circle_text, geoidx_within_circle, 1)
/* text <~> varchar, geoidx_distance(text, varchar, ...), geoidx_dwithin(text, varchar, ...) */
GEOIDX_STRING_OVERLOAD(geoidx_distance_op_text, geoidx_distance_op, 2)
GEOIDX_STRING_OVERLOAD(geoidx_distance_text, geoidx_distance, 2)
GEOIDX_STRING_OVERLOAD(geoidx_dwithin_text, geoidx_dwithin, 2)
