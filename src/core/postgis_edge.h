/*
 * PostGIS's angle from a point to a great-circle edge (liblwgeom's
 * edge_distance_to_point), repeated operation for operation: ST_Distance on
 * geography measures the spheroid distance from a point to the point of a
 * shape's boundary this returns, so the same doubles must come out of it for
 * geoidx to give the same metres. Written from the algorithm (a plane through
 * the edge from the robust cross product of its ends, the foot of the point on
 * it, PostGIS's cone test with its 2e-16 slack, else the nearer end), in the
 * same order of floating-point operations; the build keeps the compiler from
 * contracting them (-ffp-contract=off).
 */
#pragma once

#include "geodesy.h"
#include "pg_free.h"

namespace geoidx
{

/*
 * The central angle (radians) from p to the edge start-end and, in *closest,
 * the point of the edge it is measured to: as PostGIS computes them from the
 * radians geographic_point_init gives.
 */
double postgis_edge_point_angle(const GeoPoint &start, const GeoPoint &end, const GeoPoint &p,
								GeoPoint *closest);

} // namespace geoidx
