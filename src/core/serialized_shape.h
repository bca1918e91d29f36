/*
 * Walking a PostGIS GSERIALIZED value (version 2, what PostGIS 3 writes; the
 * geometry and geography types share it) without liblwgeom, whose headers
 * Debian does not ship. The layout, from liblwgeom/gserialized.txt, after the
 * varlena header:
 *
 *   srid (3 bytes, big-endian 21-bit signed) | gflags (1 byte)
 *   [8 bytes of extended flags if G2FLAG_EXTENDED]
 *   [bbox: float4 min/max pairs per dimension, 3 pairs if geodetic]
 *   body
 *
 * and a body is, recursively:
 *   Point, LineString, CircularString, Triangle: type | npoints | coordinates
 *   Polygon: type | nrings | nrings point counts | 4 bytes if nrings is odd | rings
 *   Multi*, GeometryCollection, ...: type | ngeoms | ngeoms bodies
 * with uint32 words and float8 coordinates (ndims of them per point), all in
 * the machine's byte order.
 *
 * The walk checks every count against the bytes that remain, so a damaged
 * value is reported (where, and what was wrong), never read past its end.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <cstring>

#include "pg_free.h"

namespace geoidx
{

enum GeomType : uint32_t
{
	kPointType = 1,
	kLineType = 2,
	kPolygonType = 3,
	kMultiPointType = 4,
	kMultiLineType = 5,
	kMultiPolygonType = 6,
	kCollectionType = 7,
	kCircularStringType = 8,
	kCompoundCurveType = 9,
	kCurvePolygonType = 10,
	kMultiCurveType = 11,
	kMultiSurfaceType = 12,
	kPolyhedralSurfaceType = 13,
	kTriangleType = 14,
	kTinType = 15,
};

/* "Point", "MultiPolygon", ...; "unknown type" past the last. */
const char *geom_type_name(uint32_t type);

/* The SRID of a serialized value: its first 3 bytes, a big-endian 21-bit signed field. */
inline int32_t
serialized_srid(const uint8_t *data)
{
	const uint32_t raw = ((uint32_t) data[0] << 16) | ((uint32_t) data[1] << 8) | data[2];
	return (raw & 0x100000u) ? (int32_t) (raw | 0xFFE00000u) : (int32_t) raw;
}

struct SerializedHeader
{
	int32_t srid;
	uint32_t type; /* of the outermost geometry */
	int ndims;     /* 2 to 4 coordinates per point */
	bool has_z;
	bool has_m;
	bool geodetic; /* written by the geography type */
	bool has_bbox; /* a stored box precedes the body */
	size_t body;   /* offset of the outermost type word */
	size_t length; /* bytes after the varlena header */
};

enum class WalkStatus
{
	ok,
	truncated,        /* a count or a coordinate runs past the end */
	not_version_2,    /* a GSERIALIZED v1 value (PostGIS 2 on disk, never rewritten) */
	unsupported_type, /* a curve, a surface, a triangle or a TIN: not a geography kind */
	bad_member,       /* a Multi* holding a member of another kind */
	too_deep,         /* collections nested beyond kMaxDepth */
};

struct WalkError
{
	WalkStatus status;
	uint32_t type; /* the geometry type at fault */
	size_t offset; /* where in the value */
};

/* Collections nested deeper than this are refused (PostGIS builds nothing near it). */
constexpr int kMaxDepth = 256;

/* How a run of coordinates is used. */
enum class ChainKind
{
	point,      /* npoints 0 (EMPTY) or 1 */
	line,       /* a LineString */
	outer_ring, /* a polygon's first ring */
	inner_ring, /* a hole */
};

/*
 * What a walk reports, in the order of the value, to a visitor with these
 * members (a template parameter rather than virtual functions: the core has no
 * RTTI, and the calls inline):
 *
 *   void begin_polygon();
 *   void end_polygon();
 *   void chain(ChainKind kind, const uint8_t *coords, uint32_t npoints, int ndims);
 *
 * Coordinates arrive as raw bytes, ndims float8 per point, not necessarily
 * aligned: read them with serialized_xy().
 */

/* Read the header of a value of len bytes (after its varlena header). */
bool read_serialized_header(const uint8_t *data, size_t len, SerializedHeader *out, WalkError *err);

/*
 * Walk the value's body, reporting each point, line and ring to v. The kinds
 * that the geometry->geography cast refuses (curves, surfaces, triangles,
 * TINs) are refused with unsupported_type, at any depth of a collection.
 */
template <class Visitor>
bool walk_serialized(const uint8_t *data, const SerializedHeader &h, Visitor *v, WalkError *err);

/* The x (longitude) and y (latitude) of point i of a chain. */
void serialized_xy(const uint8_t *coords, int ndims, uint32_t i, double *x, double *y);

/* The walk itself, recursive over collections. */
template <class Visitor> class SerializedWalker
{
public:
	SerializedWalker(const uint8_t *data, size_t len, int ndims, Visitor *v, WalkError *err)
		: data_(data), len_(len), ndims_(ndims), v_(v), err_(err)
	{
	}

	/* Walk the geometry at *off; member_of is the Multi* it belongs to, or 0. */
	bool
	geometry(size_t *off, uint32_t member_of, int depth)
	{
		uint32_t type, count;
		const size_t at = *off;
		if (!word(off, &type) || !word(off, &count))
			return fail(WalkStatus::truncated, 0, at);
		if (!allowed_member(member_of, type))
			return fail(WalkStatus::bad_member, type, at);
		switch (type)
		{
			case kPointType:
				if (count > 1)
					return fail(WalkStatus::truncated, type, at);
				return coords(off, ChainKind::point, count, type, at);
			case kLineType:
				return coords(off, ChainKind::line, count, type, at);
			case kPolygonType:
				return polygon(off, count, at);
			case kMultiPointType:
			case kMultiLineType:
			case kMultiPolygonType:
			case kCollectionType:
				if (depth >= kMaxDepth)
					return fail(WalkStatus::too_deep, type, at);
				/* every member takes at least its two words: a count beyond that is damage */
				if (count > (len_ - *off) / 8)
					return fail(WalkStatus::truncated, type, at);
				for (uint32_t i = 0; i < count; i++)
					if (!geometry(off, type == kCollectionType ? 0 : type, depth + 1))
						return false;
				return true;
			default:
				return fail(WalkStatus::unsupported_type, type, at);
		}
	}

private:
	bool
	fail(WalkStatus status, uint32_t type, size_t at)
	{
		*err_ = WalkError{status, type, at};
		return false;
	}

	bool
	word(size_t *off, uint32_t *out)
	{
		if (len_ - *off < 4)
			return false;
		std::memcpy(out, data_ + *off, 4);
		*off += 4;
		return true;
	}

	static bool
	allowed_member(uint32_t multi, uint32_t type)
	{
		switch (multi)
		{
			case kMultiPointType:
				return type == kPointType;
			case kMultiLineType:
				return type == kLineType;
			case kMultiPolygonType:
				return type == kPolygonType;
			default:
				return true;
		}
	}

	bool
	coords(size_t *off, ChainKind kind, uint32_t npoints, uint32_t type, size_t at)
	{
		const uint64_t bytes = (uint64_t) npoints * (uint64_t) ndims_ * 8;
		if (bytes > len_ - *off)
			return fail(WalkStatus::truncated, type, at);
		v_->chain(kind, data_ + *off, npoints, ndims_);
		*off += (size_t) bytes;
		return true;
	}

	bool
	polygon(size_t *off, uint32_t nrings, size_t at)
	{
		/* the ring counts, padded to 8 bytes */
		const uint64_t counts_bytes = ((uint64_t) nrings * 4 + 7) / 8 * 8;
		if (counts_bytes > len_ - *off)
			return fail(WalkStatus::truncated, kPolygonType, at);
		const size_t counts = *off;
		*off += (size_t) counts_bytes;
		v_->begin_polygon();
		for (uint32_t r = 0; r < nrings; r++)
		{
			uint32_t npoints;
			std::memcpy(&npoints, data_ + counts + 4 * (size_t) r, 4);
			if (!coords(off, r == 0 ? ChainKind::outer_ring : ChainKind::inner_ring, npoints,
						kPolygonType, at))
				return false;
		}
		v_->end_polygon();
		return true;
	}

	const uint8_t *data_;
	size_t len_;
	int ndims_;
	Visitor *v_;
	WalkError *err_;
};

template <class Visitor>
bool
walk_serialized(const uint8_t *data, const SerializedHeader &h, Visitor *v, WalkError *err)
{
	SerializedWalker<Visitor> w(data, h.length, h.ndims, v, err);
	size_t off = h.body;
	return w.geometry(&off, 0, 0);
}

} // namespace geoidx
