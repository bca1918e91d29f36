/*
 * The NYC neighbourhoods (data/gofence-profiling/nyc) as polygon_covers takes
 * them: a reader of just enough GeoJSON, PostGIS's ll2cart, and a polygon
 * prepared with its box, caps and (optionally) ring chunk boxes. Shared by the
 * unit test against PostGIS and the micro-benchmark.
 */
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <tuple>
#include <string>
#include <vector>

#include "arc_box.h"
#include "covers_shape.h"
#include "geodesy.h"
#include "interior_grid.h"
#include "packed_box.h"
#include "serialized_shape.h"
#include "sphere_covers.h"

namespace nyc_shapes
{

using namespace geoidx;

using Ring = std::vector<LonLat>;
using Polygon = std::vector<Ring>;
using Shape = std::vector<Polygon>; /* the members of a MultiPolygon, or one Polygon */

/* A ring of n vertices along latitude lat, west to east, or east to west. */
inline Ring
parallel(double lat, double lon0, double lon1, int n)
{
	Ring r;
	for (int i = 0; i <= n; i++)
		r.push_back(LonLat{lon0 + (lon1 - lon0) * i / n, lat});
	return r;
}

inline void
put32(std::vector<uint8_t> *b, uint32_t v)
{
	const size_t at = b->size();
	b->resize(at + 4);
	std::memcpy(b->data() + at, &v, 4);
}

inline void
put_double(std::vector<uint8_t> *b, double v)
{
	const size_t at = b->size();
	b->resize(at + 8);
	std::memcpy(b->data() + at, &v, 8);
}

/* GSERIALIZED v2 (after the varlena header) of a MultiPolygon in SRID 4326, moved by dx, dy. */
inline std::vector<uint8_t>
serialize(const Shape &shape, double dx, double dy)
{
	std::vector<uint8_t> b = {0x00, 0x10, 0xE6, 0x40}; /* SRID 4326, version 2, 2-D, no box */
	put32(&b, kMultiPolygonType);
	put32(&b, static_cast<uint32_t>(shape.size()));
	for (const Polygon &poly : shape)
	{
		put32(&b, kPolygonType);
		put32(&b, static_cast<uint32_t>(poly.size()));
		for (const Ring &r : poly)
			put32(&b, static_cast<uint32_t>(r.size()));
		if (poly.size() % 2 == 1)
			put32(&b, 0);
		for (const Ring &r : poly)
			for (const LonLat &ll : r)
			{
				put_double(&b, ll.lon + dx);
				put_double(&b, ll.lat + dy);
			}
	}
	return b;
}

/* A shape prepared by covers_shape.h from GSERIALIZED bytes, in memory of its own. */
struct PreparedBytes
{
	std::vector<uint64_t> mem;
	CoverShape shape;
	CoverCounts counts;
};

inline bool
prepare_bytes(const std::vector<uint8_t> &bytes, PreparedBytes *out)
{
	SerializedHeader h;
	WalkError err;
	if (!read_serialized_header(bytes.data(), bytes.size(), &h, &err) ||
		!count_cover_shape(bytes.data(), h, &out->counts, &err))
		return false;
	out->mem.assign(cover_shape_bytes(out->counts) / 8 + 1, 0);
	return build_cover_shape(bytes.data(), h, out->counts, out->mem.data(), &out->shape, &err);
}

/* A zone prepared with its interior grid, over its box as an index entry holds it. */
struct GridBuilt : PreparedBytes
{
	Box3 box; /* packed outwards, unpacked */
	InteriorGrid grid;
	GridFrame frame;
};

inline bool
build_grid(const std::vector<uint8_t> &bytes, GridBuilt *out)
{
	if (!prepare_bytes(bytes, out))
		return false;
	out->box = unpack_box(pack_box(out->shape.bounds));
	out->grid = interior_grid(out->shape, out->box);
	out->frame = grid_frame(out->box);
	return true;
}

/* Just enough GeoJSON: the coordinates of each feature's Polygon or MultiPolygon, in order. */
class GeoJson
{
public:
	explicit GeoJson(const std::string &text) : s_(text) {}

	std::vector<Shape>
	shapes()
	{
		std::vector<Shape> out;
		size_t at = 0;
		while ((at = s_.find("\"geometry\"", at)) != std::string::npos)
		{
			const size_t type = s_.find("\"type\"", at);
			const bool multi =
				s_.compare(s_.find('"', s_.find(':', type) + 1), 14, "\"MultiPolygon\"") == 0;
			pos_ = s_.find("\"coordinates\"", at);
			pos_ = s_.find('[', pos_);
			Shape shape;
			if (multi)
				shape = list<Polygon>([this] { return list<Ring>([this] { return ring(); }); });
			else
				shape.push_back(list<Ring>([this] { return ring(); }));
			out.push_back(shape);
			at = pos_;
		}
		return out;
	}

private:
	template <class T, class F>
	std::vector<T>
	list(F item)
	{
		std::vector<T> v;
		expect('[');
		for (;;)
		{
			v.push_back(item());
			skip();
			if (s_[pos_] == ',')
				pos_++;
			else
				break;
		}
		expect(']');
		return v;
	}
	Ring
	ring()
	{
		return list<LonLat>(
			[this]
			{
				expect('[');
				LonLat p;
				p.lon = number();
				expect(',');
				p.lat = number();
				expect(']');
				return p;
			});
	}
	double
	number()
	{
		skip();
		char *end;
		const double d = std::strtod(s_.c_str() + pos_, &end);
		pos_ = end - s_.c_str();
		return d;
	}
	void
	expect(char c)
	{
		skip();
		if (s_[pos_] != c)
			std::abort(); /* not the GeoJSON this reader knows: the fixtures changed */
		pos_++;
	}
	void
	skip()
	{
		while (s_[pos_] == ' ' || s_[pos_] == '\n')
			pos_++;
	}

	const std::string &s_;
	size_t pos_ = 0;
};

/* The 195 NYC neighbourhoods of the repository's data/ (empty if the file is missing). */
inline std::vector<Shape>
load_ntas(const char *unit_data)
{
	std::ifstream geo(std::string(unit_data) +
					  "/../../../data/gofence-profiling/nyc/nyc_ntas.geojson");
	if (!geo)
		return {};
	std::stringstream text;
	text << geo.rdbuf();
	return GeoJson(text.str()).shapes();
}

/*
 * PostGIS's answers of test/unit/data/make_nyc_covers.py: the probes, the
 * places the neighbourhoods were moved to, and the (place, neighbourhood,
 * probe) triples PostGIS says are covered.
 */
struct NycCovers
{
	std::vector<LonLat> probes;
	std::vector<LonLat> places;
	std::set<std::tuple<int, int, int>> covered;
};

inline bool
load_nyc_covers(const char *path, NycCovers *out)
{
	std::ifstream in(path);
	if (!in)
		return false;
	std::string line;
	while (std::getline(in, line))
	{
		std::istringstream f(line);
		std::string tag;
		f >> tag;
		if (tag == "q" || tag == "t")
		{
			LonLat p;
			f >> p.lon >> p.lat;
			(tag == "q" ? out->probes : out->places).push_back(p);
		}
		else if (tag == "c")
		{
			int t, n, q;
			f >> t >> n >> q;
			out->covered.insert({t, n, q});
		}
	}
	return true;
}

/* Random unit vectors in a box (uniform in the box, then onto the sphere; kept if still in it). */
inline Vec3
random_in(std::mt19937_64 *rng, const Box3 &box)
{
	std::uniform_real_distribution<double> u(0.0, 1.0);
	for (;;)
	{
		Vec3 p{box.lo[0] + u(*rng) * (box.hi[0] - box.lo[0]),
			   box.lo[1] + u(*rng) * (box.hi[1] - box.lo[1]),
			   box.lo[2] + u(*rng) * (box.hi[2] - box.lo[2])};
		const double n = std::sqrt(dot(p, p));
		if (n < 0.1)
			continue;
		p = Vec3{p.x / n, p.y / n, p.z / n};
		if (box_contains(box, p))
			return p;
	}
}

/* What PostGIS's ll2cart makes of a coordinate the geography cast has normalised. */
inline Vec3
cart(double lon, double lat)
{
	LonLat ll{0, 0};
	normalize_like_geography(lon, lat, &ll);
	const double x = M_PI * ll.lon / 180.0, y = M_PI * ll.lat / 180.0;
	return Vec3{std::cos(y) * std::cos(x), std::cos(y) * std::sin(x), std::sin(y)};
}

/* A polygon ready to be asked: its rings' vectors, its box and its caps. */
struct Prepared
{
	std::vector<std::vector<Vec3>> rings;
	std::vector<std::vector<Box3>> chunks;
	std::vector<RingVectors> views;
	Box3 box;
	unsigned caps;
	double xmin, xmax, ymin, ymax; /* its degree box, for the probes worth asking */
};

inline Prepared
prepare(const Polygon &poly, double dx, double dy, bool chunked)
{
	Prepared p;
	Box3 edges = box_empty();
	p.xmin = p.ymin = 1e300;
	p.xmax = p.ymax = -1e300;
	for (const Ring &r : poly)
	{
		std::vector<Vec3> v;
		for (const LonLat &ll : r)
		{
			v.push_back(cart(ll.lon + dx, ll.lat + dy));
			p.xmin = std::min(p.xmin, ll.lon + dx);
			p.xmax = std::max(p.xmax, ll.lon + dx);
			p.ymin = std::min(p.ymin, ll.lat + dy);
			p.ymax = std::max(p.ymax, ll.lat + dy);
		}
		for (size_t i = 1; i < v.size(); i++)
			box_extend(&edges, arc_box(v[i - 1], v[i]));
		p.rings.push_back(v);
	}
	for (const std::vector<Vec3> &v : p.rings)
	{
		std::vector<Box3> c(ring_chunk_count(static_cast<uint32_t>(v.size())));
		ring_chunk_boxes(v.data(), static_cast<uint32_t>(v.size()), c.data());
		p.chunks.push_back(c);
	}
	for (size_t r = 0; r < p.rings.size(); r++)
		p.views.push_back(RingVectors{p.rings[r].data(), static_cast<uint32_t>(p.rings[r].size()),
									  chunked ? p.chunks[r].data() : nullptr});
	p.caps = cover_outside_caps(edges, &p.box);
	return p;
}

inline Cover
shape_covers(const std::vector<Prepared> &members, const Vec3 &q)
{
	bool any_uncertain = false;
	for (const Prepared &m : members)
	{
		const Cover c =
			polygon_covers(m.views.data(), static_cast<uint32_t>(m.views.size()), m.box, m.caps, q);
		if (c == Cover::inside)
			return Cover::inside;
		if (c == Cover::uncertain)
			any_uncertain = true;
	}
	return any_uncertain ? Cover::uncertain : Cover::outside;
}

} // namespace nyc_shapes
