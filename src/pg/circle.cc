/*
 * The geoidx_circle type: its text I/O, the SQL constructors' common part, the
 * radius rule, the region test a circle value stands for, and pos <@ circle.
 *
 * Despite the name a circle value is any region of src/core/region.h around
 * its centre (the disc, its complement, a comparison of the distance with a
 * bound), so that every index condition is the one operator <@: see
 * GeoidxCircle in geoidx.h.
 */
#include "geodesy.h"
#include "region.h"

#include "geoidx.h"

extern "C"
{
#include "common/shortest_dec.h"
#include "utils/float.h"
}

#include <cmath>
#include <limits>
#include <type_traits>

static_assert(std::is_trivially_destructible_v<GeoidxCircle>,
			  "a circle value is palloc'd and never destroyed");

namespace
{

constexpr const char *kCircleWhat = "the centre of geoidx_circle";

/* ---------- geoidx_circle ---------- */

/* Raise the syntax error of a geoidx_circle input, with the form it expects as the hint. */
void
circle_syntax_error(const char *str, const char *why)
{
	ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					errmsg("invalid input syntax for type geoidx_circle: \"%s\"", str),
					errdetail("%s", why),
					errhint("The form is CIRCLE(lon lat, metres, spheroid|sphere), for example "
							"CIRCLE(112 -7, 200000, spheroid).")));
}

/* Return s past any white space. */
const char *
skip_space(const char *s)
{
	while (*s != '\0' && isspace((unsigned char) *s))
		s++;
	return s;
}

/* Name the input text in the context of an error raised while validating it. */
void
circle_in_context(void *arg)
{
	errcontext("geoidx_circle input \"%s\"", (const char *) arg);
}

/* Parse a number at s (float8in's syntax: also NaN, Infinity); errors name the whole input. */
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

/* the text before CIRCLE(...) for each mode */
const char *const kModePrefix[geoidx::kRegionModes] = {"", "NOT ", "> ", ">= ", "< ", "<= "};

/* The region test of the circle seen last: a scan of <@ calls it once per row. */
struct CircleCache
{
	GeoidxCircle circle;
	geoidx::RegionTest test;
};

/* Return whether two circle values are the same bytes: a NaN bound must match itself. */
bool
same_circle(const GeoidxCircle *a, const GeoidxCircle *b)
{
	return memcmp(a, b, sizeof(GeoidxCircle)) == 0;
}

static_assert(std::is_trivially_destructible_v<CircleCache>, "fn_extra is freed, not destroyed");

/*
 * Fill c from a centre (already decoded, not empty), a radius, the model and
 * the region. Any radius: a NaN or negative one has nothing within it and
 * everything outside, as PostGIS's ST_DWithin answers (region.h).
 */
void
fill_circle(GeoidxCircle *c, const GeoidxPoint *centre, double metres, bool use_spheroid, int mode,
			bool point_first, const char *what)
{
	geoidx::LonLat ll;

	geoidx_point_unit(centre, what, &ll, NULL);
	memset(c, 0, sizeof(*c));
	c->lon = ll.lon;
	c->lat = ll.lat;
	c->radius = metres;
	c->use_spheroid = use_spheroid ? 1 : 0;
	c->mode = (int16) mode;
	c->flags = point_first ? GEOIDX_CIRCLE_POINT_FIRST : 0;
}

/* Fill c as the outside of an EMPTY centre: every point, written outside CIRCLE(0 0, NaN, ...). */
void
everything_outside(GeoidxCircle *c, bool use_spheroid, bool point_first)
{
	memset(c, 0, sizeof(*c));
	c->radius = std::numeric_limits<double>::quiet_NaN();
	c->use_spheroid = use_spheroid ? 1 : 0;
	c->mode = (int16) geoidx::RegionMode::outside;
	c->flags = point_first ? GEOIDX_CIRCLE_POINT_FIRST : 0;
}

} // namespace

/* Raise geoidx's error for a radius that is NaN or negative, which no disc has. */
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
 * Return the circle of one region around argument 0 (the SQL constructors'
 * common part): the radius checked where the region needs it, NULL for an
 * EMPTY centre.
 */
Datum
geoidx_make_circle(FunctionCallInfo fcinfo, double metres, bool use_spheroid, int mode,
				   bool point_first)
{
	GeoidxPoint centre;
	geoidx_decode_point(PG_GETARG_DATUM(0), kCircleWhat, &centre);
	GeoidxCircle *c = (GeoidxCircle *) palloc(sizeof(GeoidxCircle));
	if (centre.empty)
	{
		/*
		 * Nothing is ST_DWithin an EMPTY centre, so every row but NULL is
		 * outside it: the outside region of a NaN radius (region.h), which
		 * the index answers without a look at any point.
		 */
		if (mode != (int) geoidx::RegionMode::outside)
			PG_RETURN_NULL();
		everything_outside(c, use_spheroid, point_first);
		PG_RETURN_POINTER(c);
	}
	fill_circle(c, &centre, metres, use_spheroid, mode, point_first, kCircleWhat);
	PG_RETURN_POINTER(c);
}

/* Return the region test of a circle value; raise an error for one no geoidx could have made. */
geoidx::RegionTest
geoidx_circle_region(const GeoidxCircle *c)
{
	int mode = c->mode;
	if (mode < 0 || mode >= geoidx::kRegionModes ||
		(c->flags & ~(GEOIDX_CIRCLE_POINT_FIRST | GEOIDX_CIRCLE_CANDIDATE)) != 0 ||
		((c->flags & GEOIDX_CIRCLE_CANDIDATE) && mode != (int) geoidx::RegionMode::within))
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
						errmsg("geoidx_circle value has an unknown region %d or flags 0x%x", mode,
							   (unsigned) c->flags)));
	return geoidx::region_test(geoidx::geographic_point(geoidx::LonLat{c->lon, c->lat}), c->radius,
							   c->use_spheroid != 0, (geoidx::RegionMode) mode,
							   (c->flags & GEOIDX_CIRCLE_POINT_FIRST) != 0);
}

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_circle_in);
	PG_FUNCTION_INFO_V1(geoidx_circle_out);
	PG_FUNCTION_INFO_V1(geoidx_circle_make);
	PG_FUNCTION_INFO_V1(geoidx_within_circle);
}

/* Read CIRCLE(lon lat, metres, spheroid|sphere); the model may be left out (spheroid). */
extern "C" Datum
geoidx_circle_in(PG_FUNCTION_ARGS)
{
	const char *str = PG_GETARG_CSTRING(0);
	const char *s = skip_space(str);
	GeoidxPoint centre;
	bool use_spheroid = true;
	bool point_first = false;
	bool candidate = false;
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
			if (pg_strncasecmp(s, "point first", 11) == 0)
			{
				point_first = true;
				s = skip_space(s + 11);
			}
			else if (mode == 0 && pg_strncasecmp(s, "candidate", 9) == 0)
			{
				candidate = true;
				s = skip_space(s + 9);
			}
			else
				circle_syntax_error(str, "After the model only \"point first\" or (for a disc) "
										 "\"candidate\" may follow.");
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
	fill_circle(c, &centre, metres, use_spheroid, mode, point_first, kCircleWhat);
	if (candidate)
		c->flags |= GEOIDX_CIRCLE_CANDIDATE;
	error_context_stack = context.previous;
	PG_RETURN_POINTER(c);
}

/* Write the shortest text that reads back to the same doubles, whatever extra_float_digits says. */
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
							   (c->flags & GEOIDX_CIRCLE_POINT_FIRST) ? ", point first"
							   : (c->flags & GEOIDX_CIRCLE_CANDIDATE) ? ", candidate"
																	  : ""));
}

namespace
{

/*
 * shape <@ circle. A candidate disc asks whether the shape's box, as its index
 * entry holds it, reaches into the disc, and for a large polygon whether
 * some piece of it does (what the index tests); any other
 * region is decided by PostGIS: ST_DWithin in the order the circle says, or
 * ST_Distance (NULL for an EMPTY shape) compared as float8 compares.
 */
Datum
shape_within_circle(FunctionCallInfo fcinfo, const GeoidxCircle *c)
{
	static const char *const what = "the left operand of <@";
	Datum shape = PG_GETARG_DATUM(0);
	geoidx::RegionTest t = geoidx_circle_region(c);
	int mode = c->mode;
	if (c->flags & GEOIDX_CIRCLE_CANDIDATE)
	{
		GeoidxPoint p;
		geoidx_decode_any(shape, what, &p);
		if (p.empty)
			PG_RETURN_BOOL(false);
		GeoidxLeafEntry e;
		geoidx::Box3 box;
		geoidx_entry_set_value(&e, &p, &box);
		geoidx::Verdict v = geoidx::classify_region(t, box);
		geoidx::ShapePieces pieces;
		geoidx::InteriorGrid grids[geoidx::kMaxPieces];
		if (v == geoidx::Verdict::maybe && geoidx_value_pieces(shape, what, &pieces, grids))
			v = geoidx::pieces_classify(t, pieces);
		PG_RETURN_BOOL(v != geoidx::Verdict::outside);
	}
	Datum centre = geoidx_point_datum(c->lon, c->lat, false, true);
	Datum r;
	if (mode == (int) geoidx::RegionMode::within || mode == (int) geoidx::RegionMode::outside)
	{
		if (t.constant >= 0) /* the outside of an EMPTY centre: every shape, EMPTY ones too */
			PG_RETURN_BOOL(t.constant == 1);
		bool point_first = (c->flags & GEOIDX_CIRCLE_POINT_FIRST) != 0;
		int fast = geoidx_prepared_dwithin(shape, what, centre, kCircleWhat, c->radius,
										   c->use_spheroid != 0);
		if (fast >= 0)
			PG_RETURN_BOOL((mode == (int) geoidx::RegionMode::within) == (fast == 1));
		geoidx_postgis_call(GEOIDX_PG_DWITHIN, point_first ? shape : centre,
							point_first ? what : kCircleWhat, point_first ? centre : shape,
							point_first ? kCircleWhat : what, c->radius, c->use_spheroid != 0, &r);
		bool in = DatumGetBool(r);
		PG_RETURN_BOOL(mode == (int) geoidx::RegionMode::within ? in : !in);
	}
	double d, x = c->radius, lo, hi;
	/* the comparison decided by the prepared polygon's bounds of the distance (a NaN bound never
	 * is) */
	if (geoidx_prepared_distance_bounds(shape, what, centre, kCircleWhat, true, &lo, &hi))
	{
		int verdict = -1;
		switch ((geoidx::RegionMode) mode)
		{
			case geoidx::RegionMode::dist_gt:
				verdict = lo > x ? 1 : hi <= x ? 0 : -1;
				break;
			case geoidx::RegionMode::dist_ge:
				verdict = lo >= x ? 1 : hi < x ? 0 : -1;
				break;
			case geoidx::RegionMode::dist_lt:
				verdict = hi < x ? 1 : lo >= x ? 0 : -1;
				break;
			default:
				verdict = hi <= x ? 1 : lo > x ? 0 : -1;
				break;
		}
		if (verdict >= 0)
			PG_RETURN_BOOL(verdict == 1);
	}
	if (!geoidx_postgis_call(GEOIDX_PG_DISTANCE, shape, what, centre, kCircleWhat, 0.0, true, &r))
		PG_RETURN_NULL();
	d = DatumGetFloat8(r);
	switch ((geoidx::RegionMode) mode)
	{
		case geoidx::RegionMode::dist_gt:
			PG_RETURN_BOOL(float8_gt(d, x));
		case geoidx::RegionMode::dist_ge:
			PG_RETURN_BOOL(float8_ge(d, x));
		case geoidx::RegionMode::dist_lt:
			PG_RETURN_BOOL(float8_lt(d, x));
		default:
			PG_RETURN_BOOL(float8_le(d, x));
	}
}

} // namespace

/* Make geoidx_circle(centre geometry, metres, use_spheroid); NULL for an EMPTY centre. */
extern "C" Datum
geoidx_circle_make(PG_FUNCTION_ARGS)
{
	return geoidx_make_circle(fcinfo, PG_GETARG_FLOAT8(1), PG_GETARG_BOOL(2),
							  (int) geoidx::RegionMode::within, false);
}

/*
 * Decide pos <@ circle: ST_DWithin(centre, pos, radius, use_spheroid), or whichever
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

	if (geoidx_datum_is_shape(PG_GETARG_DATUM(0)))
		return shape_within_circle(fcinfo, c);

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
