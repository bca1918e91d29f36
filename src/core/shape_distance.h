/*
 * ST_Distance(polygon::geography, point::geography) from a prepared polygon
 * (covers_shape.h), without PostGIS, with PostGIS's answer.
 *
 * PostGIS answers 0 for a point the polygon covers. For any other point it
 * finds, over every edge of every ring, the edge nearest on the sphere (by
 * liblwgeom's edge_distance_to_point, postgis_edge.h), and returns the
 * spheroid (or sphere) distance from the point to the point of that edge,
 * rounded to 10 nm. Its two code paths find that edge differently (a circle
 * tree once an argument repeats, a loop over rings taking the least spheroid
 * distance of each ring otherwise), so geoidx answers only where both paths
 * must agree, and leaves the rest to PostGIS:
 *
 *   - the point is inside (0) or outside (cover_shape_covers is certain);
 *   - no coordinate was moved into range by the cast (PostGIS's NOTICE);
 *   - every polygon's box spans less than 0.5 in each unit-vector axis, so
 *     the stab line of PostGIS's point-in-polygon test starts outside it;
 *   - the nearest edge's point is unique: no other point of the same ring
 *     within 1e-12 rad of its angle, and no other ring within 1 % of it
 *     (the sphere and the spheroid never disagree by more on which is nearer).
 *
 * Edges farther than the nearest's angle plus 1 % and 1e-9 rad (by chunk
 * boxes and sagitta boxes, covers_shape.h) are not computed: PostGIS's own
 * rounding of an edge's angle is far below that.
 */
#pragma once

#include "covers_shape.h"
#include "geodesy.h"
#include "pg_free.h"

namespace geoidx
{

/*
 * PostGIS's ST_Distance(geography) in metres of shape s and the point whose
 * geographic_point_init radians are gp and whose ll2cart vector is vp
 * (covers_vector); false where geoidx leaves the answer to PostGIS.
 *
 * knn: instead, geography's <-> of the two (geography_distance_knn, on the
 * sphere whatever use_spheroid says): its loop over rings is the path above
 * with no rounding, the sphere's radius times the nearest edge point's angle
 * (lwgeom_distance_spheroid's use_sphere case), 0 for a point inside.
 */
bool shape_point_distance(const CoverShape &s, const GeoPoint &gp, const Vec3 &vp,
						  bool use_spheroid, double *metres, bool knn = false);

} // namespace geoidx
