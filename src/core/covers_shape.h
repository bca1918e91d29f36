/*
 * A polygonal shape (Polygon or MultiPolygon) prepared for ST_Covers of a
 * point, straight from its GSERIALIZED bytes: each ring's unit vectors (as
 * PostGIS's ll2cart makes them from the cast's coordinates), each ring's chunk
 * boxes, and each polygon's box and outside caps (sphere_covers.h). Built once
 * and asked many times: the glue keeps it in a per-backend cache
 * (src/pg/covers_cache.cc), so "which zone holds this point" does not re-read
 * and re-prepare a zone on every row and every query as PostGIS does.
 *
 * Memory is the caller's: count_cover_shape() says how much, build_cover_shape()
 * fills it in two passes over the value, no allocation, no destructor.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "pg_free.h"
#include "serialized_shape.h"
#include "sphere_covers.h"

namespace geoidx
{

struct CoverPolygon
{
	uint32_t first_ring; /* index into CoverShape::rings */
	uint32_t nrings;
	Box3 box;
	unsigned caps;
};

struct CoverShape
{
	uint32_t npolygons;
	CoverPolygon *polygons;
	RingVectors *rings;
	Vec3 *points;
	GeoPoint *geo; /* each point in PostGIS's radians (geographic_point_init), as points */
	Box3 *chunks;
	bool coerced; /* the cast moved a coordinate into range (and says so in a NOTICE) */
	Box3 bounds;  /* ShapeBounds::box() of the value, bit for bit: an index entry's box */
	int32_t srid; /* as the value says it (0 or 4326: nothing else is prepared) */
};

struct CoverCounts
{
	uint32_t polygons;
	uint32_t rings;
	uint64_t points;
	uint64_t chunks;
	bool polygonal; /* a Polygon or MultiPolygon: nothing else has a prepared form */
};

/* Count what a value needs (h: its header, read by read_serialized_header); false if malformed. */
bool count_cover_shape(const uint8_t *data, const SerializedHeader &h, CoverCounts *out,
					   WalkError *err);

/* The bytes build_cover_shape needs for those counts, in one block aligned for doubles. */
size_t cover_shape_bytes(const CoverCounts &c);

/* Build the prepared shape in mem (cover_shape_bytes(counts) bytes); false if malformed. */
bool build_cover_shape(const uint8_t *data, const SerializedHeader &h, const CoverCounts &c,
					   void *mem, CoverShape *out, WalkError *err);

/* PostGIS's ll2cart of a coordinate pair, after the geography cast's normalisation. */
Vec3 covers_vector(double x, double y);

/* ST_Covers(shape, point): inside if some polygon covers it, outside if none can. */
Cover cover_shape_covers(const CoverShape &s, const Vec3 &p);

/*
 * Bounds of the smallest central angle (radians) from p to the shape's
 * boundary: every edge of every ring, as a great-circle arc. For a point the
 * shape does not cover, PostGIS's distance is the spheroid (or sphere)
 * distance from p to a point of that boundary, at least the one nearest on
 * the sphere: metres_lower_bound(*lo) and metres_upper_bound(*hi) bound it.
 * The bounds hold the rounding of each edge's circle (the error of its normal
 * grows as the edge shortens; an edge under 1e-7 rad is bounded by its ends).
 */
void cover_shape_boundary_angles(const CoverShape &s, const Vec3 &p, double *lo, double *hi);

/* Whether every edge lies at least angle (radians) from p, rounding included: lo >= angle above. */
bool cover_shape_boundary_beyond(const CoverShape &s, const Vec3 &p, double angle);

/*
 * Whether the arc a-b lies farther from p than the chord sqrt(far2), judged
 * by the box of its ends padded by its sagitta, with no trigonometry (false
 * where that box does not tell; an arc longer than a quarter circle never).
 */
bool arc_beyond_chord2(const Vec3 &a, const Vec3 &b, const Vec3 &p, double far2);

/* Whether the arc a-b lies at least angle (radians) from p, rounding included; false if unsure. */
bool arc_beyond_angle(const Vec3 &a, const Vec3 &b, const Vec3 &p, double angle);

/* The central angle from p to the great-circle arc a-b (shorter than half a circle), rounded. */
double arc_point_angle(const Vec3 &a, const Vec3 &b, const Vec3 &p);

} // namespace geoidx
