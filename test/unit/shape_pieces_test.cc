/*
 * The pieces of shape_pieces.h against what they must hold, computed without
 * them: every vertex of the shape, points along every edge (the great-circle
 * arc between its vertices, as PostGIS's geography draws it), the points
 * PostGIS says the NYC neighbourhoods cover (test/unit/data/nyc_covers.txt,
 * moved across the antimeridian and far south), and random points that the
 * prepared polygon covers. And that they prune: points of the box far from
 * the shape lie in no piece. What the pieces decide of a whole shape
 * (pieces_covers, pieces_classify) is checked against PostGIS's answers and
 * against the prepared polygon's exact distances (shape_distance.h).
 */
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "covers_shape.h"
#include "interior_grid.h"
#include "nyc_shapes.h"
#include "shape_distance.h"
#include "shape_pieces.h"

namespace
{

using namespace geoidx;
using namespace nyc_shapes;

bool
in_some_piece(const ShapePieces &p, const Vec3 &v)
{
	for (int i = 0; i < p.n; i++)
		if (box_contains(p.box[i], v))
			return true;
	return false;
}

Vec3
unit(const Vec3 &v)
{
	const double n = std::sqrt(dot(v, v));
	return Vec3{v.x / n, v.y / n, v.z / n};
}

/* Points t of the way along the great-circle arc from a to b (a, b not antipodal). */
Vec3
along(const Vec3 &a, const Vec3 &b, double t)
{
	const double omega = std::acos(std::clamp(dot(a, b), -1.0, 1.0));
	if (omega < 1e-15)
		return a;
	const double s = std::sin(omega);
	const double wa = std::sin((1 - t) * omega) / s, wb = std::sin(t * omega) / s;
	return unit(Vec3{wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z});
}

/* Every vertex and 7 points along every edge of a shape, moved by dx, dy, in some piece. */
long
check_boundary(const Shape &shape, double dx, double dy, const ShapePieces &p, long *missing)
{
	long asked = 0;
	for (const Polygon &poly : shape)
		for (const Ring &r : poly)
			for (size_t i = 0; i < r.size(); i++)
			{
				const Vec3 a = cart(r[i].lon + dx, r[i].lat + dy);
				asked++;
				*missing += !in_some_piece(p, a);
				if (i + 1 == r.size())
					continue;
				const Vec3 b = cart(r[i + 1].lon + dx, r[i + 1].lat + dy);
				for (int k = 1; k <= 7; k++)
				{
					asked++;
					*missing += !in_some_piece(p, along(a, b, k / 8.0));
				}
			}
	return asked;
}

struct Split
{
	GridBuilt built;
	ShapePieces pieces;
	bool split;
};

void
split(const std::vector<uint8_t> &bytes, Split *out)
{
	ASSERT_TRUE(build_grid(bytes, &out->built));
	out->split = shape_pieces(out->built.box, out->built.grid, &out->pieces);
}

/* The NYC neighbourhoods and PostGIS's answers for them (test/unit/data). */
struct Nyc
{
	std::vector<Shape> ntas;
	NycCovers covers;
};

void
load_nyc(Nyc *out)
{
	out->ntas = load_ntas(GEOIDX_UNIT_DATA);
	ASSERT_EQ(out->ntas.size(), 195u);
	ASSERT_TRUE(load_nyc_covers(GEOIDX_UNIT_DATA "/nyc_covers.txt", &out->covers));
}

/*
 * f(t, n, dx, dy, s) for each neighbourhood n moved to place t (NYC itself,
 * across the antimeridian, far south) and cut into pieces s.
 */
template <class F>
void
each_split_nta(const Nyc &nyc, F f)
{
	for (int t : {0, 1, 3})
	{
		const double dx = nyc.covers.places[t].lon, dy = nyc.covers.places[t].lat;
		for (size_t n = 0; n < nyc.ntas.size(); n++)
		{
			Split s;
			split(serialize(nyc.ntas[n], dx, dy), &s);
			if (s.split)
				f(t, static_cast<int>(n), dx, dy, s);
		}
	}
}

TEST(ShapePieces, HoldEveryVertexEdgeAndCoveredProbeOfTheNycNeighbourhoods)
{
	Nyc nyc;
	load_nyc(&nyc);
	long boundary = 0, covered = 0, missing = 0, zones_split = 0, pieces = 0;
	each_split_nta(nyc,
				   [&](int t, int n, double dx, double dy, const Split &s)
				   {
					   zones_split++;
					   pieces += s.pieces.n;
					   ASSERT_LE(s.pieces.n, kMaxPieces);
					   boundary += check_boundary(nyc.ntas[n], dx, dy, s.pieces, &missing);
					   const NycCovers &c = nyc.covers;
					   for (size_t q = 0; q < c.probes.size(); q++)
					   {
						   if (c.covered.count({t, n, static_cast<int>(q)}) == 0)
							   continue;
						   covered++;
						   const Vec3 v = covers_vector(c.probes[q].lon + dx, c.probes[q].lat + dy);
						   if (!in_some_piece(s.pieces, v) && missing++ < 5)
							   ADD_FAILURE() << "place " << t << " neighbourhood " << n << " probe "
											 << q << ": covered by PostGIS, in no piece";
					   }
				   });
	EXPECT_EQ(missing, 0);
	EXPECT_GT(zones_split, 400);
	EXPECT_GT(boundary, 500000);
	EXPECT_GT(covered, 2000);
	std::printf("shape pieces: %ld of %zu neighbourhoods cut into %ld pieces; %ld boundary points "
				"and %ld covered probes, %ld in no piece\n",
				zones_split, 3 * nyc.ntas.size(), pieces, boundary, covered, missing);
}

/* A ring of n vertices around (lon, lat), of radius r degrees wobbling by 10 %. */
Shape
wobbly_ring(double lon, double lat, double r, int n)
{
	Ring ring;
	for (int i = 0; i < n; i++)
	{
		const double a = 2 * M_PI * i / n;
		const double rr = r * (1.0 + 0.1 * std::sin(37 * a));
		ring.push_back(
			LonLat{lon + rr * std::cos(a) / std::cos(lat * M_PI / 180), lat + rr * std::sin(a)});
	}
	ring.push_back(ring.front());
	return Shape{Polygon{ring}};
}

TEST(ShapePieces, AHundredThousandVertexRingItsInsideAndNotItsCorners)
{
	/* 100,000 vertices at one place, 20,000 at the others (the sanitizers are slow) */
	for (const LonLat c : {LonLat{20, 50}, LonLat{179.5, -30}, LonLat{-60, 70}})
	{
		const int n = c.lon == 20 ? 100000 : 20000;
		const Shape shape = wobbly_ring(c.lon, c.lat, 8.0, n);
		Split s;
		split(serialize(shape, 0, 0), &s);
		ASSERT_TRUE(s.split) << c.lon << " " << c.lat;
		long missing = 0;
		const long asked = check_boundary(shape, 0, 0, s.pieces, &missing);
		EXPECT_EQ(missing, 0) << "of " << asked << " boundary points";
		std::mt19937_64 rng(7);
		long inside = 0, corner = 0, corner_in_piece = 0;
		for (int k = 0; k < 5000; k++)
		{
			const Vec3 v = random_in(&rng, s.built.box);
			if (cover_shape_covers(s.built.shape, v) == Cover::inside)
			{
				inside++;
				EXPECT_TRUE(in_some_piece(s.pieces, v));
			}
			/* the box's corners: beyond the ring's widest wobble (8.8 degrees) and a margin */
			if (std::acos(std::clamp(dot(v, cart(c.lon, c.lat)), -1.0, 1.0)) > 9.5 * M_PI / 180)
			{
				corner++;
				corner_in_piece += in_some_piece(s.pieces, v);
			}
		}
		EXPECT_GT(inside, 2000);
		EXPECT_GT(corner, 300);
		/* the pieces leave a good share of the corners out, which one box cannot (27-70 % kept) */
		EXPECT_LT(corner_in_piece, corner * 8 / 10) << c.lon << " " << c.lat;
		std::printf("ring of %d vertices at %g %g: %d pieces, %ld of %ld corner points in one\n", n,
					c.lon, c.lat, s.pieces.n, corner_in_piece, corner);
	}
}

TEST(ShapePieces, ADiagonalBandPrunesTheFarCorners)
{
	/* 10 degrees north-east from (-74, 40), a quarter of a degree wide */
	Ring ring;
	for (int i = 0; i <= 400; i++)
		ring.push_back(LonLat{-74 + 0.025 * i, 40 + 0.025 * i});
	for (int i = 400; i >= 0; i--)
		ring.push_back(LonLat{-74 + 0.025 * i + 0.25, 40 + 0.025 * i});
	ring.push_back(ring.front());
	const Shape band{Polygon{ring}};
	Split s;
	split(serialize(band, 0, 0), &s);
	ASSERT_TRUE(s.split);
	long missing = 0;
	check_boundary(band, 0, 0, s.pieces, &missing);
	EXPECT_EQ(missing, 0);
	EXPECT_TRUE(box_contains(s.built.box, cart(-65, 41)));
	EXPECT_FALSE(in_some_piece(s.pieces, cart(-65, 41)));
	EXPECT_FALSE(in_some_piece(s.pieces, cart(-73, 49)));
	EXPECT_TRUE(in_some_piece(s.pieces, cart(-68.9, 45)));
}

TEST(ShapePieces, ACapAroundThePoleStaysOneEntryOrHoldsThePole)
{
	const Shape cap{Polygon{parallel(75, -180, 180, 400)}};
	Split s;
	split(serialize(cap, 0, 0), &s);
	if (s.split)
	{
		EXPECT_TRUE(in_some_piece(s.pieces, Vec3{0, 0, 1}));
	}
}

/* The interior grid of each piece, over its box. */
std::vector<InteriorGrid>
piece_grids(const Split &s)
{
	std::vector<InteriorGrid> g;
	for (int i = 0; i < s.pieces.n; i++)
		g.push_back(interior_grid(s.built.shape, s.pieces.box[i]));
	return g;
}

TEST(ShapePieces, TheirGridsDecideCoversAsPostGISAndMoreThanOneGrid)
{
	Nyc nyc;
	load_nyc(&nyc);
	long asked = 0, wrong = 0, by_pieces = 0, by_grid = 0;
	each_split_nta(
		nyc,
		[&](int t, int n, double dx, double dy, const Split &s)
		{
			const std::vector<InteriorGrid> grids = piece_grids(s);
			const NycCovers &c = nyc.covers;
			for (size_t q = 0; q < c.probes.size(); q++)
			{
				const Vec3 v = covers_vector(c.probes[q].lon + dx, c.probes[q].lat + dy);
				if (!box_contains(s.built.box, v))
					continue;
				asked++;
				const bool postgis = c.covered.count({t, n, static_cast<int>(q)}) > 0;
				const Cover got = pieces_covers(s.pieces, grids.data(), v);
				by_pieces += got != Cover::uncertain;
				by_grid += grid_covers(s.built.grid, s.built.frame, v) != Cover::uncertain;
				if (got != Cover::uncertain && (got == Cover::inside) != postgis && wrong++ < 5)
					ADD_FAILURE() << "place " << t << " neighbourhood " << n << " probe " << q
								  << ": the pieces say " << (postgis ? "outside" : "inside")
								  << ", PostGIS the other";
			}
		});
	EXPECT_EQ(wrong, 0);
	EXPECT_GT(asked, 20000);
	EXPECT_GT(by_pieces, by_grid);
	std::printf("pieces' grids: of %ld probes in the boxes %ld decided (one grid: %ld)\n", asked,
				by_pieces, by_grid);

	/* a 100,000-vertex ring, against the prepared polygon */
	const Shape ring = wobbly_ring(20, 50, 8.0, 100000);
	Split s;
	split(serialize(ring, 0, 0), &s);
	ASSERT_TRUE(s.split);
	const std::vector<InteriorGrid> grids = piece_grids(s);
	std::mt19937_64 rng(11);
	long ring_pieces = 0, ring_grid = 0;
	for (int k = 0; k < 4000; k++)
	{
		const Vec3 v = random_in(&rng, s.built.box);
		const Cover exact = cover_shape_covers(s.built.shape, v);
		const Cover c = pieces_covers(s.pieces, grids.data(), v);
		if (exact != Cover::uncertain && c != Cover::uncertain)
		{
			EXPECT_EQ(c, exact);
		}
		ring_pieces += c != Cover::uncertain;
		ring_grid += grid_covers(s.built.grid, s.built.frame, v) != Cover::uncertain;
	}
	EXPECT_GT(ring_pieces, ring_grid);
	std::printf("a 100,000-vertex ring: of 4000 points in its box %ld decided (one grid: %ld)\n",
				ring_pieces, ring_grid);
}

TEST(ShapePieces, TheirVerdictsOnCirclesHoldForTheExactDistance)
{
	std::vector<Shape> shapes = {wobbly_ring(20, 50, 8.0, 20000),
								 wobbly_ring(179.5, -30, 3.0, 8000)};
	const std::vector<Shape> ntas = load_ntas(GEOIDX_UNIT_DATA);
	for (size_t n = 0; n < ntas.size(); n += 13)
		shapes.push_back(ntas[n]);
	std::mt19937_64 rng(5);
	long asked = 0, wrong = 0, beyond_box = 0;
	for (const Shape &shape : shapes)
	{
		Split s;
		split(serialize(shape, 0, 0), &s);
		if (!s.split)
			continue;
		/* centres around the box, radii from 10 m to 1,000 km */
		Box3 around = s.built.box;
		for (int k = 0; k < 3; k++)
		{
			const double m = 0.3 * (around.hi[k] - around.lo[k]) + 0.002;
			around.lo[k] = std::max(-1.0, around.lo[k] - m);
			around.hi[k] = std::min(1.0, around.hi[k] + m);
		}
		std::uniform_real_distribution<double> logr(1.0, 6.0);
		for (int q = 0; q < 300; q++)
		{
			const Vec3 c = random_in(&rng, around);
			const LonLat ll{std::atan2(c.y, c.x) * 180 / M_PI,
							std::asin(std::clamp(c.z, -1.0, 1.0)) * 180 / M_PI};
			double d;
			if (!shape_point_distance(s.built.shape, geographic_point(ll),
									  covers_vector(ll.lon, ll.lat), true, &d))
				continue;
			const double r = std::pow(10.0, logr(rng));
			for (RegionMode mode : {RegionMode::within, RegionMode::outside, RegionMode::dist_lt,
									RegionMode::dist_gt})
			{
				const RegionTest t = region_test(geographic_point(ll), r, true, mode);
				const Verdict v = pieces_classify(t, s.pieces);
				asked++;
				const bool holds = mode == RegionMode::within    ? d <= r
								   : mode == RegionMode::dist_lt ? d < r
																 : d > r;
				if (v == Verdict::maybe)
					continue;
				beyond_box += classify_region(t, s.built.box) == Verdict::maybe;
				if ((v == Verdict::inside) != holds && wrong++ < 5)
					ADD_FAILURE() << "centre " << ll.lon << " " << ll.lat << " radius " << r
								  << " mode " << static_cast<int>(mode) << ": distance " << d;
			}
		}
	}
	EXPECT_EQ(wrong, 0);
	EXPECT_GT(asked, 10000);
	/* where the box cannot tell, the pieces sometimes can (260 of 19,612 when written) */
	EXPECT_GT(beyond_box, 100);
	std::printf("pieces on circles: %ld asked, %ld decided where the box could not\n", asked,
				beyond_box);
}

TEST(ShapePieces, StoredAsAnIndexEntryKeepsThemTheyHoldAndDecideAlike)
{
	/* a neighbourhood (~540 vertices) stays one box and grid: no pieces stored */
	const std::vector<Shape> ntas = load_ntas(GEOIDX_UNIT_DATA);
	Split small;
	split(serialize(ntas[0], 0, 0), &small);
	StoredPiece stored[kMaxPieces];
	EXPECT_LT(cover_shape_vertices(small.built.shape), kPieceMinVertices);
	EXPECT_EQ(store_pieces(small.built.shape, small.built.box, small.built.grid, stored), 0);

	for (const LonLat c : {LonLat{179.5, -30}, LonLat{-60, 70}})
	{
		const int n = c.lon > 0 ? 20000 : 8000;
		const Shape ring = wobbly_ring(c.lon, c.lat, 3.0, n);
		Split s;
		split(serialize(ring, 0, 0), &s);
		ASSERT_TRUE(s.split);
		/* the closing vertex repeats the first, and counts as PostGIS's ST_NPoints counts it */
		EXPECT_EQ(cover_shape_vertices(s.built.shape), static_cast<uint64_t>(n + 1));
		const int kept = store_pieces(s.built.shape, s.built.box, s.built.grid, stored);
		ASSERT_EQ(kept, s.pieces.n);
		ShapePieces loaded;
		InteriorGrid grids[kMaxPieces];
		load_pieces(stored, kept, &loaded, grids);
		ASSERT_EQ(loaded.n, kept);
		for (int i = 0; i < kept; i++)
			EXPECT_TRUE(box_contains(loaded.box[i], s.pieces.box[i])) << "piece " << i;
		long missing = 0;
		const long asked = check_boundary(ring, 0, 0, loaded, &missing);
		EXPECT_EQ(missing, 0) << "of " << asked << " boundary points";
		std::mt19937_64 rng(13);
		long decided = 0;
		for (int k = 0; k < 4000; k++)
		{
			const Vec3 v = random_in(&rng, s.built.box);
			const Cover exact = cover_shape_covers(s.built.shape, v);
			const Cover got = pieces_covers(loaded, grids, v);
			if (got == Cover::uncertain)
				continue;
			decided++;
			if (exact != Cover::uncertain)
			{
				EXPECT_EQ(got, exact) << c.lon << " " << c.lat;
			}
		}
		EXPECT_GT(decided, 2000);
	}
}

} // namespace
