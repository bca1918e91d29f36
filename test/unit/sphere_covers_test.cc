/*
 * polygon_covers against PostGIS: the 195 NYC neighbourhoods at four places
 * (as they are, across the antimeridian, near the north pole, in the south),
 * probed with the bus positions, vertices and edge midpoints, against
 * ST_Covers(geography) as PostGIS 3.3 answered it (test/unit/data/
 * make_nyc_covers.py). Every answer decided here must be PostGIS's; the
 * undecided ones must be few, and the vertices among them. Then worked cases:
 * a cap around the pole, a hole, a ring larger than a hemisphere.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "arc_box.h"
#include "geodesy.h"
#include "sphere_covers.h"
#include "nyc_shapes.h"

namespace
{

using namespace geoidx;
using namespace nyc_shapes;

TEST(SphereCovers, AnswersAsPostGISOnNYCNeighbourhoodsAtFourPlaces)
{
	const std::vector<Shape> ntas = load_ntas(GEOIDX_UNIT_DATA);
	ASSERT_EQ(ntas.size(), 195u) << "no NYC neighbourhoods in data/";

	NycCovers nyc;
	ASSERT_TRUE(load_nyc_covers(GEOIDX_UNIT_DATA "/nyc_covers.txt", &nyc))
		<< "no " GEOIDX_UNIT_DATA "/nyc_covers.txt";
	const std::vector<LonLat> &probes = nyc.probes, &places = nyc.places;
	const std::set<std::tuple<int, int, int>> &covered = nyc.covered;
	ASSERT_EQ(places.size(), 4u);
	ASSERT_GT(probes.size(), 3000u);

	/* the probes start with the bus positions */
	std::ifstream bus_file(
		GEOIDX_UNIT_DATA
		"/../../../data/gofence-profiling/nyc/nyc_mta_vehiclemonitoring_1457799429_feed.geojson");
	std::stringstream bus_text;
	bus_text << bus_file.rdbuf();
	const std::string buses = bus_text.str();
	size_t nbuses = 0;
	for (size_t at = 0; (at = buses.find("\"Point\"", at)) != std::string::npos; at++)
		nbuses++;
	ASSERT_EQ(nbuses, 1962u);

	long asked = 0, decided = 0, wrong = 0, uncertain = 0, inside = 0, polygons = 0,
		 undecidable = 0;
	long bus_asked = 0, bus_uncertain = 0, chunk_diffs = 0;
	std::string first;
	for (size_t t = 0; t < places.size(); t++)
	{
		const double dx = places[t].lon, dy = places[t].lat;
		for (size_t n = 0; n < ntas.size(); n++)
		{
			std::vector<Prepared> members, plain;
			for (const Polygon &poly : ntas[n])
			{
				members.push_back(prepare(poly, dx, dy, true));
				plain.push_back(prepare(poly, dx, dy, false));
				polygons++;
				if (members.back().caps == 0)
					undecidable++;
			}
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
				bus_asked += q < nbuses;
				const bool postgis = covered.count({static_cast<int>(t), static_cast<int>(n),
													static_cast<int>(q)}) > 0;
				const Cover c = shape_covers(members, cart(x, y));
				/* the chunk boxes only skip work: the answer is the same without them */
				if (shape_covers(plain, cart(x, y)) != c && chunk_diffs++ < 5)
					first += "\n  chunks change the answer at place " + std::to_string(t) +
							 " neighbourhood " + std::to_string(n) + " probe " + std::to_string(q);
				if (c == Cover::uncertain)
				{
					uncertain++;
					bus_uncertain += q < nbuses;
					continue;
				}
				decided++;
				inside += c == Cover::inside;
				if ((c == Cover::inside) != postgis && wrong++ < 5)
					first += "\n  place " + std::to_string(t) + " neighbourhood " +
							 std::to_string(n) + " probe " + std::to_string(q) + ": PostGIS " +
							 (postgis ? "covers" : "does not cover");
			}
		}
	}
	std::printf("asked %ld, decided %ld (%ld inside), uncertain %ld (bus positions: %ld of %ld); "
				"%ld of %ld polygons undecidable\n",
				asked, decided, inside, uncertain, bus_uncertain, bus_asked, undecidable, polygons);
	EXPECT_EQ(wrong, 0) << first;
	EXPECT_EQ(chunk_diffs, 0) << first;
	EXPECT_GT(asked, 500000);
	/* vertices and midpoints are left to PostGIS, as they should be; bus positions almost never */
	EXPECT_LT(uncertain, asked / 50);
	EXPECT_LT(bus_uncertain, bus_asked / 10000 + 1);
	EXPECT_EQ(undecidable, 0);
}

} // namespace

namespace
{

using namespace geoidx;
using namespace nyc_shapes;

/* A polygon prepared as the NYC test prepares them (no chunk boxes), asked one point at a time. */
struct Worked
{
	Prepared p;

	explicit Worked(const Polygon &rings) : p(prepare(rings, 0, 0, false)) {}
	Cover
	covers(double lon, double lat) const
	{
		return polygon_covers(p.views.data(), static_cast<uint32_t>(p.views.size()), p.box, p.caps,
							  cart(lon, lat));
	}
};

TEST(SphereCovers, WorkedCases)
{
	/* a ring at 80 N: the pole is inside (PostGIS's pole rule puts it in the box), 70 N is not */
	std::vector<LonLat> cap;
	for (int i = 0; i <= 8; i++)
		cap.push_back(
			LonLat{-170.0 + 45.0 * (i % 8), 80.0}); /* no vertex on a meridian of an axis point */
	const Worked north({cap});
	EXPECT_NE(north.p.caps, 0u);
	EXPECT_EQ(north.covers(0, 90), Cover::inside);
	EXPECT_EQ(north.covers(123, 85), Cover::inside);
	EXPECT_EQ(north.covers(10, 70), Cover::outside);
	EXPECT_EQ(north.covers(10, -89), Cover::outside);

	/* a square with a hole: the hole is not covered, its edge and the vertices are left to PostGIS
	 */
	const Worked holed(
		{{{1, 1}, {11, 1}, {11, 11}, {1, 11}, {1, 1}}, {{4, 4}, {6, 4}, {6, 6}, {4, 6}, {4, 4}}});
	EXPECT_NE(holed.p.caps, 0u);
	EXPECT_EQ(holed.covers(2, 2), Cover::inside);
	EXPECT_EQ(holed.covers(5, 5), Cover::outside);
	EXPECT_EQ(holed.covers(20, 5), Cover::outside);
	EXPECT_EQ(holed.covers(4, 5), Cover::uncertain);
	EXPECT_EQ(holed.covers(11, 11), Cover::uncertain);
	/* a vertex exactly on the equator: PostGIS's pole rule sees 0, ours -1e-15: too close to call
	 */
	const Worked touching({{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}}});
	EXPECT_EQ(touching.p.caps, 0u);
	EXPECT_EQ(touching.covers(2, 2), Cover::uncertain);

	/* an outer "ring" of three points holds nothing, for PostGIS, whatever its hole says */
	const Worked degenerate({{{1, 1}, {11, 1}, {1, 1}}, {{4, 4}, {6, 4}, {6, 6}, {4, 6}, {4, 4}}});
	EXPECT_EQ(degenerate.covers(2, 2), Cover::outside);
	EXPECT_EQ(degenerate.covers(5, 5), Cover::outside);

	/* a ring around the equator: its box is the whole sphere, nothing is decided here */
	std::vector<LonLat> belt;
	for (int i = 0; i <= 12; i++)
		belt.push_back(LonLat{-180.0 + 30.0 * (i % 12), (i % 2) ? 5.0 : -5.0});
	const Worked equator({belt});
	EXPECT_EQ(equator.p.caps, 0u);
	EXPECT_EQ(equator.covers(0, 0), Cover::uncertain);
	EXPECT_EQ(equator.covers(0, 60), Cover::uncertain);
}

} // namespace
