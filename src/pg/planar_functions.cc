/*
 * The planar operators' functions: geoidx_planar_contains(a, b) is PostGIS's
 * ST_Contains(a, b) (geometry, straight edges in degrees), and so on for
 * within, covers, intersects, coveredby and dwithin (in degrees). rewrite.cc puts a PostGIS call on
 * a geoidx-indexed column into its operator (col ##@> g for ST_Contains(col, g)) so that the index
 * can decide rows from the planar grid; what it cannot decide, and every row of any other plan, is
 * this call.
 *
 * Each call site keeps its own FmgrInfo of the PostGIS function in fn_extra,
 * so PostGIS sees the call sequence (and keeps the caches) it would see as the
 * filter of the same rows, and the arguments go in the order the query wrote
 * them, so that its errors are word for word its own.
 */
#include "geoidx.h"

namespace
{

Datum
call_planar(FunctionCallInfo fcinfo, Oid fn, const char *name)
{
	if (!OidIsValid(fn))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FUNCTION),
						errmsg("PostGIS's %s(geometry, geometry%s) is missing", name,
							   PG_NARGS() == 3 ? ", float8" : ""),
						errhint("geoidx's planar operators call PostGIS's; is PostGIS installed "
								"whole?")));
	FmgrInfo *f = (FmgrInfo *) fcinfo->flinfo->fn_extra;
	if (f == NULL || f->fn_oid != fn)
	{
		f = (FmgrInfo *) MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(FmgrInfo));
		fmgr_info_cxt(fn, f, fcinfo->flinfo->fn_mcxt);
		fcinfo->flinfo->fn_extra = f;
	}
	LOCAL_FCINFO(call, 3);
	InitFunctionCallInfoData(*call, f, PG_NARGS(), PG_GET_COLLATION(), NULL, NULL);
	for (int i = 0; i < PG_NARGS(); i++)
		call->args[i] = fcinfo->args[i];
	Datum result = FunctionCallInvoke(call);
	if (call->isnull)
		PG_RETURN_NULL();
	return result;
}

} // namespace

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_planar_contains);
	PG_FUNCTION_INFO_V1(geoidx_planar_within);
	PG_FUNCTION_INFO_V1(geoidx_planar_covers);
	PG_FUNCTION_INFO_V1(geoidx_planar_intersects);
	PG_FUNCTION_INFO_V1(geoidx_planar_coveredby);
	PG_FUNCTION_INFO_V1(geoidx_planar_dwithin);
}

/* geoidx_planar_contains(a, b) = ST_Contains(a, b): the operator ##@> */
extern "C" Datum
geoidx_planar_contains(PG_FUNCTION_ARGS)
{
	return call_planar(fcinfo, geoidx_catalog().planar_contains_fn, "ST_Contains");
}

/* geoidx_planar_within(a, b) = ST_Within(a, b): ##<@, the commutator of ##@> */
extern "C" Datum
geoidx_planar_within(PG_FUNCTION_ARGS)
{
	return call_planar(fcinfo, geoidx_catalog().planar_within_fn, "ST_Within");
}

/* geoidx_planar_covers(a, b) = ST_Covers(a, b): ##~@> */
extern "C" Datum
geoidx_planar_covers(PG_FUNCTION_ARGS)
{
	return call_planar(fcinfo, geoidx_catalog().planar_covers_fn, "ST_Covers");
}

/* geoidx_planar_intersects(a, b) = ST_Intersects(a, b): ##&&, its own commutator */
extern "C" Datum
geoidx_planar_intersects(PG_FUNCTION_ARGS)
{
	return call_planar(fcinfo, geoidx_catalog().planar_intersects_fn, "ST_Intersects");
}

/* geoidx_planar_coveredby(a, b) = ST_CoveredBy(a, b) (planar_support.cc gives its box condition) */
extern "C" Datum
geoidx_planar_coveredby(PG_FUNCTION_ARGS)
{
	return call_planar(fcinfo, geoidx_catalog().planar_coveredby_fn, "ST_CoveredBy");
}

/* geoidx_planar_dwithin(a, b, degrees) = ST_DWithin(a, b, degrees), planar */
extern "C" Datum
geoidx_planar_dwithin(PG_FUNCTION_ARGS)
{
	return call_planar(fcinfo, geoidx_catalog().planar_dwithin_fn, "ST_DWithin");
}
