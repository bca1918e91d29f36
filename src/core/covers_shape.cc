#include "covers_shape.h"

#include <cmath>

#include "arc_box.h"
#include "geodesy.h"

namespace geoidx
{

namespace
{

class Counter
{
public:
	explicit Counter(CoverCounts *c) : c_(c) {}
	void
	begin_polygon()
	{
		c_->polygons++;
	}
	void
	end_polygon()
	{
	}
	void
	chain(ChainKind kind, const uint8_t *, uint32_t npoints, int)
	{
		if (kind == ChainKind::point || kind == ChainKind::line)
		{
			c_->polygonal = false;
			return;
		}
		c_->rings++;
		c_->points += npoints;
		c_->chunks += ring_chunk_count(npoints);
	}

private:
	CoverCounts *c_;
};

class Builder
{
public:
	explicit Builder(CoverShape *s) : s_(s) {}
	void
	begin_polygon()
	{
		CoverPolygon &p = s_->polygons[s_->npolygons];
		p.first_ring = nrings_;
		p.nrings = 0;
		edges_ = box_empty();
	}
	void
	end_polygon()
	{
		CoverPolygon &p = s_->polygons[s_->npolygons++];
		p.caps = cover_outside_caps(edges_, &p.box);
	}
	void
	chain(ChainKind kind, const uint8_t *coords, uint32_t npoints, int ndims)
	{
		/* points and lines have no place in a prepared shape (count_cover_shape left them out) */
		if (kind == ChainKind::point || kind == ChainKind::line)
			return;
		Vec3 *v = s_->points + npoints_;
		for (uint32_t i = 0; i < npoints; i++)
		{
			double x, y;
			serialized_xy(coords, ndims, i, &x, &y);
			v[i] = covers_vector(x, y);
			if (i > 0)
				box_extend(&edges_, arc_box(v[i - 1], v[i]));
		}
		Box3 *chunks = s_->chunks + nchunks_;
		ring_chunk_boxes(v, npoints, chunks);
		s_->rings[nrings_++] = RingVectors{v, npoints, chunks};
		s_->polygons[s_->npolygons].nrings++;
		npoints_ += npoints;
		nchunks_ += ring_chunk_count(npoints);
	}

private:
	CoverShape *s_;
	Box3 edges_ = box_empty();
	uint32_t nrings_ = 0;
	uint64_t npoints_ = 0;
	uint64_t nchunks_ = 0;
};

size_t
align8(size_t n)
{
	return (n + 7) & ~size_t(7);
}

} // namespace

Vec3
covers_vector(double x, double y)
{
	LonLat ll{0.0, 0.0};
	normalize_like_geography(x, y, &ll);
	const double lon = M_PI * ll.lon / 180.0, lat = M_PI * ll.lat / 180.0;
	return Vec3{std::cos(lat) * std::cos(lon), std::cos(lat) * std::sin(lon), std::sin(lat)};
}

bool
count_cover_shape(const uint8_t *data, const SerializedHeader &h, CoverCounts *out, WalkError *err)
{
	*out = CoverCounts{0, 0, 0, 0, true};
	if (h.type != kPolygonType && h.type != kMultiPolygonType)
		out->polygonal = false;
	Counter c(out);
	return walk_serialized(data, h, &c, err);
}

size_t
cover_shape_bytes(const CoverCounts &c)
{
	return align8(sizeof(CoverPolygon) * c.polygons) + align8(sizeof(RingVectors) * c.rings) +
		   sizeof(Vec3) * c.points + sizeof(Box3) * c.chunks;
}

bool
build_cover_shape(const uint8_t *data, const SerializedHeader &h, const CoverCounts &c, void *mem,
				  CoverShape *out, WalkError *err)
{
	char *m = static_cast<char *>(mem);
	out->npolygons = 0;
	out->polygons = reinterpret_cast<CoverPolygon *>(m);
	m += align8(sizeof(CoverPolygon) * c.polygons);
	out->rings = reinterpret_cast<RingVectors *>(m);
	m += align8(sizeof(RingVectors) * c.rings);
	out->points = reinterpret_cast<Vec3 *>(m);
	m += sizeof(Vec3) * c.points;
	out->chunks = reinterpret_cast<Box3 *>(m);
	Builder b(out);
	return walk_serialized(data, h, &b, err);
}

Cover
cover_shape_covers(const CoverShape &s, const Vec3 &p)
{
	bool uncertain = false;
	for (uint32_t i = 0; i < s.npolygons; i++)
	{
		const CoverPolygon &poly = s.polygons[i];
		if (poly.nrings == 0)
			continue;
		const Cover c =
			polygon_covers(s.rings + poly.first_ring, poly.nrings, poly.box, poly.caps, p);
		if (c == Cover::inside)
			return Cover::inside;
		if (c == Cover::uncertain)
			uncertain = true;
	}
	return uncertain ? Cover::uncertain : Cover::outside;
}

} // namespace geoidx
