/*
 * The box of unit vectors an index entry keeps for a shape, so that one entry
 * serves both families of questions about it:
 *
 *   geodesic (the geography functions, geoidx_*): the box of its great-circle
 *     edges (arc_box.h) and of its points, and for each polygon the axis points
 *     PostGIS's own rule puts inside it. That rule (liblwgeom's
 *     gbox_check_poles, applied to each polygon's box of edges) extends the box
 *     to the pole of every axis that the edges' box straddles in both other
 *     coordinates; PostGIS then tests containment only for points inside that
 *     box, and its distances are 0 only for points it contains, so everything
 *     PostGIS can find within a distance of the shape lies within that distance
 *     of this box. The rule is applied to our box, which holds PostGIS's (ours
 *     is padded), and the rule only grows a larger box further.
 *   planar (ST_Contains and the other geometry functions, in degrees): the
 *     image on the sphere of the shape's longitude/latitude rectangle, raw
 *     coordinates as the geometry holds them.
 *
 * The entry's box is the union of the two.
 */
#pragma once

#include "arc_box.h"
#include "degree_box.h"
#include "geodesy.h"
#include "pg_free.h"
#include "serialized_shape.h"
#include "sphere_bounds.h"

namespace geoidx
{

/* The box of the unit vectors of every point of a longitude/latitude rectangle (degrees, any
 * range). */
Box3 degree_box_image(const DegreeBox &b);

/* PostGIS's pole rule on a polygon's box of edges (in place), in its order: z, y, x. */
void box_add_enclosed_poles(Box3 *b);
/* One axis's step of that rule: the pole of the axis if the box straddles it in both other
 * coordinates. */
void box_pole_step(Box3 *b, int axis);

/* A visitor of walk_serialized. */
class ShapeBounds
{
public:
	ShapeBounds();

	void begin_polygon();
	void end_polygon();
	void chain(ChainKind kind, const uint8_t *coords, uint32_t npoints, int ndims);

	/* No coordinates at all: an EMPTY shape (of any kind), covered by no box. */
	bool
	empty() const
	{
		return npoints_ == 0;
	}
	/* The worst coordinate check of the geography cast over every point. */
	CoordCheck
	coord_check() const
	{
		return check_;
	}
	Box3
	geodesic() const
	{
		return geodesic_;
	}
	/* The raw coordinates' rectangle; meaningful only if !empty(). */
	DegreeBox
	planar_degrees() const
	{
		return degrees_;
	}
	/* The entry's box: geodesic and planar together. */
	Box3 box() const;

private:
	Vec3 vector_of(double x, double y);

	Box3 geodesic_;
	Box3 polygon_; /* the current polygon's edges, until end_polygon */
	bool in_polygon_;
	DegreeBox degrees_;
	uint64_t npoints_;
	CoordCheck check_;
};

} // namespace geoidx
