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
 * st_dwithin(a, b), and pos <@ circle in point_within (centre first), as the
 * index scan does.
 *
 * Each of them takes geometry or geography (the same C function: both are
 * GSERIALIZED, and a geography holds what the cast would have made of it), and
 * also strings, so that untyped literals stay unambiguous (see text_args.cc).
 *
 * geoidx_distance, <~> and geoidx_dwithin run once per row in sequential scans:
 * they read the points in place (no detoast for ordinary points, no palloc),
 * and geoidx_dwithin keeps the cheap tests of the last centre it saw in
 * fn_extra, so that most rows are decided without a geodesic.
 */
#include "geodesy.h"
#include "sphere_bounds.h"

#include "geoidx.h"

#include <cmath>
#include <type_traits>

namespace
{

/* ---------- geoidx_dwithin ---------- */

/*
 * The cheap tests of the centre seen last. Either argument may be the constant
 * one; the cache is keyed on the raw coordinates of whichever it was built from.
 */
struct DwithinCache
{
	bool valid;
	double cx, cy; /* raw coordinates the test was built from */
	double radius;
	bool use_spheroid;
	double center_lat_deg; /* as point_within computes it */
	geoidx::RadiusTest test;
	bool have_last;
	double last_ax, last_ay, last_bx, last_by;
};

static_assert(std::is_trivially_destructible_v<DwithinCache>, "fn_extra is freed, not destroyed");

Datum
distance_common(FunctionCallInfo fcinfo, bool use_spheroid, const char *what1, const char *what2)
{
	GeoidxPoint a, b;
	geoidx::LonLat lla, llb;

	bool have_a = geoidx_read_point(PG_GETARG_DATUM(0), what1, &a, &lla);
	bool have_b = geoidx_read_point(PG_GETARG_DATUM(1), what2, &b, &llb);
	if (!have_a || !have_b)
		PG_RETURN_NULL();
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

/* a <~> b = ST_Distance(a::geography, b::geography); NULL if either is EMPTY. */
extern "C" Datum
geoidx_distance_op(PG_FUNCTION_ARGS)
{
	return distance_common(fcinfo, true, "the left operand of <~>", "the right operand of <~>");
}

/* = ST_Distance(a::geography, b::geography, use_spheroid) */
extern "C" Datum
geoidx_distance(PG_FUNCTION_ARGS)
{
	return distance_common(fcinfo, PG_GETARG_BOOL(2), "argument 1 of geoidx_distance",
						   "argument 2 of geoidx_distance");
}

/* = ST_DWithin(a::geography, b::geography, metres, use_spheroid); false if either is EMPTY. */
extern "C" Datum
geoidx_dwithin(PG_FUNCTION_ARGS)
{
	double metres = PG_GETARG_FLOAT8(2);
	bool use_spheroid = PG_NARGS() > 3 ? PG_GETARG_BOOL(3) : true;
	GeoidxPoint a, b;
	geoidx::LonLat lla, llb;

	geoidx_check_radius(metres);
	bool have_a = geoidx_read_point(PG_GETARG_DATUM(0), "argument 1 of geoidx_dwithin", &a, &lla);
	bool have_b = geoidx_read_point(PG_GETARG_DATUM(1), "argument 2 of geoidx_dwithin", &b, &llb);
	if (!have_a || !have_b)
		PG_RETURN_BOOL(false);

	geoidx::GeoPoint ga = geoidx::geographic_point(lla);
	geoidx::GeoPoint gb = geoidx::geographic_point(llb);

	DwithinCache *cache = (DwithinCache *) fcinfo->flinfo->fn_extra;
	if (cache == NULL)
	{
		cache =
			(DwithinCache *) MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(DwithinCache));
		fcinfo->flinfo->fn_extra = cache;
	}

	/* Which argument is the centre of the cached test, if either. */
	int centre = 0;
	if (cache->valid && cache->radius == metres && cache->use_spheroid == use_spheroid)
	{
		if (b.x == cache->cx && b.y == cache->cy)
			centre = 2;
		else if (a.x == cache->cx && a.y == cache->cy)
			centre = 1;
	}
	if (centre == 0)
	{
		/* Build it around the argument that did not change since the last call (b by default). */
		bool a_constant = cache->have_last && a.x == cache->last_ax && a.y == cache->last_ay &&
						  !(b.x == cache->last_bx && b.y == cache->last_by);
		centre = a_constant ? 1 : 2;
		cache->cx = centre == 1 ? a.x : b.x;
		cache->cy = centre == 1 ? a.y : b.y;
		cache->radius = metres;
		cache->use_spheroid = use_spheroid;
		cache->test = geoidx::radius_test(centre == 1 ? ga : gb, metres, use_spheroid);
		cache->center_lat_deg = cache->test.center.lat * 180.0 / M_PI;
		cache->valid = true;
	}
	cache->have_last = true;
	cache->last_ax = a.x;
	cache->last_ay = a.y;
	cache->last_bx = b.x;
	cache->last_by = b.y;

	/* The cheap tests are symmetric bounds; the exact test keeps PostGIS's argument order. */
	const geoidx::LonLat &other = centre == 1 ? llb : lla;
	const geoidx::GeoPoint &gother = centre == 1 ? gb : ga;
	if (std::fabs(other.lat - cache->center_lat_deg) > cache->test.reject_dlat_deg)
		PG_RETURN_BOOL(false);
	switch (geoidx::classify_box(cache->test, geoidx::box_of(geoidx::unit_vector(gother))))
	{
		case geoidx::Verdict::outside:
			PG_RETURN_BOOL(false);
		case geoidx::Verdict::inside:
			PG_RETURN_BOOL(true);
		case geoidx::Verdict::maybe:
			break;
	}
	PG_RETURN_BOOL(geoidx::st_dwithin(ga, gb, metres, use_spheroid));
}
