/*
 * ShapeBounds against the shapes themselves: random star-shaped polygons
 * (around the poles, across the antimeridian, up to 60 degrees of radius)
 * serialised as PostGIS lays them out, walked, and every sampled point of
 * their interiors (a spherical triangle fan, sampled as projected barycentric
 * combinations, so the sampler shares nothing with the code) must lie in the
 * box. Degree rectangles against grids of their points, and PostGIS's pole
 * rule on worked cases.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "geodesy.h"
#include "serialized_shape.h"
#include "shape_bounds.h"

namespace
{

using namespace geoidx;

Vec3
unit_deg(double lon, double lat)
{
	LonLat ll{0, 0};
	normalize_like_geography(lon, lat, &ll);
	return unit_vector(geographic_point(ll));
}

bool
inside(const Box3 &b, const Vec3 &v)
{
	return box_contains(b, v);
}

/* A serialised POLYGON of one ring, SRID 4326, no stored box, as PostGIS 3 writes it. */
std::vector<uint8_t>
serialize_polygon(const std::vector<LonLat> &ring)
{
	std::vector<uint8_t> b = {0x00, 0x10, 0xe6, 0x40};
	auto word = [&b](uint32_t w)
	{
		for (int i = 0; i < 4; i++)
			b.push_back(static_cast<uint8_t>(w >> (8 * i)));
	};
	auto real = [&b](double d)
	{
		uint8_t raw[8];
		std::memcpy(raw, &d, 8);
		b.insert(b.end(), raw, raw + 8);
	};
	word(kPolygonType);
	word(1);
	word(static_cast<uint32_t>(ring.size()));
	word(0); /* the ring counts padded to 8 bytes */
	for (const LonLat &p : ring)
	{
		real(p.lon);
		real(p.lat);
	}
	return b;
}

ShapeBounds
bounds_of(const std::vector<uint8_t> &b)
{
	ShapeBounds sb;
	SerializedHeader h;
	WalkError err{};
	EXPECT_TRUE(read_serialized_header(b.data(), b.size(), &h, &err));
	EXPECT_TRUE(walk_serialized(b.data(), h, &sb, &err));
	return sb;
}

TEST(ShapeBounds, HoldsTheInteriorsOfRandomPolygons)
{
	std::mt19937_64 rng(4242);
	auto uni = [&rng](double lo, double hi)
	{ return std::uniform_real_distribution<double>(lo, hi)(rng); };
	long samples = 0, outside = 0, with_pole = 0;
	std::string first;
	for (int shape = 0; shape < 3000; shape++)
	{
		/* the centre: anywhere, near a pole, or on the antimeridian */
		double clon = uni(-180, 180), clat = std::asin(uni(-1, 1)) * 180 / M_PI;
		if (shape % 3 == 1)
			clat = (shape % 2 ? 1 : -1) * uni(80, 90);
		else if (shape % 3 == 2)
			clon = 180 - uni(0, 1);
		const double radius = std::pow(10.0, uni(-4, std::log10(60.0))) * M_PI / 180;
		/* four or more vertices, each in its own sector: consecutive ones less than pi apart around
		 * c, so the fan is the polygon */
		const int n = 4 + static_cast<int>(rng() % 30);
		const Vec3 c = unit_deg(clon, clat);
		/* a tangent frame at c */
		Vec3 east{-std::sin(clon * M_PI / 180), std::cos(clon * M_PI / 180), 0};
		Vec3 north{c.y * east.z - c.z * east.y, c.z * east.x - c.x * east.z,
				   c.x * east.y - c.y * east.x};
		std::vector<Vec3> verts;
		std::vector<LonLat> ring;
		for (int i = 0; i < n; i++)
		{
			const double az = 2 * M_PI * (i + uni(0.25, 0.75)) / n, r = radius * uni(0.3, 1.0);
			const double dx = std::sin(r) * std::cos(az), dy = std::sin(r) * std::sin(az);
			Vec3 v{std::cos(r) * c.x + dx * east.x + dy * north.x,
				   std::cos(r) * c.y + dx * east.y + dy * north.y,
				   std::cos(r) * c.z + dx * east.z + dy * north.z};
			LonLat ll{std::atan2(v.y, v.x) * 180 / M_PI,
					  std::asin(std::clamp(v.z, -1.0, 1.0)) * 180 / M_PI};
			ring.push_back(ll);
			verts.push_back(unit_deg(ll.lon, ll.lat));
		}
		ring.push_back(ring[0]);
		const Box3 box = bounds_of(serialize_polygon(ring)).geodesic();
		if (box.hi[2] == 1.0 || box.lo[2] == -1.0)
			with_pole++;
		/* the fan of spherical triangles (c, v_i, v_i+1), sampled */
		for (int i = 0; i < n; i++)
		{
			const Vec3 &a = verts[i], &b = verts[(i + 1) % n];
			for (int s = 0; s < 12; s++)
			{
				double w[3] = {uni(0, 1), uni(0, 1), uni(0, 1)};
				if (s < 3)
					w[s] = 0; /* on the triangle's sides too, the ring's edge among them */
				Vec3 p{w[0] * c.x + w[1] * a.x + w[2] * b.x, w[0] * c.y + w[1] * a.y + w[2] * b.y,
					   w[0] * c.z + w[1] * a.z + w[2] * b.z};
				const double len = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
				if (len == 0)
					continue;
				p = Vec3{p.x / len, p.y / len, p.z / len};
				samples++;
				if (!inside(box, p) && outside++ == 0)
					first = "shape " + std::to_string(shape) + " centre " + std::to_string(clon) +
							" " + std::to_string(clat) + " radius " + std::to_string(radius);
			}
		}
	}
	EXPECT_EQ(outside, 0) << first;
	EXPECT_GT(samples, 500000);
	EXPECT_GT(with_pole, 150) << "too few polygons held a pole to test the pole rule";
}

/*
 * The claim the entry box rests on, against PostGIS itself: for 240 polygons
 * (around the poles, across the antimeridian, larger than a hemisphere,
 * bowties), every probe point PostGIS's ST_Covers(geography) says one covers
 * lies in its box. test/unit/data/make_covered_points.py wrote the file.
 */
TEST(ShapeBounds, HoldsEveryPointPostGISSaysIsCovered)
{
	std::ifstream in(GEOIDX_UNIT_DATA "/covered_points.txt");
	ASSERT_TRUE(in) << "no " GEOIDX_UNIT_DATA "/covered_points.txt";
	std::string line;
	long shapes = 0, points = 0, outside = 0, beyond_edges = 0;
	Box3 box = box_empty(), edges = box_empty();
	std::string first;
	while (std::getline(in, line))
	{
		std::istringstream fields(line);
		std::string tag;
		fields >> tag;
		if (tag == "s")
		{
			std::vector<LonLat> ring;
			LonLat p;
			while (fields >> p.lon >> p.lat)
				ring.push_back(p);
			box = bounds_of(serialize_polygon(ring)).geodesic();
			edges = box_empty();
			for (size_t i = 1; i < ring.size(); i++)
				box_extend(&edges, arc_box(unit_deg(ring[i - 1].lon, ring[i - 1].lat),
										   unit_deg(ring[i].lon, ring[i].lat)));
			shapes++;
		}
		else if (tag == "c")
		{
			LonLat p;
			fields >> p.lon >> p.lat;
			const Vec3 v = unit_deg(p.lon, p.lat);
			points++;
			if (!inside(box, v) && outside++ == 0)
				first = "shape " + std::to_string(shapes - 1) + " covers POINT(" +
						std::to_string(p.lon) + " " + std::to_string(p.lat) + ") outside its box";
			if (!inside(edges, v))
				beyond_edges++;
		}
	}
	EXPECT_EQ(shapes, 240);
	EXPECT_GT(points, 10000);
	EXPECT_EQ(outside, 0) << first;
	/* the pole rule is what holds these: PostGIS covers them beyond every edge */
	EXPECT_GT(beyond_edges, 100);
}

TEST(ShapeBounds, PoleRuleOnWorkedCases)
{
	/* a ring at 70 N around the pole: the edges' box stops below z = 1 */
	std::vector<LonLat> north = {{0, 70}, {120, 70}, {-120, 70}, {0, 70}};
	Box3 b = bounds_of(serialize_polygon(north)).geodesic();
	EXPECT_EQ(b.hi[2], 1.0);
	EXPECT_GT(b.lo[2], 0.9);
	/* the same at 70 S */
	std::vector<LonLat> south = {{0, -70}, {120, -70}, {-120, -70}, {0, -70}};
	b = bounds_of(serialize_polygon(south)).geodesic();
	EXPECT_EQ(b.lo[2], -1.0);
	EXPECT_LT(b.hi[2], -0.9);
	/* a small square off the axes gets no pole */
	std::vector<LonLat> square = {{10, 10}, {11, 10}, {11, 11}, {10, 11}, {10, 10}};
	b = bounds_of(serialize_polygon(square)).geodesic();
	for (int i = 0; i < 3; i++)
		EXPECT_LT(b.hi[i] - b.lo[i], 0.05);
	/* a square around (0, 0) holds +x, which its edges' box already reaches only to cos(1) */
	std::vector<LonLat> origin = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {-1, -1}};
	b = bounds_of(serialize_polygon(origin)).geodesic();
	EXPECT_EQ(b.hi[0], 1.0);

	/* the rule's order: z's extension feeds y's test */
	Box3 seq{{-0.5, 0.2, 0.1}, {0.5, 0.3, 0.2}};
	box_add_enclosed_poles(&seq); /* z: y does not straddle; y: z does not; x: neither */
	EXPECT_EQ(seq.hi[2], 0.2);
	Box3 seq2{{-0.5, -0.1, 0.1}, {0.5, 0.3, 0.2}};
	box_add_enclosed_poles(
		&seq2); /* z straddled by x and y: z up to 1; then y's test sees z = [0.1, 1] */
	EXPECT_EQ(seq2.hi[2], 1.0);
	EXPECT_EQ(seq2.lo[1], -0.1);
	Box3 seq3{{-0.5, -0.1, -0.1}, {0.5, 0.3, 0.2}};
	box_add_enclosed_poles(&seq3); /* z both ways; then y (x and z straddle) both ways */
	EXPECT_EQ(seq3.lo[2], -1.0);
	EXPECT_EQ(seq3.hi[2], 1.0);
	EXPECT_EQ(seq3.lo[1], -1.0);
	EXPECT_EQ(seq3.hi[1], 1.0);
}

TEST(ShapeBounds, DegreeRectangleImagesHoldTheirGrids)
{
	std::mt19937_64 rng(77);
	auto uni = [&rng](double lo, double hi)
	{ return std::uniform_real_distribution<double>(lo, hi)(rng); };
	long outside = 0, loose = 0;
	for (int k = 0; k < 4000; k++)
	{
		/* raw degrees, beyond the ranges too: planar geometry keeps them as they are */
		double x0 = uni(-200, 200), y0 = uni(-100, 100);
		double w = std::pow(10.0, uni(-6, 2.6)), h = std::pow(10.0, uni(-6, 2.3));
		const DegreeBox db{x0, y0, x0 + w, y0 + h};
		const Box3 box = degree_box_image(db);
		double hi[3] = {-2, -2, -2}, lo[3] = {2, 2, 2};
		const int n = 60;
		for (int i = 0; i <= n; i++)
			for (int j = 0; j <= n; j++)
			{
				const double lon = (db.xmin + (db.xmax - db.xmin) * i / n) * M_PI / 180;
				const double lat = (db.ymin + (db.ymax - db.ymin) * j / n) * M_PI / 180;
				const double v[3] = {std::cos(lat) * std::cos(lon), std::cos(lat) * std::sin(lon),
									 std::sin(lat)};
				for (int a = 0; a < 3; a++)
				{
					if (v[a] < box.lo[a] || v[a] > box.hi[a])
						outside++;
					hi[a] = std::max(hi[a], v[a]);
					lo[a] = std::min(lo[a], v[a]);
				}
			}
		/* a 60x60 grid misses an extreme by at most (pi/60)^2 / 2 of the rectangle's span squared
		 */
		const double grid = 0.5 * std::pow((std::max(w, h) * M_PI / 180) / n, 2) + 1e-12;
		for (int a = 0; a < 3; a++)
			if (box.hi[a] - hi[a] > grid || lo[a] - box.lo[a] > grid)
				loose++;
	}
	EXPECT_EQ(outside, 0);
	EXPECT_EQ(loose, 0);

	/* worked: lon [-10, 10], lat [40, 50] */
	const Box3 b = degree_box_image(DegreeBox{-10, 40, 10, 50});
	const double d = M_PI / 180;
	EXPECT_NEAR(b.hi[0], std::cos(40 * d), 1e-14);
	EXPECT_NEAR(b.lo[0], std::cos(50 * d) * std::cos(10 * d), 1e-14);
	EXPECT_NEAR(b.hi[1], std::cos(40 * d) * std::sin(10 * d), 1e-14);
	EXPECT_NEAR(b.lo[1], -std::cos(40 * d) * std::sin(10 * d), 1e-14);
	EXPECT_NEAR(b.lo[2], std::sin(40 * d), 1e-14);
	EXPECT_NEAR(b.hi[2], std::sin(50 * d), 1e-14);
}

TEST(ShapeBounds, EntryBoxJoinsBothFamiliesAndChecksCoordinates)
{
	/* a long east-west edge: the great circle bulges north of the planar rectangle */
	std::vector<LonLat> strip = {{-60, 50}, {60, 50}, {60, 51}, {-60, 51}, {-60, 50}};
	ShapeBounds sb = bounds_of(serialize_polygon(strip));
	const Box3 geo = sb.geodesic(), planar = degree_box_image(sb.planar_degrees()), all = sb.box();
	EXPECT_GT(geo.hi[2], planar.hi[2] + 0.05) << "the geodesic edge reaches further north";
	EXPECT_TRUE(box_contains(all, geo));
	EXPECT_TRUE(box_contains(all, planar));
	EXPECT_EQ(sb.coord_check(), CoordCheck::in_range);
	EXPECT_FALSE(sb.empty());

	std::vector<LonLat> wrapped = {{170, 0}, {190, 0}, {190, 1}, {170, 0}};
	EXPECT_EQ(bounds_of(serialize_polygon(wrapped)).coord_check(), CoordCheck::coerced);
	std::vector<LonLat> nan = {
		{0, 0}, {std::numeric_limits<double>::quiet_NaN(), 0}, {1, 1}, {0, 0}};
	EXPECT_EQ(bounds_of(serialize_polygon(nan)).coord_check(), CoordCheck::not_finite);

	const std::vector<uint8_t> empty = {0x00, 0x10, 0xe6, 0x40, 3, 0, 0, 0, 0, 0, 0, 0};
	ShapeBounds e = bounds_of(empty);
	EXPECT_TRUE(e.empty());
	EXPECT_TRUE(box_is_empty(e.box()));
}

} // namespace
