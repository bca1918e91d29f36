/*
 * Whether a polygon's interior grid (interior_grid.h), made for PostGIS
 * geography's ST_Covers (geodesic edges), also decides PostGIS's planar
 * predicates of a point: ST_Contains, ST_Covers and ST_Intersects of the
 * geometry, whose edges are straight lines in longitude/latitude degrees. The
 * two polygons share their vertices but not their edges, so a cell the grid
 * decides may hold points that the planar polygon puts on the other side.
 *
 * Every point of a decided cell lies more than kInteriorMargin from every
 * geodesic edge. So where each straight edge (its image on the sphere) strays
 * from its arc by less than kPlanarDeviation < kInteriorMargin, no planar edge
 * enters a decided cell either, and PostGIS's planar answer is constant over
 * any connected set of decided cells: face-adjacent cells on the grid's sheet
 * are one, and the longitude/latitude map is continuous there when the box
 * keeps off the poles and the antimeridian. One point per such piece gets the
 * planar answer (winding number and crossing parity, which must agree:
 * PostGIS's point_in_ring counts the winding number), and it must be every
 * cell's answer in the grid. All or nothing: a shape with one edge that
 * strays too far (about 2 km long at NYC's latitude), or one cell of another
 * answer, is not planar, and the scan then asks PostGIS about every point in
 * its box.
 *
 * Also not planar: a shape whose coordinates the geography cast moved (its
 * planar and geodesic vertices differ), one of SRID other than 4326 (a point
 * of SRID 4326 is an error for PostGIS there), a ring that is not closed.
 */
#pragma once

#include <cstddef>

#include "covers_shape.h"
#include "degree_box.h"
#include "interior_grid.h"
#include "pg_free.h"

namespace geoidx
{

constexpr double kPlanarSlack = 1e-9;                      /* degrees, ~0.1 mm */
constexpr double kPlanarDeviation = 0.5 * kInteriorMargin; /* radians, ~3 cm */

/* Whether PostGIS's planar predicates of a point decide every decided cell of g as g does. */
bool planar_grid_agrees(const CoverShape &s, const InteriorGrid &g, const GridFrame &f);

/*
 * A rectangle holding every unit vector of box b (on the sphere), or false
 * when b comes near the axis of the poles or crosses the antimeridian (no
 * rectangle of the plane holds it).
 */
bool degree_rect_of(const Box3 &b, DegreeBox *out);

} // namespace geoidx
