/*
 * geoidx_search_box: the lon/lat box that a plain GiST index on the column is
 * searched with for geoidx_dwithin (support.cc), and the box geometries the
 * estimators hand to PostGIS's && estimator (selectivity.cc).
 */
#include "degree_box.h"

#include "geoidx.h"

namespace
{

constexpr int32 kSridWgs84 = 4326;

} // namespace

/*
 * Return the box as a PostGIS POLYGON with SRID 4326, through PostGIS's own
 * ST_MakeEnvelope (found once per backend in the postgis extension's schema, see catalog.cc).
 */
Datum
geoidx_box_geometry(const geoidx::DegreeBox *box)
{
	return FunctionCall5Coll(const_cast<FmgrInfo *>(geoidx_envelope_function()), InvalidOid,
							 Float8GetDatum(box->xmin), Float8GetDatum(box->ymin),
							 Float8GetDatum(box->xmax), Float8GetDatum(box->ymax),
							 Int32GetDatum(kSridWgs84));
}

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_search_box);
}

/*
 * Return geoidx_search_box(centre, metres, use_spheroid): a POLYGON (SRID 4326) in
 * degrees that holds every point within the radius of the (normalised)
 * centre; NULL for an EMPTY centre. See degree_box.h for the construction.
 *
 * Limitation: it is a box in stored coordinates and assumes they lie in
 * [-180, 180] x [-90, 90]. A stored value that the geography cast wraps (lon
 * 190, lat 95) is measured by geoidx_dwithin at its wrapped position, which is
 * generally not inside this box, so a GiST index scan through
 * pos && geoidx_search_box(...) does not find such rows while a sequential scan
 * does. geoidx's own index (pos <@ geoidx_circle(...)) has no such limitation.
 */
extern "C" Datum
geoidx_search_box(PG_FUNCTION_ARGS)
{
	double metres = PG_GETARG_FLOAT8(1);
	bool use_spheroid = PG_GETARG_BOOL(2);
	GeoidxPoint centre;
	geoidx::LonLat ll;

	/* NULL (a key no row matches) for an EMPTY centre and for a radius with nothing within */
	if (!geoidx_read_point(PG_GETARG_DATUM(0), "the centre of geoidx_search_box", &centre, &ll) ||
		geoidx_radius_holds_nothing(metres))
		PG_RETURN_NULL();
	geoidx::DegreeBox box = geoidx::search_box(ll, metres, use_spheroid);
	PG_RETURN_DATUM(geoidx_box_geometry(&box));
}
