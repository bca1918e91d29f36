/*
 * The prepared shape of covers_shape.h, built from GSERIALIZED bytes, against
 * the polygons the NYC test prepares from the same coordinates (whose answers
 * that test checks against PostGIS): the same answer, uncertain included, for
 * every probe near every neighbourhood at two of its places (across the
 * antimeridian, and far south), and PostGIS's own answer wherever it decides.
 * Then non-polygonal values, which have no prepared form.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include "covers_shape.h"
#include "nyc_shapes.h"
#include "shape_bounds.h"

namespace
{

using namespace geoidx;
using namespace nyc_shapes;

using Built = PreparedBytes;

bool
build(const std::vector<uint8_t> &bytes, Built *out)
{
	return prepare_bytes(bytes, out);
}

TEST(CoversShape, AnswersAsThePreparedPolygonsOfTheNYCTest)
{
	const std::vector<Shape> ntas = load_ntas(GEOIDX_UNIT_DATA);
	ASSERT_EQ(ntas.size(), 195u);

	NycCovers nyc;
	ASSERT_TRUE(load_nyc_covers(GEOIDX_UNIT_DATA "/nyc_covers.txt", &nyc))
		<< "no " GEOIDX_UNIT_DATA "/nyc_covers.txt";
	const std::vector<LonLat> &probes = nyc.probes, &places = nyc.places;
	const std::set<std::tuple<int, int, int>> &covered = nyc.covered;
	ASSERT_EQ(places.size(), 4u);

	long asked = 0, differ = 0, wrong = 0, decided = 0, inside = 0;
	std::string first;
	for (int t : {1, 3})
	{
		const double dx = places[t].lon, dy = places[t].lat;
		for (size_t n = 0; n < ntas.size(); n++)
		{
			std::vector<Prepared> members;
			for (const Polygon &poly : ntas[n])
				members.push_back(prepare(poly, dx, dy, true));
			Built b;
			ASSERT_TRUE(build(serialize(ntas[n], dx, dy), &b)) << "neighbourhood " << n;
			ASSERT_TRUE(b.counts.polygonal);
			ASSERT_EQ(b.shape.npolygons, members.size());
			for (size_t q = 0; q < probes.size(); q++)
			{
				const double x = probes[q].lon + dx, y = probes[q].lat + dy;
				bool near = false;
				for (const Prepared &m : members)
					near |= x >= m.xmin - 0.5 && x <= m.xmax + 0.5 && y >= m.ymin - 0.5 &&
							y <= m.ymax + 0.5;
				if (!near)
					continue;
				asked++;
				const Cover want = shape_covers(members, cart(x, y));
				const Cover got = cover_shape_covers(b.shape, covers_vector(x, y));
				if (got != want && differ++ < 5)
					first += "\n  place " + std::to_string(t) + " neighbourhood " +
							 std::to_string(n) + " probe " + std::to_string(q);
				if (got == Cover::uncertain)
					continue;
				decided++;
				inside += got == Cover::inside;
				const bool postgis =
					covered.count({t, static_cast<int>(n), static_cast<int>(q)}) > 0;
				if ((got == Cover::inside) != postgis && wrong++ < 5)
					first += "\n  PostGIS differs: place " + std::to_string(t) + " neighbourhood " +
							 std::to_string(n) + " probe " + std::to_string(q);
			}
		}
	}
	std::printf("asked %ld, decided %ld (%ld inside)\n", asked, decided, inside);
	EXPECT_EQ(differ, 0) << first;
	EXPECT_EQ(wrong, 0) << first;
	EXPECT_GT(asked, 200000);
	EXPECT_GT(inside, 3000);
}

TEST(CoversShape, ItsBoundsAreTheShapeBoundsBoxBitForBit)
{
	/*
	 * An index entry takes its box from the prepared shape's walk: it must be
	 * ShapeBounds's, to the bit (geoidx_verify compares bits, and indexes
	 * built before kept ShapeBounds's). Longitude -180 is where the two unit
	 * vectors differ (PostGIS's radians normalisation turns -pi into pi).
	 */
	std::vector<std::vector<uint8_t>> values;
	for (const Shape &s : load_ntas(GEOIDX_UNIT_DATA))
		for (const LonLat &at : {LonLat{0, 0}, LonLat{253.9, 0}, LonLat{100, -120}})
			values.push_back(serialize(s, at.lon, at.lat));
	Ring across{{-180, 10}, {-170, 10}, {-170, 20}, {-180, 20}, {-180, 10}};
	Ring wrapped{{170, 10}, {190, 10}, {190, 20}, {540, 20}, {170, 10}};
	Ring pole = parallel(80.0, -180.0, 180.0, 16);
	Ring dot{{12, 34}};
	Ring beyond{{10, 95}, {20, 95}, {20, 100}, {10, 95}};
	values.push_back(serialize(Shape{Polygon{across}}, 0, 0));
	values.push_back(serialize(Shape{Polygon{wrapped}}, 0, 0));
	values.push_back(serialize(Shape{Polygon{pole}, Polygon{across, dot}}, 0, 0));
	values.push_back(serialize(Shape{Polygon{dot}}, 0, 0));
	values.push_back(serialize(Shape{Polygon{beyond}}, 0, 0));
	values.push_back(serialize(Shape{Polygon{}, Polygon{across}}, 0, 0));
	int compared = 0;
	for (const std::vector<uint8_t> &bytes : values)
	{
		Built b;
		ASSERT_TRUE(build(bytes, &b));
		SerializedHeader h;
		WalkError err;
		ASSERT_TRUE(read_serialized_header(bytes.data(), bytes.size(), &h, &err));
		ShapeBounds sb;
		ASSERT_TRUE(walk_serialized(bytes.data(), h, &sb, &err));
		const Box3 want = sb.box();
		EXPECT_EQ(std::memcmp(&want, &b.shape.bounds, sizeof(Box3)), 0) << "value " << compared;
		compared++;
	}
	EXPECT_EQ(compared, 195 * 3 + 6);
}

TEST(CoversShape, OnlyPolygonsHaveAPreparedForm)
{
	/* LINESTRING(0 0, 1 1) */
	std::vector<uint8_t> line = {0x00, 0x10, 0xE6, 0x40};
	put32(&line, kLineType);
	put32(&line, 2);
	for (double v : {0.0, 0.0, 1.0, 1.0})
		put_double(&line, v);
	Built b;
	ASSERT_TRUE(build(line, &b));
	EXPECT_FALSE(b.counts.polygonal);
	/* the holed square of SphereCovers.WorkedCases, serialized: the hole is not covered */
	const Shape square = {
		{{{1, 1}, {11, 1}, {11, 11}, {1, 11}, {1, 1}}, {{4, 4}, {6, 4}, {6, 6}, {4, 6}, {4, 4}}}};
	Built s;
	ASSERT_TRUE(build(serialize(square, 0, 0), &s));
	EXPECT_TRUE(s.counts.polygonal);
	EXPECT_EQ(s.counts.rings, 2u);
	EXPECT_EQ(cover_shape_covers(s.shape, covers_vector(2, 2)), Cover::inside);
	EXPECT_EQ(cover_shape_covers(s.shape, covers_vector(5, 5)), Cover::outside);
	EXPECT_EQ(cover_shape_covers(s.shape, covers_vector(20, 5)), Cover::outside);
	/* a vertex is on the boundary: PostGIS decides it */
	EXPECT_EQ(cover_shape_covers(s.shape, covers_vector(11, 11)), Cover::uncertain);
}

} // namespace

namespace
{

using namespace geoidx;

Vec3
slerp(const Vec3 &a, const Vec3 &b, double t)
{
	const double w = std::acos(std::max(-1.0, std::min(1.0, dot(a, b))));
	if (w < 1e-15)
		return a;
	const double s = std::sin(w), ka = std::sin((1 - t) * w) / s, kb = std::sin(t * w) / s;
	return Vec3{ka * a.x + kb * b.x, ka * a.y + kb * b.y, ka * a.z + kb * b.z};
}

double
brute_arc_angle(const Vec3 &a, const Vec3 &b, const Vec3 &p)
{
	double best = M_PI;
	for (int i = 0; i <= 4000; i++)
	{
		const Vec3 q = slerp(a, b, i / 4000.0);
		const Vec3 c = cross(p, q);
		best = std::min(best, std::atan2(std::sqrt(dot(c, c)), dot(p, q)));
	}
	return best;
}

/* The arc's nearest point from samples along it: never nearer than computed, never much farther. */
TEST(CoversShape, ArcPointAngleEqualsSampledArcs)
{
	std::mt19937_64 rng(77);
	std::uniform_real_distribution<double> lon(-180, 180), lat(-89, 89), len(1e-4, 30), off(-5, 5);
	for (int i = 0; i < 3000; i++)
	{
		const double x = lon(rng), y = lat(rng), l = len(rng) * (i % 3 == 0 ? 0.001 : 1.0);
		const double x2 = x + l, y2 = std::max(-89.0, std::min(89.0, y + off(rng) * l / 5));
		const double px = x + off(rng) * l, py = std::max(-89.0, std::min(89.0, y + off(rng) * l));
		const Vec3 a = covers_vector(x, y), b = covers_vector(x2, y2), p = covers_vector(px, py);
		const double len = std::acos(std::max(-1.0, std::min(1.0, dot(a, b))));
		const double want = brute_arc_angle(a, b, p);
		/* samples can only be farther than the arc, by at most half a sample step */
		const double got = arc_point_angle(a, b, p);
		ASSERT_LE(got, want + 1e-9) << i;
		ASSERT_GE(got, want - len / 4000.0 - 1e-9) << i;
		/* the bounds of a one-edge ring hold the arc's nearest point */
		const Shape edge = {{{{x, y}, {x2, y2}}}};
		Built s;
		ASSERT_TRUE(build(serialize(edge, 0, 0), &s));
		double lo, hi;
		cover_shape_boundary_angles(s.shape, p, &lo, &hi);
		ASSERT_LE(lo, want) << i;
		ASSERT_GE(hi, want - len / 4000.0) << i;
		ASSERT_LE(lo, hi) << i;
	}
}

TEST(CoversShape, BoundaryAngleIsTheNearestEdge)
{
	const Shape square = {
		{{{1, 1}, {11, 1}, {11, 11}, {1, 11}, {1, 1}}, {{4, 4}, {6, 4}, {6, 6}, {4, 6}, {4, 4}}}};
	Built s;
	ASSERT_TRUE(build(serialize(square, 0, 0), &s));
	double lo, hi;
	/* 5 degrees of longitude west of the meridian edge x = 1, at latitude 6: asin(cos 6 sin 5) */
	cover_shape_boundary_angles(s.shape, covers_vector(-4, 6), &lo, &hi);
	const double want = std::asin(std::cos(6 * M_PI / 180) * std::sin(5 * M_PI / 180));
	EXPECT_LE(lo, want);
	EXPECT_GE(hi, want);
	EXPECT_LT(hi - lo, 1e-12);
	EXPECT_NEAR(lo, want, 1e-12);
	/* in the hole: 1 degree of latitude below its edge y = 6 (a parallel, not a great circle:
	 * nearer) */
	cover_shape_boundary_angles(s.shape, covers_vector(5, 5), &lo, &hi);
	EXPECT_LE(hi, 1.0 * M_PI / 180.0 + 1e-12);
	EXPECT_GT(lo, 0.99 * M_PI / 180.0);
	/* a vertex */
	cover_shape_boundary_angles(s.shape, covers_vector(11, 11), &lo, &hi);
	EXPECT_EQ(lo, 0.0);
	EXPECT_LT(hi, 1e-12);
}

} // namespace
