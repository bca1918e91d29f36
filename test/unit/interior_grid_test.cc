/*
 * The interior grid of interior_grid.h against answers it does not compute:
 * PostGIS's own ST_Covers for the NYC neighbourhoods moved across the
 * antimeridian and far south (test/unit/data/nyc_covers.txt), and shapes
 * whose inside is known in closed form (caps around both poles, a box across
 * the antimeridian with a hole). A cell the grid calls interior must hold no
 * point PostGIS leaves uncovered; the grid must also decide most covered
 * probes, or it would be a summary that summarises nothing.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "covers_shape.h"
#include "interior_grid.h"
#include "nyc_shapes.h"
#include "packed_box.h"

namespace
{

using namespace geoidx;
using namespace nyc_shapes;

using Built = GridBuilt;

void
build(const std::vector<uint8_t> &bytes, Built *out)
{
	ASSERT_TRUE(build_grid(bytes, out));
}

int
cells(const InteriorGrid &g)
{
	return __builtin_popcountll(g.inside[0]) + __builtin_popcountll(g.inside[1]);
}

TEST(InteriorGrid, FrameCellsCoverTheBoxAndNothingElse)
{
	const Box3 box{{0.1, -0.2, 0.9}, {0.3, 0.25, 0.95}};
	const GridFrame f = grid_frame(box);
	EXPECT_EQ(f.c, 2); /* the box points up z */
	EXPECT_EQ(f.a, 1);
	EXPECT_EQ(f.b, 0);
	EXPECT_LE(f.na * f.nb, kGridCells);
	EXPECT_GE(f.na * f.nb, kGridCells - f.na);
	EXPECT_EQ(grid_cell(f, Vec3{0.1, -0.2, 0.9}), 0);
	EXPECT_EQ(grid_cell(f, Vec3{0.3, 0.25, 0.95}), f.na * f.nb - 1);
	EXPECT_EQ(grid_cell(f, Vec3{0.31, 0.0, 0.92}), -1);
	EXPECT_EQ(grid_cell(f, Vec3{std::nan(""), 0.0, 0.92}), -1);
	const GridFrame flat = grid_frame(Box3{{0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}});
	EXPECT_EQ(flat.na * flat.nb, flat.nb);
	EXPECT_EQ(grid_cell(flat, Vec3{0.5, 0.5, 0.5}), 0);
}

TEST(InteriorGrid, NeverCallsAPointInsideThatPostGISLeavesUncovered)
{
	const std::vector<Shape> ntas = load_ntas(GEOIDX_UNIT_DATA);
	ASSERT_EQ(ntas.size(), 195u);
	NycCovers nyc;
	ASSERT_TRUE(load_nyc_covers(GEOIDX_UNIT_DATA "/nyc_covers.txt", &nyc));

	long asked = 0, covered = 0, decided = 0, rejected = 0, wrong = 0;
	for (int t : {1, 3})
	{
		const double dx = nyc.places[t].lon, dy = nyc.places[t].lat;
		for (size_t n = 0; n < ntas.size(); n++)
		{
			Built b;
			build(serialize(ntas[n], dx, dy), &b);
			for (size_t q = 0; q < nyc.probes.size(); q++)
			{
				const Vec3 v = covers_vector(nyc.probes[q].lon + dx, nyc.probes[q].lat + dy);
				if (!box_contains(b.box, v))
					continue;
				asked++;
				const bool postgis =
					nyc.covered.count({t, static_cast<int>(n), static_cast<int>(q)}) > 0;
				const Cover grid = grid_covers(b.grid, b.frame, v);
				covered += postgis;
				decided += grid == Cover::inside;
				rejected += grid == Cover::outside;
				if (grid != Cover::uncertain && (grid == Cover::inside) != postgis && wrong++ < 5)
					ADD_FAILURE() << "place " << t << " neighbourhood " << n << " probe " << q
								  << ": the grid says " << (postgis ? "outside" : "inside")
								  << ", PostGIS the other";
			}
		}
	}
	EXPECT_EQ(wrong, 0);
	EXPECT_GT(asked, 20000);
	/* the point of the grid: most probes in a zone's box are decided without the zone */
	EXPECT_GT(decided + rejected, asked / 3);
	std::printf("interior grid: %ld probes in boxes: of %ld covered %ld (%.1f%%) decided inside, "
				"of %ld not %ld (%.1f%%) outside\n",
				asked, covered, decided, 100.0 * decided / std::max(1L, covered), asked - covered,
				rejected, 100.0 * rejected / std::max(1L, asked - covered));
}

double
lat_of(const Vec3 &v)
{
	return std::asin(std::clamp(v.z, -1.0, 1.0)) * 180.0 / M_PI;
}

double
lon_of(const Vec3 &v)
{
	return std::atan2(v.y, v.x) * 180.0 / M_PI;
}

TEST(InteriorGrid, LeavesThePoleOfARingAroundItToPostGIS)
{
	/*
	 * A ring along the 80th parallel, a vertex every half degree: covers
	 * cannot decide the pole itself (every stab line from it runs along a
	 * vertex's meridian), so the grid must not decide the pole's cell; the rest
	 * of the cap is decided, and PostGIS covers all of it (lat > 80 plus the
	 * edges' poleward bend, under 0.0001 degree here).
	 */
	for (int pole : {1, -1})
	{
		Ring r =
			pole > 0 ? parallel(80.0, -180.0, 180.0, 720) : parallel(-80.0, 180.0, -180.0, 720);
		Built b;
		build(serialize(Shape{Polygon{r}}, 0, 0), &b);
		const Vec3 axis{0, 0, 1.0 * pole};
		ASSERT_EQ(cover_shape_covers(b.shape, axis), Cover::uncertain);
		EXPECT_EQ(grid_covers(b.grid, b.frame, axis), Cover::uncertain) << "pole " << pole;
		EXPECT_GT(cells(b.grid), 20) << "pole " << pole;
		std::mt19937_64 rng(5 + pole);
		long in = 0;
		for (int i = 0; i < 200000; i++)
		{
			const Vec3 v = random_in(&rng, b.box);
			const Cover c = grid_covers(b.grid, b.frame, v);
			const double lat = pole * lat_of(v);
			if (c == Cover::inside)
			{
				in++;
				ASSERT_GT(lat, 80.0) << lon_of(v) << " " << lat;
			}
			else if (c == Cover::outside)
			{
				ASSERT_LT(lat, 80.0001) << lon_of(v) << " " << lat;
			}
		}
		EXPECT_GT(in, 100000) << "pole " << pole;
	}
}

TEST(InteriorGrid, AHighLatitudeBoxWhoseEdgesBendPoleward)
{
	for (int hemisphere : {1, -1})
	{
		/* lat 60..85 (or -85..-60), lon 10..50, counter-clockwise */
		const double s0 = hemisphere > 0 ? 60.0 : -85.0, n0 = hemisphere > 0 ? 85.0 : -60.0;
		Ring outer = parallel(s0, 10.0, 50.0, 40);
		for (LonLat ll : parallel(n0, 50.0, 10.0, 40))
			outer.push_back(ll);
		outer.push_back(outer.front());
		Built b;
		build(serialize(Shape{Polygon{outer}}, 0, 0), &b);
		std::mt19937_64 rng(3 + hemisphere);
		long in = 0, out = 0;
		for (int i = 0; i < 200000; i++)
		{
			const Vec3 v = random_in(&rng, b.box);
			const Cover c = grid_covers(b.grid, b.frame, v);
			const double lat = hemisphere * lat_of(v), lon = lon_of(v);
			/* the edges along parallels bend poleward, by under a degree here */
			if (c == Cover::inside)
			{
				in++;
				ASSERT_TRUE(lon > 10.0 && lon < 50.0 && lat > 60.0 - (hemisphere < 0) && lat < 86.0)
					<< lon << " " << lat;
			}
			else if (c == Cover::outside)
			{
				out++;
				ASSERT_FALSE(lon > 10.0 && lon < 50.0 && lat > 61.0 && lat < 85.0)
					<< lon << " " << lat;
			}
		}
		EXPECT_GT(in, 20000) << "hemisphere " << hemisphere;
		EXPECT_GT(out, 20000) << "hemisphere " << hemisphere;
	}
}

TEST(InteriorGrid, ABoxAcrossTheAntimeridianWithAHole)
{
	/* lon 170..190 (wrapping), lat 10..30, a hole at lon 178..182, lat 18..22 */
	Ring outer = parallel(10.0, 170.0, 190.0, 80);
	for (LonLat ll : parallel(30.0, 190.0, 170.0, 80))
		outer.push_back(ll);
	outer.push_back(outer.front());
	Ring hole = parallel(18.0, 178.0, 182.0, 16);
	Ring top = parallel(22.0, 182.0, 178.0, 16);
	hole.insert(hole.end(), top.begin(), top.end());
	hole.push_back(hole.front());
	std::reverse(hole.begin(), hole.end());
	Built b;
	build(serialize(Shape{Polygon{outer, hole}}, 0, 0), &b);
	ASSERT_GT(cells(b.grid), 20);
	std::mt19937_64 rng(11);
	long in = 0;
	for (int i = 0; i < 200000; i++)
	{
		const Vec3 v = random_in(&rng, b.box);
		if (grid_covers(b.grid, b.frame, v) != Cover::inside)
			continue;
		in++;
		const double lat = lat_of(v), lon = lon_of(v) < 0 ? lon_of(v) + 360.0 : lon_of(v);
		/* the edges along parallels bend poleward by under a degree here */
		ASSERT_TRUE(lon > 170.0 && lon < 190.0 && lat > 9.9 && lat < 30.0) << lon << " " << lat;
		ASSERT_FALSE(lon > 178.0 && lon < 182.0 && lat > 18.0 && lat < 22.1) << lon << " " << lat;
	}
	EXPECT_GT(in, 20000);
}

} // namespace

namespace
{

int
popcount2(const uint64_t *bits)
{
	return __builtin_popcountll(bits[0]) + __builtin_popcountll(bits[1]);
}

/* The cells one grid calls inside and the other outside. */
int
decided_both_ways(const InteriorGrid &x, const InteriorGrid &y)
{
	int n = 0;
	for (int w = 0; w < 2; w++)
		n += __builtin_popcountll((x.inside[w] & y.outside[w]) | (x.outside[w] & y.inside[w]));
	return n;
}

} // namespace

TEST(InteriorGrid, RasterAndBlocksAgreeAndTheRasterDecidesAtLeastAsMuch)
{
	/*
	 * Two ways to the same cells: where both decide a cell they must agree,
	 * and random points of a cell the raster decides must not be answered the
	 * other way by covers (a point-in-polygon test per point, no grid).
	 */
	const std::vector<Shape> ntas = load_ntas(GEOIDX_UNIT_DATA);
	std::mt19937_64 rng(17);
	long by_blocks = 0, by_raster = 0, disagree = 0, wrong = 0, points = 0, stars = 0;
	for (const LonLat &at : {LonLat{0, 0}, LonLat{253.9, 0}, LonLat{100, -120}, LonLat{30, 44}})
		for (const Shape &s : ntas)
		{
			Built b;
			build(serialize(s, at.lon, at.lat), &b);
			const GridFrame f = grid_frame(b.box);
			const InteriorGrid blocks = interior_grid_by_blocks(b.shape, f);
			InteriorGrid raster;
			ASSERT_TRUE(interior_grid_by_raster(b.shape, f, &raster));
			by_blocks += popcount2(blocks.inside) + popcount2(blocks.outside);
			by_raster += popcount2(raster.inside) + popcount2(raster.outside);
			disagree += decided_both_ways(blocks, raster);
			for (int i = 0; i < 300; i++)
			{
				const Vec3 v = random_in(&rng, b.box);
				const Cover g = grid_covers(raster, f, v);
				if (g == Cover::uncertain)
					continue;
				points++;
				const Cover exact = cover_shape_covers(b.shape, v);
				if (exact != Cover::uncertain && exact != g && wrong++ < 5)
					ADD_FAILURE() << "at " << at.lon << " " << at.lat << ": the raster says "
								  << (g == Cover::inside ? "inside" : "outside");
			}
		}
	/* stars of few long edges, which the raster tests cell by cell */
	std::uniform_real_distribution<double> unit(0.0, 1.0);
	for (int n = 0; n < 400; n++)
	{
		const double lon0 = -180.0 + 360.0 * unit(rng), lat0 = -70.0 + 140.0 * unit(rng);
		const double radius = 1.0 + 25.0 * unit(rng);
		const int k = 3 + static_cast<int>(10 * unit(rng));
		Ring r;
		for (int i = 0; i < k; i++)
		{
			const double t = 2.0 * M_PI * i / k, rr = radius * (0.3 + 0.7 * unit(rng));
			r.push_back(
				LonLat{lon0 + rr * std::cos(t), std::clamp(lat0 + rr * std::sin(t), -89.0, 89.0)});
		}
		r.push_back(r.front());
		Built b;
		build(serialize(Shape{Polygon{r}}, 0, 0), &b);
		const GridFrame f = grid_frame(b.box);
		const InteriorGrid blocks = interior_grid_by_blocks(b.shape, f);
		InteriorGrid raster;
		if (!interior_grid_by_raster(b.shape, f, &raster))
			continue;
		stars++;
		disagree += decided_both_ways(blocks, raster);
		for (int i = 0; i < 300; i++)
		{
			const Vec3 v = random_in(&rng, b.box);
			const Cover g = grid_covers(raster, f, v);
			const Cover exact = cover_shape_covers(b.shape, v);
			if (g != Cover::uncertain && exact != Cover::uncertain && exact != g && wrong++ < 5)
				ADD_FAILURE() << "star " << n << ": the raster says "
							  << (g == Cover::inside ? "inside" : "outside");
		}
	}
	EXPECT_EQ(disagree, 0);
	EXPECT_EQ(wrong, 0);
	EXPECT_GT(points, 100000);
	EXPECT_GT(stars, 300);
	EXPECT_GE(by_raster, by_blocks);
	std::printf("interior grid: blocks decide %ld cells, the raster %ld\n", by_blocks, by_raster);
}

TEST(InteriorGrid, TheRasterStepsAsideNearTheBoxsOwnAntipodes)
{
	/* a cap of radius 89.5 degrees around (0, 0): its box reaches c = 0 on every axis */
	Ring r;
	for (int i = 0; i <= 360; i++)
	{
		const double t = i * M_PI / 180.0;
		r.push_back(LonLat{89.5 * std::cos(t), 89.5 * std::sin(t)});
	}
	Built b;
	build(serialize(Shape{Polygon{r}}, 0, 0), &b);
	InteriorGrid g;
	EXPECT_FALSE(interior_grid_by_raster(b.shape, grid_frame(b.box), &g));
}
