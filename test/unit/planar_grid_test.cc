/*
 * planar_grid.h against a planar point-in-polygon written here from PostGIS's
 * rules (winding number, a point on an edge is on the boundary), on the raw
 * coordinates the test serialised (not the prepared shape's): where a grid
 * that planar_grid_agrees() accepts decides a point, ST_Contains must agree.
 * And the shapes whose planar and geodesic insides differ inside decided
 * cells (a long edge along a parallel, the antimeridian, a ring that winds
 * twice) must be refused, with a point that proves the grid would be wrong.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "covers_shape.h"
#include "interior_grid.h"
#include "nyc_shapes.h"
#include "packed_box.h"
#include "planar_grid.h"

namespace
{

using namespace geoidx;
using namespace nyc_shapes;

struct Built : GridBuilt
{
	bool planar = false;
};

void
build(const std::vector<uint8_t> &bytes, Built *out)
{
	ASSERT_TRUE(build_grid(bytes, out));
	out->planar = planar_grid_agrees(out->shape, out->grid, out->frame);
}

/* PostGIS's planar answer for a point and a ring: 1 inside, 0 on the boundary, -1 outside. */
int
brute_ring(const Ring &r, double dx, double dy, double x, double y)
{
	int wn = 0;
	for (size_t i = 0; i + 1 < r.size(); i++)
	{
		const double x1 = r[i].lon + dx, y1 = r[i].lat + dy;
		const double x2 = r[i + 1].lon + dx, y2 = r[i + 1].lat + dy;
		const double side = (x2 - x1) * (y - y1) - (x - x1) * (y2 - y1);
		if (side == 0.0 && x >= std::min(x1, x2) && x <= std::max(x1, x2) &&
			y >= std::min(y1, y2) && y <= std::max(y1, y2))
			return 0;
		if (y1 <= y && y < y2 && side > 0)
			wn++;
		else if (y2 <= y && y < y1 && side < 0)
			wn--;
	}
	return wn == 0 ? -1 : 1;
}

int
brute_shape(const Shape &s, double dx, double dy, double x, double y)
{
	int result = -1;
	for (const Polygon &p : s)
	{
		int in = brute_ring(p[0], dx, dy, x, y);
		if (in == -1)
			continue;
		if (in == 0)
			return 0;
		for (size_t h = 1; h < p.size(); h++)
		{
			const int hole = brute_ring(p[h], dx, dy, x, y);
			if (hole == 0)
				return 0;
			if (hole == 1)
				in = -1;
		}
		if (in == 1)
			return 1;
	}
	return result;
}

struct Tally
{
	long asked = 0, decided = 0, wrong = 0;
};

/* Random points over the shape's degree rectangle and a little beyond: where the grid decides, the
 * planar answer. */
void
compare(const Shape &shape, double dx, double dy, const Built &b, int n, std::mt19937_64 *rng,
		Tally *t, bool report = true)
{
	double lo_x = 1e9, hi_x = -1e9, lo_y = 1e9, hi_y = -1e9;
	for (const Polygon &p : shape)
		for (const LonLat &ll : p[0])
		{
			lo_x = std::min(lo_x, ll.lon + dx), hi_x = std::max(hi_x, ll.lon + dx);
			lo_y = std::min(lo_y, ll.lat + dy), hi_y = std::max(hi_y, ll.lat + dy);
		}
	const double mx = 0.05 * (hi_x - lo_x), my = 0.05 * (hi_y - lo_y);
	std::uniform_real_distribution<double> ux(lo_x - mx, hi_x + mx), uy(lo_y - my, hi_y + my);
	for (int i = 0; i < n; i++)
	{
		const double x = ux(*rng), y = uy(*rng);
		const Cover c = grid_covers(b.grid, b.frame, covers_vector(x, y));
		t->asked++;
		if (c == Cover::uncertain)
			continue;
		t->decided++;
		const int planar = brute_shape(shape, dx, dy, x, y);
		if ((c == Cover::inside) != (planar == 1) && t->wrong++ < 5 && report)
			ADD_FAILURE() << "(" << x << " " << y << "): the grid says "
						  << (c == Cover::inside ? "inside" : "outside") << ", planar " << planar;
	}
}

TEST(PlanarGrid, AgreesWithPlanarContainsOnTheNycNeighbourhoods)
{
	const std::vector<Shape> ntas = load_ntas(GEOIDX_UNIT_DATA);
	ASSERT_EQ(ntas.size(), 195u);
	std::mt19937_64 rng(11);
	/* NYC, south and east of it, near 60 N, and west of the antimeridian */
	const double places[][2] = {{0, 0}, {60, -70}, {30, 20}, {-105, 0}};
	for (const auto &pl : places)
	{
		Tally t;
		int planar = 0;
		for (const Shape &s : ntas)
		{
			Built b;
			build(serialize(s, pl[0], pl[1]), &b);
			if (!b.planar)
				continue;
			planar++;
			compare(s, pl[0], pl[1], b, 400, &rng, &t);
		}
		EXPECT_EQ(t.wrong, 0) << "place " << pl[0] << " " << pl[1];
		/* the point of it: NYC-sized zones keep their grid for planar predicates */
		EXPECT_GE(planar, 190) << "place " << pl[0] << " " << pl[1];
		EXPECT_GT(t.decided, t.asked / 2);
		std::printf("planar grid at (%+g %+g): %d of 195 neighbourhoods planar, %ld of %ld random "
					"points decided\n",
					pl[0], pl[1], planar, t.decided, t.asked);
	}
}

/* How many random points in the box the grid decides otherwise than the planar polygon. */
long
grid_errors(const Shape &shape, const Built &b, int n)
{
	std::mt19937_64 rng(5);
	Tally t;
	compare(shape, 0, 0, b, n, &rng, &t, false);
	return t.wrong;
}

TEST(PlanarGrid, RefusesALongEdgeAlongAParallel)
{
	/* lat 50..60, lon 0..40 with two vertices per side: the geodesic top edge bulges ~1.9 degrees
	 * north */
	Shape s{Polygon{Ring{{0, 50}, {40, 50}, {40, 60}, {0, 60}, {0, 50}}}};
	Built b;
	build(serialize(s, 0, 0), &b);
	EXPECT_FALSE(b.planar);
	EXPECT_GT(grid_errors(s, b, 20000), 0) << "the case must be one the grid gets wrong";
	/* the same box with a vertex every 0.01 degree along the parallels is planar enough */
	Ring dense = parallel(50, 0, 40, 4000);
	for (const LonLat &ll : parallel(60, 40, 0, 4000))
		dense.push_back(ll);
	dense.push_back(dense.front());
	Shape d{Polygon{dense}};
	Built bd;
	build(serialize(d, 0, 0), &bd);
	EXPECT_TRUE(bd.planar);
	EXPECT_EQ(grid_errors(d, bd, 20000), 0);
}

TEST(PlanarGrid, RefusesARingAcrossTheAntimeridian)
{
	/* geodesic: 10 degrees across 180; planar: 350 degrees the other way round */
	Shape s{Polygon{Ring{{175, 10}, {-175, 10}, {-175, 20}, {175, 20}, {175, 10}}}};
	Built b;
	build(serialize(s, 0, 0), &b);
	ASSERT_FALSE(grid_is_empty(b.grid));
	EXPECT_FALSE(b.planar);
}

TEST(PlanarGrid, RefusesARingThatWindsTwice)
{
	/* winding number 2 inside: PostGIS's planar test says inside, a crossing parity outside */
	Ring twice;
	for (int k = 0; k < 2; k++)
		for (LonLat ll : {LonLat{10, 10}, LonLat{11, 10}, LonLat{11, 11}, LonLat{10, 11}})
			twice.push_back(ll);
	twice.push_back(twice.front());
	Shape s{Polygon{twice}};
	Built b;
	build(serialize(s, 0, 0), &b);
	ASSERT_FALSE(grid_is_empty(b.grid));
	EXPECT_FALSE(b.planar);
}

TEST(PlanarGrid, RefusesSridZero)
{
	const std::vector<Shape> ntas = load_ntas(GEOIDX_UNIT_DATA);
	std::vector<uint8_t> bytes = serialize(ntas[0], 0, 0);
	Built b4326;
	build(bytes, &b4326);
	ASSERT_TRUE(b4326.planar);
	bytes[0] = bytes[1] = 0;
	bytes[2] = 0; /* SRID 0: ST_Contains with a point of SRID 4326 is an error in PostGIS */
	Built b0;
	build(bytes, &b0);
	EXPECT_FALSE(b0.planar);
}

TEST(PlanarGrid, DegreeBoxHoldsEveryPointOfItsBox)
{
	std::mt19937_64 rng(7);
	std::uniform_real_distribution<double> lon(-180, 180), lat(-89, 89), size(1e-6, 5.0);
	long held = 0, refused = 0;
	for (int i = 0; i < 2000; i++)
	{
		const double x0 = lon(rng), y0 = lat(rng), w = size(rng), h = size(rng);
		Box3 box = box_empty();
		std::vector<LonLat> pts;
		std::uniform_real_distribution<double> fx(x0, x0 + w), fy(y0, std::min(90.0, y0 + h));
		for (int k = 0; k < 64; k++)
			pts.push_back(LonLat{fx(rng), fy(rng)});
		for (const LonLat &p : pts)
			box_extend(&box, box_of(covers_vector(p.lon, p.lat)));
		DegreeBox r;
		if (!degree_rect_of(box, &r))
		{
			refused++;
			continue;
		}
		held++;
		for (const LonLat &p : pts)
		{
			LonLat n;
			normalize_like_geography(p.lon, p.lat, &n);
			ASSERT_TRUE(n.lon >= r.xmin && n.lon <= r.xmax && n.lat >= r.ymin && n.lat <= r.ymax)
				<< n.lon << " " << n.lat << " not in " << r.xmin << ".." << r.xmax << " x "
				<< r.ymin << ".." << r.ymax;
		}
	}
	EXPECT_GT(held, 1900);
	EXPECT_GT(refused, 0); /* boxes across 180 */
}

} // namespace
