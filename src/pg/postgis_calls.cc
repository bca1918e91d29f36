/*
 * The exact answers for shapes: PostGIS's own geography functions, called the
 * way an application's SQL calls them, so that every answer geoidx gives for
 * a shape is the one `ST_DWithin(a::geography, b::geography, r)` and the
 * others give, boundary cases included.
 *
 * geoidx decides what it can from boxes (the index, and the region tests of
 * circle.cc); a shape whose box does not decide comes here.
 *
 * Which of PostGIS's answers: PostGIS keeps, in fn_extra, a circle tree of an
 * argument that repeats from call to call, and at an edge its tree path and
 * its brute-force path can disagree (a point 0.2 um from a zone's vertex:
 * ST_Intersects true alone, false in a scan where the point repeats). So
 * PostGIS's own answer for a pair depends on the rows called before it, which
 * a scan's order decides: an index scan and a sequential scan of the same
 * query could return different rows. A pair with a point gets the answer of
 * the pair alone (SELECT ST_Intersects(a, b)): the call goes with a fresh
 * fn_extra, so PostGIS takes its brute-force path (a point against one shape
 * is linear in the shape, and only pairs at an edge get here). Two shapes keep
 * one FmgrInfo for the backend, so the tree of a shape that repeats is built
 * once, as in PostGIS's own scans: brute force is quadratic there, and the
 * answer is the one PostGIS gives in the scan's call order. Geometry arguments go
 * through the geography cast (PostGIS's, so its wrapping and NOTICE are the
 * cast's); geography arguments go as they are. Before that every argument is
 * decoded by geoidx (SRID, kind, finite coordinates), so that an input geoidx
 * refuses for points is refused, with the same error, for shapes.
 */
#include "serialized_shape.h"

#include "geoidx.h"

extern "C"
{
#include "access/detoast.h"
#include "utils/memutils.h"
}

namespace
{

/* header, extended flags, a 4-D box and a 4-D point, with room to spare */
constexpr int32 kLargestPoint = 256;

struct PostgisFunction
{
	Oid oid;
	FmgrInfo flinfo;
};

PostgisFunction functions[GEOIDX_PG_NFUNCTIONS];
PostgisFunction cast_function;

/* The fn_extra of a call for a pair with a point (see above), reset at the next one. */
MemoryContext alone_cxt = NULL;

/* The backend's FmgrInfo of a PostGIS function, set up again when its OID changes. */
FmgrInfo *
function_info(PostgisFunction *f, Oid oid, const char *name)
{
	if (!OidIsValid(oid))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FUNCTION),
						errmsg("geoidx needs PostGIS's %s, which is not installed", name)));
	if (f->oid != oid)
	{
		f->oid = InvalidOid;
		fmgr_info_cxt(oid, &f->flinfo, TopMemoryContext);
		f->oid = oid;
	}
	return &f->flinfo;
}

/* The argument as geography: a geography as it is, a geometry through PostGIS's cast. */
Datum
as_geography(Datum d, const char *what)
{
	GeoidxPoint p;
	geoidx_decode_any(d, what, &p);
	struct varlena *v = (struct varlena *) DatumGetPointer(d);
	if (geoidx_datum_is_geography(v))
		return d;
	const GeoidxCatalog &c = geoidx_catalog();
	return FunctionCall1(function_info(&cast_function, c.pg_geography_fn, "geography(geometry)"),
						 d);
}

} // namespace

/* Whether a geometry or geography datum holds anything but a point (its header says). */
bool
geoidx_datum_is_shape(Datum d)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);
	struct varlena *copy = NULL;
	/*
	 * Only a value of a few kilobytes is compressed or moved out of line, and
	 * no point is larger than kLargestPoint bytes: such a value is a shape,
	 * known without reading it.
	 */
	if (VARATT_IS_EXTERNAL_ONDISK(v))
	{
		varatt_external ext;
		VARATT_EXTERNAL_GET_POINTER(ext, v);
		if (ext.va_rawsize > kLargestPoint)
			return true;
	}
	else if (VARATT_IS_COMPRESSED(v) && VARDATA_COMPRESSED_GET_EXTSIZE(v) > kLargestPoint)
		return true;
	if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
		v = copy = detoast_attr_slice(v, 0, 64);
	const uint8 *data = (const uint8 *) VARDATA_ANY(v);
	Size len = VARSIZE_ANY_EXHDR(v);
	geoidx::SerializedHeader h;
	geoidx::WalkError err;
	bool shape = geoidx::read_serialized_header(data, len, &h, &err) &&
				 h.type != (uint32) geoidx::kPointType;
	if (copy)
		pfree(copy);
	return shape;
}

/* Whether a GSERIALIZED value was written by the geography type (its geodetic flag). */
bool
geoidx_datum_is_geography(const struct varlena *v)
{
	if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
	{
		struct varlena *head = detoast_attr_slice((struct varlena *) v, 0, 8);
		bool g = (((const uint8 *) VARDATA_ANY(head))[3] & 0x08) != 0;
		pfree(head);
		return g;
	}
	return (((const uint8 *) VARDATA_ANY(v))[3] & 0x08) != 0;
}

/*
 * PostGIS's answer for two geometry or geography arguments: fn is one of
 * GEOIDX_PG_*; r and use_spheroid are read by the functions that take them.
 * Returns false for a NULL answer (ST_Distance of an EMPTY shape).
 */
bool
geoidx_postgis_call(int fn, Datum a, const char *what_a, Datum b, const char *what_b, double r,
					bool use_spheroid, Datum *result)
{
	static const char *const names[GEOIDX_PG_NFUNCTIONS] = {
		"ST_DWithin(geography, geography, float8, boolean)",
		"ST_Distance(geography, geography, boolean)",
		"ST_Covers(geography, geography)",
		"ST_CoveredBy(geography, geography)",
		"ST_Intersects(geography, geography)",
		"geography <-> geography"};
	const GeoidxCatalog &c = geoidx_catalog();
	const Oid oids[GEOIDX_PG_NFUNCTIONS] = {c.pg_dwithin_fn,    c.pg_distance_fn,
											c.pg_covers_fn,     c.pg_coveredby_fn,
											c.pg_intersects_fn, c.pg_geog_knn_fn};
	Assert(fn >= 0 && fn < GEOIDX_PG_NFUNCTIONS);
	FmgrInfo *f = function_info(&functions[fn], oids[fn], names[fn]);
	Datum ga = as_geography(a, what_a);
	Datum gb = as_geography(b, what_b);
	FmgrInfo alone;
	if (!geoidx_datum_is_shape(ga) || !geoidx_datum_is_shape(gb))
	{
		/* what PostGIS's cache kept for the last such call is dropped here */
		if (alone_cxt == NULL)
			alone_cxt = AllocSetContextCreate(TopMemoryContext, "geoidx PostGIS calls of one pair",
											  ALLOCSET_SMALL_SIZES);
		else
			MemoryContextReset(alone_cxt);
		fmgr_info_copy(&alone, f, alone_cxt);
		f = &alone;
	}

	LOCAL_FCINFO(fcinfo, 4);
	int nargs = fn == GEOIDX_PG_DWITHIN ? 4 : fn == GEOIDX_PG_DISTANCE ? 3 : 2;
	InitFunctionCallInfoData(*fcinfo, f, nargs, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = ga;
	fcinfo->args[0].isnull = false;
	fcinfo->args[1].value = gb;
	fcinfo->args[1].isnull = false;
	if (fn == GEOIDX_PG_DWITHIN)
	{
		fcinfo->args[2].value = Float8GetDatum(r);
		fcinfo->args[2].isnull = false;
		fcinfo->args[3].value = BoolGetDatum(use_spheroid);
		fcinfo->args[3].isnull = false;
	}
	else if (fn == GEOIDX_PG_DISTANCE)
	{
		fcinfo->args[2].value = BoolGetDatum(use_spheroid);
		fcinfo->args[2].isnull = false;
	}
	*result = FunctionCallInvoke(fcinfo);
	return !fcinfo->isnull;
}
