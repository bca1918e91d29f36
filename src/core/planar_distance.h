/*
 * PostGIS's planar distance in degrees, geometry's col <-> g (ST_Distance of
 * two geometries: straight lines in raw longitude/latitude), as a geoidx
 * k-NN search orders by it.
 *
 * A point entry holds the heap's coordinates: its distance to a point g is
 * PostGIS's own arithmetic (lw_dist2d_pt_pt), to a g that is not a point the
 * distance to g's box, a lower bound the executor rechecks.
 *
 * A box of the tree holds unit vectors, not raw coordinates, so its bound is
 * the distance from g's box to every raw coordinate that can put a vector in
 * it. The box gives a longitude and a latitude range (box_lonlat_range); the
 * raw coordinates behind a vector at (lon, lat) are
 *   (lon + 360 k, lat + 360 m)                every entry within the poles;
 *   (lon + 360 k, 180 - lat + 360 m)          a point beyond a pole, which the
 *                                             geography cast folds, longitude kept;
 *   (lon + 180 + 360 k, 180 - lat + 360 m)    a shape beyond a pole, whose box
 *                                             holds its raw rectangle's image.
 * The bound is the least distance to any of them, so it holds for every entry
 * below the box, however its coordinates were written.
 */
#pragma once

#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

/* The ORDER BY argument: its box (a point's is the point itself), raw degrees. */
struct PlanarTarget
{
	double xmin, xmax, ymin, ymax;
	bool point; /* xmin == xmax, ymin == ymax: distances are exact */
};

/* Longitude and latitude ranges (degrees) that hold every vector of a box; lon_max may pass 180. */
struct LonLatRange
{
	double lon_min, lon_max; /* lon_max - lon_min >= 360: every longitude */
	double lat_min, lat_max;
};

LonLatRange box_lonlat_range(const Box3 &b);

/* ST_Distance(point (x, y), g) for a point g, as PostGIS computes it; else the distance to g's box.
 */
double planar_point_distance(const PlanarTarget &t, double x, double y);

/* A lower bound of the planar distance from g to every entry below a box (see the header). */
double planar_box_bound(const PlanarTarget &t, const Box3 &b);

} // namespace geoidx
