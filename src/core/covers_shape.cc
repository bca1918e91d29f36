#include "covers_shape.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "arc_box.h"
#include "geodesy.h"
#include "shape_bounds.h"

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

/*
 * Fills a CoverShape in one walk, and on the way the value's ShapeBounds box
 * (shape_bounds.h) bit for bit, so that an index entry takes its box from the
 * walk that prepares its grid instead of a second one: ShapeBounds's unit
 * vectors are these (covers_vector and unit_vector(geographic_point) are one
 * expression of the same radians) wherever PostGIS's normalisation of the
 * radians leaves them alone, and are computed apart where it does not.
 */
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
		bounds_polygon_ = box_empty();
	}
	void
	end_polygon()
	{
		CoverPolygon &p = s_->polygons[s_->npolygons++];
		p.caps = cover_outside_caps(edges_, &p.box);
		/* as ShapeBounds::end_polygon */
		if (!box_is_empty(bounds_polygon_))
		{
			box_add_enclosed_poles(&bounds_polygon_);
			box_extend(&geodesic_, bounds_polygon_);
		}
	}
	void
	chain(ChainKind kind, const uint8_t *coords, uint32_t npoints, int ndims)
	{
		/* points and lines have no place in a prepared shape (count_cover_shape left them out) */
		if (kind == ChainKind::point || kind == ChainKind::line)
			return;
		Vec3 *v = s_->points + npoints_;
		GeoPoint *g = s_->geo + npoints_;
		Vec3 prev_bounds{0.0, 0.0, 0.0};
		bool prev_same = true;
		for (uint32_t i = 0; i < npoints; i++)
		{
			double x, y;
			serialized_xy(coords, ndims, i, &x, &y);
			LonLat ll{0.0, 0.0};
			if (normalize_like_geography(x, y, &ll) != CoordCheck::in_range)
				s_->coerced = true;
			const double lon = M_PI * ll.lon / 180.0, lat = M_PI * ll.lat / 180.0;
			v[i] =
				Vec3{std::cos(lat) * std::cos(lon), std::cos(lat) * std::sin(lon), std::sin(lat)};
			g[i] = geographic_point(ll);
			degrees_.xmin = std::min(degrees_.xmin, x);
			degrees_.xmax = std::max(degrees_.xmax, x);
			degrees_.ymin = std::min(degrees_.ymin, y);
			degrees_.ymax = std::max(degrees_.ymax, y);
			const bool same = g[i].lat == lat && g[i].lon == lon;
			const Vec3 bv = same ? v[i] : unit_vector(g[i]);
			if (i == 0)
				box_extend(&bounds_polygon_, bv);
			else
			{
				const Box3 e = arc_box(v[i - 1], v[i]);
				box_extend(&edges_, e);
				box_extend(&bounds_polygon_, same && prev_same ? e : arc_box(prev_bounds, bv));
			}
			prev_bounds = bv;
			prev_same = same;
		}
		Box3 *chunks = s_->chunks + nchunks_;
		ring_chunk_boxes(v, npoints, chunks);
		s_->rings[nrings_++] = RingVectors{v, npoints, chunks};
		s_->polygons[s_->npolygons].nrings++;
		npoints_ += npoints;
		nchunks_ += ring_chunk_count(npoints);
	}

	/* ShapeBounds::box() of the value (empty for one with no points). */
	Box3
	bounds() const
	{
		Box3 b = geodesic_;
		if (npoints_ > 0)
			box_extend(&b, degree_box_image(degrees_));
		return b;
	}

private:
	CoverShape *s_;
	Box3 edges_ = box_empty();
	Box3 bounds_polygon_ = box_empty();
	Box3 geodesic_ = box_empty();
	DegreeBox degrees_{
		std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
		-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
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
	/* the expression of Builder::chain, which inlines it */
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
		   sizeof(Vec3) * c.points + sizeof(GeoPoint) * c.points + sizeof(Box3) * c.chunks;
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
	out->geo = reinterpret_cast<GeoPoint *>(m);
	m += sizeof(GeoPoint) * c.points;
	out->coerced = false;
	out->srid = h.srid;
	out->chunks = reinterpret_cast<Box3 *>(m);
	Builder b(out);
	const bool ok = walk_serialized(data, h, &b, err);
	out->bounds = b.bounds();
	return ok;
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

namespace
{

double
vec_angle(const Vec3 &u, const Vec3 &v)
{
	const Vec3 c = cross(u, v);
	return std::atan2(std::sqrt(dot(c, c)), dot(u, v));
}

} // namespace

double
arc_point_angle(const Vec3 &a, const Vec3 &b, const Vec3 &p)
{
	const Vec3 n = cross(a, b);
	const double nn = std::sqrt(dot(n, n));
	const double ends = std::min(vec_angle(p, a), vec_angle(p, b));
	if (nn < 1e-300)
		return ends;
	/* the circle's point nearest p lies on the arc: p's side of a and of b */
	if (dot(cross(a, p), n) >= 0.0 && dot(cross(p, b), n) >= 0.0)
	{
		const double s = std::fabs(dot(p, n)) / nn;
		return std::min(ends, std::asin(std::min(1.0, s)));
	}
	return ends;
}

namespace
{

/* The lower and upper bounds of the angle from p to edge a-b, its rounding included. */
void
edge_angles(const Vec3 &a, const Vec3 &b, const Vec3 &p, double *e_lo, double *e_hi)
{
	const double len = vec_angle(a, b);
	const double ends = std::min(vec_angle(p, a), vec_angle(p, b));
	if (len < 1e-7)
	{
		*e_lo = std::max(0.0, ends - len);
		*e_hi = ends;
		return;
	}
	const double g = arc_point_angle(a, b, p);
	const double err = 1e-15 + 4e-16 / len;
	*e_lo = std::max(0.0, g - err);
	*e_hi = std::min(ends, g + err);
}

/*
 * Lower *lo and *hi to the bounds of every edge nearer p than *lo can be (a
 * chunk whose box lies farther is skipped); stop once *lo < stop_below.
 */
void
boundary_walk(const CoverShape &s, const Vec3 &p, double *lo_io, double *hi_io, double stop_below)
{
	double lo = *lo_io, hi = *hi_io;
	for (uint32_t i = 0; i < s.npolygons && lo >= stop_below; i++)
	{
		const CoverPolygon &poly = s.polygons[i];
		for (uint32_t r = 0; r < poly.nrings && lo >= stop_below; r++)
		{
			const RingVectors &ring = s.rings[poly.first_ring + r];
			if (ring.n == 1)
			{
				lo = std::min(lo, vec_angle(p, ring.v[0]));
				hi = std::min(hi, vec_angle(p, ring.v[0]));
			}
			const uint32_t nchunks = ring_chunk_count(ring.n);
			for (uint32_t c = 0; c < nchunks && lo >= stop_below; c++)
			{
				/* a chunk's box holds its edges: nothing in it is nearer than the box */
				if (ring.chunks != nullptr && chord2_to_angle(min_chord2(ring.chunks[c], p)) >= lo)
					continue;
				const uint32_t end = std::min(ring.n - 1, (c + 1) * kRingChunk);
				for (uint32_t j = c * kRingChunk; j < end; j++)
				{
					double e_lo, e_hi;
					edge_angles(ring.v[j], ring.v[j + 1], p, &e_lo, &e_hi);
					lo = std::min(lo, e_lo);
					hi = std::min(hi, e_hi);
				}
			}
		}
	}
	*lo_io = lo;
	*hi_io = hi;
}

} // namespace

bool
arc_beyond_chord2(const Vec3 &a, const Vec3 &b, const Vec3 &p, double far2)
{
	if (chord2(a, b) > 2.0)
		return false;
	return min_chord2(arc_sagitta_box(a, b), p) > far2;
}

bool
cover_shape_boundary_beyond(const CoverShape &s, const Vec3 &p, double angle)
{
	if (angle >= M_PI)
		return false;
	/*
	 * Chords instead of angles where a box decides: an arc lies within the
	 * box of its ends padded by its sagitta 1 - cos(theta / 2) (for chords up
	 * to sqrt(2); longer edges take the exact test), and a chord is a
	 * monotone function of the angle, so an edge whose padded box lies
	 * farther than the angle's chord is skipped without a trigonometric call.
	 */
	const double half = std::sin(angle / 2.0);
	const double far2 = 4.0 * half * half * (1.0 + 1e-12) + 1e-30;
	for (uint32_t i = 0; i < s.npolygons; i++)
	{
		const CoverPolygon &poly = s.polygons[i];
		for (uint32_t r = 0; r < poly.nrings; r++)
		{
			const RingVectors &ring = s.rings[poly.first_ring + r];
			if (ring.n == 1 && vec_angle(p, ring.v[0]) < angle)
				return false;
			const uint32_t nchunks = ring_chunk_count(ring.n);
			for (uint32_t c = 0; c < nchunks; c++)
			{
				if (ring.chunks != nullptr && min_chord2(ring.chunks[c], p) > far2)
					continue;
				const uint32_t end = std::min(ring.n - 1, (c + 1) * kRingChunk);
				for (uint32_t j = c * kRingChunk; j < end; j++)
				{
					const Vec3 &a = ring.v[j], &b = ring.v[j + 1];
					if (arc_beyond_chord2(a, b, p, far2))
						continue;
					double e_lo, e_hi;
					edge_angles(a, b, p, &e_lo, &e_hi);
					if (e_lo < angle)
						return false;
				}
			}
		}
	}
	return true;
}

bool
arc_beyond_angle(const Vec3 &a, const Vec3 &b, const Vec3 &p, double angle)
{
	if (!(angle < M_PI))
		return false;
	const double half = std::sin(angle / 2.0);
	if (arc_beyond_chord2(a, b, p, 4.0 * half * half * (1.0 + 1e-12) + 1e-30))
		return true;
	double e_lo, e_hi;
	edge_angles(a, b, p, &e_lo, &e_hi);
	return e_lo >= angle;
}

void
cover_shape_boundary_angles(const CoverShape &s, const Vec3 &p, double *lo_out, double *hi_out)
{
	double lo = M_PI, hi = M_PI;
	boundary_walk(s, p, &lo, &hi, -1.0);
	*lo_out = lo;
	*hi_out = hi;
}

} // namespace geoidx
