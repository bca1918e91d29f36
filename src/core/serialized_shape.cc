#include "serialized_shape.h"

#include <cstring>

namespace geoidx
{

namespace
{

constexpr uint8_t kFlagZ = 0x01;
constexpr uint8_t kFlagM = 0x02;
constexpr uint8_t kFlagBbox = 0x04;
constexpr uint8_t kFlagGeodetic = 0x08;
constexpr uint8_t kFlagExtended = 0x10;
constexpr uint8_t kFlagVersion = 0x40;

} // namespace

const char *
geom_type_name(uint32_t type)
{
	static const char *const names[] = {"Unknown",        "Point",
										"LineString",     "Polygon",
										"MultiPoint",     "MultiLineString",
										"MultiPolygon",   "GeometryCollection",
										"CircularString", "CompoundCurve",
										"CurvePolygon",   "MultiCurve",
										"MultiSurface",   "PolyhedralSurface",
										"Triangle",       "Tin"};
	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown type";
}

bool
read_serialized_header(const uint8_t *data, size_t len, SerializedHeader *out, WalkError *err)
{
	if (len < 4)
	{
		*err = WalkError{WalkStatus::truncated, 0, 0};
		return false;
	}
	const uint8_t flags = data[3];
	if (!(flags & kFlagVersion))
	{
		*err = WalkError{WalkStatus::not_version_2, 0, 3};
		return false;
	}
	SerializedHeader h{};
	h.srid = serialized_srid(data);
	h.has_z = (flags & kFlagZ) != 0;
	h.has_m = (flags & kFlagM) != 0;
	h.geodetic = (flags & kFlagGeodetic) != 0;
	h.has_bbox = (flags & kFlagBbox) != 0;
	h.ndims = 2 + (h.has_z ? 1 : 0) + (h.has_m ? 1 : 0);
	size_t off = 4;
	if (flags & kFlagExtended)
		off += 8;
	if (h.has_bbox)
		off += (h.geodetic ? 6 : 2 * (size_t) h.ndims) * 4;
	if (len < off + 8)
	{
		*err = WalkError{WalkStatus::truncated, 0, off};
		return false;
	}
	std::memcpy(&h.type, data + off, 4);
	h.body = off;
	h.length = len;
	*out = h;
	return true;
}

void
serialized_xy(const uint8_t *coords, int ndims, uint32_t i, double *x, double *y)
{
	const uint8_t *p = coords + (size_t) i * (size_t) ndims * 8;
	std::memcpy(x, p, 8);
	std::memcpy(y, p + 8, 8);
}

} // namespace geoidx
