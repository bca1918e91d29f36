/*
 * The SQL-callable functions: the geoidx_circle type (text I/O and
 * geoidx_circle(centre, metres, use_spheroid)), the index operator <@, the
 * distance operator <~>, geoidx_distance, geoidx_dwithin and
 * geoidx_search_box.
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
 * also strings, so that untyped literals stay unambiguous (see call_with_geometry).
 *
 * geoidx_distance, <~> and geoidx_dwithin run once per row in sequential scans:
 * they read the points in place (no detoast for ordinary points, no palloc),
 * and geoidx_dwithin keeps the cheap tests of the last centre it saw in
 * fn_extra, so that most rows are decided without a geodesic.
 */
#include "degree_box.h"
#include "geodesy.h"
#include "sphere_bounds.h"

#include "geoidx.h"

extern "C"
{
#include "common/shortest_dec.h"
#include "utils/float.h"
}

#include <cmath>

/* Used by support.cc as well. */
extern void geoidx_check_radius(double metres);
extern void geoidx_fill_circle(GeoidxCircle *c, const GeoidxPoint *centre, double metres,
							   bool use_spheroid, int mode, bool point_first, const char *what);

namespace
{

constexpr const char *kCircleWhat = "the centre of geoidx_circle";
constexpr int32 kSridWgs84 = 4326;

/* ---------- geoidx_circle ---------- */

void
circle_syntax_error(const char *str, const char *why)
{
	ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					errmsg("invalid input syntax for type geoidx_circle: \"%s\"", str),
					errdetail("%s", why),
					errhint("The form is CIRCLE(lon lat, metres, spheroid|sphere), for example "
							"CIRCLE(112 -7, 200000, spheroid).")));
}

const char *
skip_space(const char *s)
{
	while (*s != '\0' && isspace((unsigned char) *s))
		s++;
	return s;
}

void
circle_in_context(void *arg)
{
	errcontext("geoidx_circle input \"%s\"", (const char *) arg);
}

/* A number at s (float8in's syntax: also NaN, Infinity); errors name the whole input. */
double
parse_number(const char *s, const char **end, const char *str, const char *field)
{
	s = skip_space(s);
	if (*s == '\0' || *s == ',' || *s == ')')
		circle_syntax_error(str, psprintf("The %s is missing.", field));
	char *e;
	double v = float8in_internal(const_cast<char *>(s), &e, "geoidx_circle", str);
	*end = e;
	return v;
}

} // namespace

/*
 * Fills c from a centre (already decoded, not empty), a radius, the model and
 * the region; validates (the distance comparisons take any bound).
 */
void
geoidx_fill_circle(GeoidxCircle *c, const GeoidxPoint *centre, double metres, bool use_spheroid,
				   int mode, bool point_first, const char *what)
{
	geoidx::LonLat ll;

	if (mode == (int) geoidx::RegionMode::within || mode == (int) geoidx::RegionMode::outside)
		geoidx_check_radius(metres);
	geoidx_point_unit(centre, what, &ll, NULL);
	memset(c, 0, sizeof(*c));
	c->lon = ll.lon;
	c->lat = ll.lat;
	c->radius = metres;
	c->use_spheroid = use_spheroid ? 1 : 0;
	c->mode = (int16) mode;
	c->flags = point_first ? GEOIDX_CIRCLE_POINT_FIRST : 0;
}

namespace
{

} // namespace

/* Decodes and checks one argument; false if it is EMPTY. */
bool
geoidx_read_point(Datum d, const char *what, GeoidxPoint *p, geoidx::LonLat *ll)
{
	geoidx_decode_point(d, what, p);
	if (p->empty)
		return false;
	geoidx_point_unit(p, what, ll, NULL);
	return true;
}

/*
 * The circle of one region around argument 0 (the SQL constructors'
 * common part): the radius checked where the region needs it, NULL for an
 * EMPTY centre.
 */
Datum
geoidx_make_circle(FunctionCallInfo fcinfo, double metres, bool use_spheroid, int mode,
				   bool point_first)
{
	GeoidxPoint centre;
	if (mode == (int) geoidx::RegionMode::within || mode == (int) geoidx::RegionMode::outside)
		geoidx_check_radius(metres);
	geoidx_decode_point(PG_GETARG_DATUM(0), kCircleWhat, &centre);
	if (centre.empty)
		PG_RETURN_NULL();
	GeoidxCircle *c = (GeoidxCircle *) palloc(sizeof(GeoidxCircle));
	geoidx_fill_circle(c, &centre, metres, use_spheroid, mode, point_first, kCircleWhat);
	PG_RETURN_POINTER(c);
}

namespace
{

/* the text before CIRCLE(...) for each mode */
const char *const kModePrefix[geoidx::kRegionModes] = {"", "NOT ", "> ", ">= ", "< ", "<= "};

/* ---------- decoded arguments ---------- */

/* ---------- <@ ---------- */

struct CircleCache
{
	GeoidxCircle circle;
	geoidx::RegionTest test;
};

bool
same_circle(const GeoidxCircle *a, const GeoidxCircle *b)
{
	/* memcmp: a NaN bound must match itself */
	return memcmp(a, b, sizeof(GeoidxCircle)) == 0;
}

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

/* ---------- string arguments ---------- */

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
 * The string overloads: geoidx_circle(text, ...), text <@ geoidx_circle,
 * geoidx_distance(text, varchar, ...), text <~> varchar and
 * geoidx_dwithin(text, varchar, ...). With a geometry and a geography version of
 * each, a call with untyped literals, geoidx_dwithin('SRID=4326;POINT(1 2)',
 * 'SRID=4326;POINT(1 1)', 100), would be ambiguous: PostgreSQL resolves an
 * unknown argument to the string category when a candidate takes one (as
 * PostGIS's ST_DWithin(text, text, float8) does). These read the first npoints
 * arguments with geometry's input function, exactly as the literal used to be
 * read, and call the geometry function: the same answers and errors.
 *
 * Why (text, varchar) for two points: a (text, text) candidate would tie with
 * (geometry, geometry) for geoidx_dwithin(pos, some_text, ...) (one exact match
 * each), which the geometry version alone answers (text casts to geometry
 * implicitly); geometry has no cast to varchar, so (text, varchar) drops out
 * there, still wins (text, text) calls by its one exact match, and wins
 * (unknown, unknown) because text is the preferred string type.
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

} // namespace

/* ---------- shared with support.cc ---------- */

void
geoidx_check_radius(double metres)
{
	if (std::isnan(metres))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("geoidx radius must be a number, got NaN")));
	if (metres < 0.0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("geoidx radius must be >= 0, got %g", metres)));
}

/*
 * The box as a PostGIS POLYGON with SRID 4326, through PostGIS's own
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
	PG_FUNCTION_INFO_V1(geoidx_circle_in);
	PG_FUNCTION_INFO_V1(geoidx_circle_out);
	PG_FUNCTION_INFO_V1(geoidx_circle_make);
	PG_FUNCTION_INFO_V1(geoidx_within_circle);
	PG_FUNCTION_INFO_V1(geoidx_distance_op);
	PG_FUNCTION_INFO_V1(geoidx_distance);
	PG_FUNCTION_INFO_V1(geoidx_dwithin);
	PG_FUNCTION_INFO_V1(geoidx_search_box);
}

/* CIRCLE(lon lat, metres, spheroid|sphere); the model may be left out (spheroid). */
extern "C" Datum
geoidx_circle_in(PG_FUNCTION_ARGS)
{
	const char *str = PG_GETARG_CSTRING(0);
	const char *s = skip_space(str);
	GeoidxPoint centre;
	bool use_spheroid = true;
	bool point_first = false;
	int mode = 0;

	/* the longest prefix first: ">=" before ">" */
	for (int m = geoidx::kRegionModes - 1; m > 0; m--)
	{
		const char *w = kModePrefix[m];
		size_t len = strlen(w) - 1; /* without the space */
		if (pg_strncasecmp(s, w, len) == 0 && (m != 1 || isspace((unsigned char) s[len])))
		{
			mode = m;
			s = skip_space(s + len);
			break;
		}
	}
	if (pg_strncasecmp(s, "circle", 6) != 0)
		circle_syntax_error(str, "It does not start with CIRCLE.");
	s = skip_space(s + 6);
	if (*s != '(')
		circle_syntax_error(str, "\"(\" is missing after CIRCLE.");
	s++;

	centre.empty = false;
	centre.x = parse_number(s, &s, str, "longitude");
	if (*s == ',')
		circle_syntax_error(str, "The centre is two numbers separated by a space, \"lon lat\".");
	centre.y = parse_number(s, &s, str, "latitude");
	if (*s != ',')
		circle_syntax_error(str, "\",\" is missing after the centre.");
	double metres = parse_number(s + 1, &s, str, "radius (metres)");
	if (*s == ',')
	{
		s = skip_space(s + 1);
		const char *word = s;
		while (isalpha((unsigned char) *s))
			s++;
		size_t len = s - word;
		if (len == 8 && pg_strncasecmp(word, "spheroid", 8) == 0)
			use_spheroid = true;
		else if (len == 6 && pg_strncasecmp(word, "sphere", 6) == 0)
			use_spheroid = false;
		else
			circle_syntax_error(str, "The model must be \"spheroid\" or \"sphere\".");
		s = skip_space(s);
		if (*s == ',')
		{
			s = skip_space(s + 1);
			if (pg_strncasecmp(s, "point first", 11) != 0)
				circle_syntax_error(str, "After the model only \"point first\" may follow.");
			point_first = true;
			s = skip_space(s + 11);
		}
	}
	if (*s != ')')
		circle_syntax_error(str, "\")\" is missing at the end.");
	s = skip_space(s + 1);
	if (*s != '\0')
		circle_syntax_error(str, psprintf("Unexpected text after \")\": \"%s\".", s));

	/* Validation errors name the input text too. */
	ErrorContextCallback context;
	context.callback = circle_in_context;
	context.arg = const_cast<char *>(str);
	context.previous = error_context_stack;
	error_context_stack = &context;
	GeoidxCircle *c = (GeoidxCircle *) palloc(sizeof(GeoidxCircle));
	geoidx_fill_circle(c, &centre, metres, use_spheroid, mode, point_first, kCircleWhat);
	error_context_stack = context.previous;
	PG_RETURN_POINTER(c);
}

/* Shortest text that reads back to the same double, whatever extra_float_digits says. */
extern "C" Datum
geoidx_circle_out(PG_FUNCTION_ARGS)
{
	const GeoidxCircle *c = (const GeoidxCircle *) PG_GETARG_POINTER(0);
	char lon[DOUBLE_SHORTEST_DECIMAL_LEN], lat[DOUBLE_SHORTEST_DECIMAL_LEN],
		radius[DOUBLE_SHORTEST_DECIMAL_LEN];

	double_to_shortest_decimal_buf(c->lon, lon);
	double_to_shortest_decimal_buf(c->lat, lat);
	double_to_shortest_decimal_buf(c->radius, radius);
	int mode = c->mode >= 0 && c->mode < geoidx::kRegionModes ? c->mode : 0;
	PG_RETURN_CSTRING(psprintf("%sCIRCLE(%s %s, %s, %s%s)", kModePrefix[mode], lon, lat, radius,
							   c->use_spheroid ? "spheroid" : "sphere",
							   (c->flags & GEOIDX_CIRCLE_POINT_FIRST) ? ", point first" : ""));
}

/* geoidx_circle(centre geometry, metres, use_spheroid): NULL for an EMPTY centre. */
extern "C" Datum
geoidx_circle_make(PG_FUNCTION_ARGS)
{
	return geoidx_make_circle(fcinfo, PG_GETARG_FLOAT8(1), PG_GETARG_BOOL(2),
							  (int) geoidx::RegionMode::within, false);
}

/*
 * pos <@ circle: ST_DWithin(centre, pos, radius, use_spheroid), or whichever
 * region the circle is, as the index decides it. An EMPTY point is in no disc
 * and has no distance (NULL, as the comparison of a NULL <~> would be), but it
 * is outside every disc.
 */
extern "C" Datum
geoidx_within_circle(PG_FUNCTION_ARGS)
{
	const GeoidxCircle *c = (const GeoidxCircle *) PG_GETARG_POINTER(1);
	GeoidxPoint p;
	geoidx::LonLat ll;

	if (!geoidx_read_point(PG_GETARG_DATUM(0), "the left operand of <@", &p, &ll))
	{
		if (c->mode == (int) geoidx::RegionMode::within ||
			c->mode == (int) geoidx::RegionMode::outside)
			PG_RETURN_BOOL(c->mode == (int) geoidx::RegionMode::outside);
		PG_RETURN_NULL();
	}

	CircleCache *cache = (CircleCache *) fcinfo->flinfo->fn_extra;
	if (cache == NULL || !same_circle(&cache->circle, c))
	{
		if (cache == NULL)
		{
			cache =
				(CircleCache *) MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(CircleCache));
			fcinfo->flinfo->fn_extra = cache;
		}
		cache->circle = *c;
		cache->test = geoidx_circle_region(c);
	}
	PG_RETURN_BOOL(geoidx::point_in_region(cache->test, ll));
}

namespace
{

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

/*
 * geoidx_search_box(centre, metres, use_spheroid): a POLYGON (SRID 4326) in
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

	geoidx_check_radius(metres);
	if (!geoidx_read_point(PG_GETARG_DATUM(0), "the centre of geoidx_search_box", &centre, &ll))
		PG_RETURN_NULL();
	geoidx::DegreeBox box = geoidx::search_box(ll, metres, use_spheroid);
	PG_RETURN_DATUM(geoidx_box_geometry(&box));
}

/* ---------- the string overloads (see call_with_geometry) ---------- */

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_circle_make_text);
	PG_FUNCTION_INFO_V1(geoidx_within_circle_text);
	PG_FUNCTION_INFO_V1(geoidx_distance_op_text);
	PG_FUNCTION_INFO_V1(geoidx_distance_text);
	PG_FUNCTION_INFO_V1(geoidx_dwithin_text);
}

extern "C" Datum
geoidx_circle_make_text(PG_FUNCTION_ARGS)
{
	return call_with_geometry(fcinfo, geoidx_circle_make, 1);
}

extern "C" Datum
geoidx_within_circle_text(PG_FUNCTION_ARGS)
{
	return call_with_geometry(fcinfo, geoidx_within_circle, 1);
}

extern "C" Datum
geoidx_distance_op_text(PG_FUNCTION_ARGS)
{
	return call_with_geometry(fcinfo, geoidx_distance_op, 2);
}

extern "C" Datum
geoidx_distance_text(PG_FUNCTION_ARGS)
{
	return call_with_geometry(fcinfo, geoidx_distance, 2);
}

extern "C" Datum
geoidx_dwithin_text(PG_FUNCTION_ARGS)
{
	return call_with_geometry(fcinfo, geoidx_dwithin, 2);
}
