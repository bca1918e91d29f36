/*
 * geoidx_dwithin(a, b, r, use_spheroid) row by row: in a sequential scan one
 * argument is the constant centre and the other the row's point, and which
 * one is not known in advance (either may be the column). The memo keeps the
 * cheap tests (RadiusTest) around whichever argument stayed the same, so most
 * rows are decided by a latitude band and a chord, without a geodesic.
 *
 * Every answer is ST_DWithin(a, b, r, use_spheroid) in the caller's argument
 * order: the cheap tests are symmetric bounds with a slack far above the
 * asymmetry of PostGIS's great-circle angle, and the exact test that decides
 * the rest is st_dwithin(a, b), never (b, a).
 */
#pragma once

#include "pg_free.h"
#include "geodesy.h"
#include "sphere_bounds.h"

namespace geoidx
{

/* An argument's coordinates as the value holds them (before the geography cast). */
struct RawPoint
{
	double x;
	double y;
};

/*
 * What the memo remembers between calls. All zero is the empty memo, so it
 * can live in zeroed memory (PostgreSQL's fn_extra); it owns nothing.
 */
struct DwithinMemo
{
	bool valid;
	RawPoint centre; /* raw coordinates the test was built from */
	double radius;
	bool use_spheroid;
	double center_lat_deg; /* the test's centre latitude, in degrees */
	RadiusTest test;
	bool have_last;
	RawPoint last_a, last_b;
};

enum class DwithinCentre
{
	a = 1,
	b = 2,
};

/*
 * Return which argument the memo's test is centred on for this call,
 * rebuilding the test when neither argument is its centre (or the radius or
 * model changed): around the argument that did not change since the last
 * call, b when both or neither did.
 */
DwithinCentre dwithin_memo_centre(DwithinMemo *m, RawPoint a, GeoPoint ga, RawPoint b, GeoPoint gb,
								  double radius, bool use_spheroid);

/*
 * Judge two points that went through the geography cast with the memo's cheap
 * tests alone: inside when their distance is surely below radius (ST_DWithin
 * holds, and st_distance < radius), outside when it is surely above (neither
 * holds, and st_distance > radius), else maybe: the caller decides exactly.
 * radius: >= 0 and finite, checked by the caller.
 */
Verdict dwithin_memo_classify(DwithinMemo *m, RawPoint a, LonLat lla, RawPoint b, LonLat llb,
							  double radius, bool use_spheroid);

/*
 * Return ST_DWithin(a, b, radius, use_spheroid) for two points that went
 * through the geography cast (raw: their coordinates before it), with the
 * memo's cheap tests first. radius: >= 0, checked by the caller.
 */
bool dwithin_memo_test(DwithinMemo *m, RawPoint a, LonLat lla, RawPoint b, LonLat llb,
					   double radius, bool use_spheroid);

} // namespace geoidx
