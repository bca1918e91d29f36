/*
 * Longitude/latitude boxes (degrees) around a search circle: what a plain
 * GiST or SP-GiST index on a geometry column is given for geoidx_dwithin, and
 * what the planner feeds to PostGIS's && estimator.
 *
 * The box provably holds every point within the radius of the centre (ST_DWithin
 * on geography, spheroid or sphere), for points whose stored coordinates are
 * already in [-180, 180] x [-90, 90]. A stored value that the geography cast
 * would wrap (lon 190, lat 95) is measured at its wrapped position, which is
 * generally not inside the box; the box is only ever an index pre-filter, so such
 * rows are simply not found through a GiST index (they are through geoidx's own).
 *
 * Construction: every point within the radius has a central angle from the
 * centre of at most theta on the sphere of PostGIS's (phi, lambda), the same
 * bound sphere_bounds.cc uses (radius / (R * low_scale), rounded outwards; taken
 * here from RadiusTest::reject_c2 so that it can never drift from it), and a
 * latitude within RadiusTest::reject_dlat_deg of the centre's. The latitude
 * range is [lat - dlat, lat + dlat] clamped to [-90, 90]; the cap's longitude
 * half-width is asin(sin theta / cos lat). If the cap reaches a pole, or
 * sin theta >= cos lat, or the longitude range reaches +-180, the longitude range
 * is all of [-180, 180]. Every side then moves out by kDegreeBoxMargin.
 */
#pragma once

#include "pg_free.h"
#include "geodesy.h"

namespace geoidx
{

struct DegreeBox
{
	double xmin;
	double ymin;
	double xmax;
	double ymax;
};

/* Outward margin on every side, degrees: far above the rounding of the conversions. */
constexpr double kDegreeBoxMargin = 1e-9;

/*
 * The largest central angle (radians) a point within the radius can have from
 * any centre; >= pi means that the radius reaches everywhere. radius >= 0 or +Inf.
 */
double far_central_angle(double radius, bool use_spheroid);

/* The one box that holds the circle (centre normalised as the geography cast leaves it). */
DegreeBox search_box(LonLat center, double radius, bool use_spheroid);

/*
 * The same region as at most two boxes, for estimates: where search_box widens
 * to all longitudes only because the circle crosses the antimeridian, this gives
 * the two sides separately. Returns the number of boxes written to out.
 */
int search_box_pieces(LonLat center, double radius, bool use_spheroid, DegreeBox out[2]);

/* Area of a degree box on the unit sphere, steradians. */
double box_area_sr(const DegreeBox &b);

/*
 * Nominal area of the circle on the unit sphere, steradians (radius / R as the
 * cap's angle, the whole sphere from half the circumference on).
 */
double circle_area_sr(double radius);

/*
 * The fraction of the boxes' area that the circle covers, in [0, 1]: what to
 * multiply a box-overlap selectivity by. About pi/4 for small circles.
 */
double circle_fraction(double radius, const DegreeBox *boxes, int nboxes);

} // namespace geoidx
