/*
 * shape_point_distance against a brute force that shares nothing with its
 * search: every edge of every ring through postgis_edge_point_angle, the
 * least angle taken, the spheroid distance to its point. The NYC
 * neighbourhoods moved across the antimeridian and far south, and probes on
 * a grid around each: whatever the chunk and sagitta boxes skip must never
 * hold the nearest edge. (That these are PostGIS's metres, bit for bit, is
 * sql/shape_distance.sql's to show, against PostGIS itself.)
 */
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <fstream>
#include <sstream>
#include <vector>

#include "nyc_shapes.h"
#include "postgis_edge.h"
#include "shape_distance.h"

namespace
{

using namespace geoidx;
using namespace nyc_shapes;

/*
 * The spheroid distance to the nearest point of every edge, nothing skipped;
 * knn: geography's <-> (lwgeom_distance_spheroid on the sphere), the sphere's
 * radius times the least angle, unrounded.
 */
double
brute_force(const Shape &shape, double dx, double dy, const GeoPoint &gp, bool knn = false)
{
	double best = INFINITY;
	GeoPoint closest{0, 0};
	for (const Polygon &poly : shape)
		for (const Ring &r : poly)
			for (size_t j = 0; j + 1 < r.size(); j++)
			{
				GeoPoint c;
				const double a = postgis_edge_point_angle(
					geographic_point(LonLat{r[j].lon + dx, r[j].lat + dy}),
					geographic_point(LonLat{r[j + 1].lon + dx, r[j + 1].lat + dy}), gp, &c);
				if (a < best)
				{
					best = a;
					closest = c;
				}
			}
	return knn ? kSphereRadius * best : st_distance(gp, closest, true);
}

TEST(ShapeDistance, TheSearchFindsTheEdgeABruteForceFinds)
{
	const std::vector<Shape> ntas = load_ntas(GEOIDX_UNIT_DATA);
	ASSERT_EQ(ntas.size(), 195u);

	long asked = 0, inside = 0, outside = 0, deferred = 0;
	const double places[][2] = {{0, 0}, {253.8, 0}, {106.0, -90.0}};
	for (const auto &place : places)
	{
		const double dx = place[0], dy = place[1];
		for (size_t n = 0; n < ntas.size(); n += 4)
		{
			PreparedBytes p;
			ASSERT_TRUE(prepare_bytes(serialize(ntas[n], dx, dy), &p));
			const LonLat first = ntas[n][0][0][0];
			for (int i = -5; i <= 5; i++)
				for (int j = -5; j <= 5; j++)
				{
					const LonLat q{first.lon + dx + i * 0.0071, first.lat + dy + j * 0.0053};
					LonLat ll;
					normalize_like_geography(q.lon, q.lat, &ll);
					const GeoPoint gp = geographic_point(ll);
					double d;
					asked++;
					if (!shape_point_distance(p.shape, gp, covers_vector(q.lon, q.lat), true, &d))
					{
						deferred++;
						continue;
					}
					if (d == 0.0)
					{
						inside++;
						continue;
					}
					outside++;
					ASSERT_EQ(d, brute_force(ntas[n], dx, dy, gp))
						<< "neighbourhood " << n << " at " << q.lon << " " << q.lat;
					/* the same search gives geography's <-> where it answers */
					double k;
					if (shape_point_distance(p.shape, gp, covers_vector(q.lon, q.lat), true, &k,
											 true))
					{
						ASSERT_EQ(k, brute_force(ntas[n], dx, dy, gp, true))
							<< "<-> of neighbourhood " << n << " at " << q.lon << " " << q.lat;
					}
				}
		}
	}
	RecordProperty("asked", std::to_string(asked));
	RecordProperty("deferred", std::to_string(deferred));
	/* a search that gave up on everything would pass the loop: it must answer most */
	EXPECT_GT(outside, asked / 2);
	EXPECT_GT(inside, asked / 50);
	EXPECT_LT(deferred, asked / 10);
}

TEST(ShapeDistance, LeavesToPostGISWhatItsTwoPathsCouldAnswerDifferently)
{
	/* two squares at one distance from the point between them: which is nearer is a tie */
	const Shape two = {{{{20, 0}, {20.5, 0}, {20.5, 0.5}, {20, 0.5}, {20, 0}}},
					   {{{21, 0}, {21.5, 0}, {21.5, 0.5}, {21, 0.5}, {21, 0}}}};
	PreparedBytes p;
	ASSERT_TRUE(prepare_bytes(serialize(two, 0, 0), &p));
	double d;
	EXPECT_FALSE(shape_point_distance(p.shape, geographic_point(LonLat{20.75, 0.25}),
									  covers_vector(20.75, 0.25), true, &d));
	/* nearer one of them by far: answered */
	EXPECT_TRUE(shape_point_distance(p.shape, geographic_point(LonLat{20.6, 0.25}),
									 covers_vector(20.6, 0.25), true, &d));
	EXPECT_EQ(d, brute_force(two, 0, 0, geographic_point(LonLat{20.6, 0.25})));

	/* a shape wider than a quarter of the sphere's box: PostGIS's stab line is its own */
	const Shape large = {{{{-60, -30}, {60, -30}, {60, 30}, {-60, 30}, {-60, -30}}}};
	ASSERT_TRUE(prepare_bytes(serialize(large, 0, 0), &p));
	EXPECT_FALSE(shape_point_distance(p.shape, geographic_point(LonLat{100, 0}),
									  covers_vector(100, 0), true, &d));

	/* a coordinate the cast moves into range (with a NOTICE only PostGIS gives) */
	const Shape beyond = {{{{179.9, 10}, {180.2, 10}, {180.2, 10.2}, {179.9, 10.2}, {179.9, 10}}}};
	ASSERT_TRUE(prepare_bytes(serialize(beyond, 0, 0), &p));
	EXPECT_FALSE(shape_point_distance(p.shape, geographic_point(LonLat{179, 10.1}),
									  covers_vector(179, 10.1), true, &d));
}

} // namespace
