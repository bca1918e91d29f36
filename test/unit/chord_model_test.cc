/*
 * The chord model against the squared chord the exact test computes from the
 * point's own unit vector, and the keys' decisions from its range against
 * their decisions from that vector.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "chord_model.h"
#include "region.h"
#include "search_keys.h"

namespace
{

using namespace geoidx;

double
radians(double deg)
{
	return M_PI * deg / 180.0;
}

/* The squared chord as the exact test computes it. */
double
exact_chord2(LonLat p, const Vec3 &q)
{
	return chord2(unit_vector(geographic_point(stored_lonlat(p.lon, p.lat))), q);
}

/* Patches of every size up to the largest modelled, anywhere (poles, antimeridian included). */
TEST(ChordModel, RangeHoldsTheExactSquaredChord)
{
	std::mt19937_64 rng(31);
	std::uniform_real_distribution<double> u(0.0, 1.0);
	double widest = 0.0;
	for (int patch = 0; patch < 20000; patch++)
	{
		double span = kChordModelMaxSpan * 180.0 / M_PI * std::pow(u(rng), 3.0);
		double lon0 = -180.0 + 360.0 * u(rng), lat0 = -90.0 + 180.0 * u(rng);
		if (patch % 10 == 0)
			lat0 = 90.0 - span * u(rng); /* at a pole */
		if (patch % 10 == 1)
			lon0 = 180.0 - span * u(rng); /* at the antimeridian */
		LonLat c{-180.0 + 360.0 * u(rng), std::asin(2.0 * u(rng) - 1.0) * 180.0 / M_PI};
		if (patch % 3 == 0) /* the centre close by, and sometimes the antipode */
			c = patch % 9 == 0 ? LonLat{lon0 > 0 ? lon0 - 180.0 : lon0 + 180.0, -lat0}
							   : LonLat{lon0 + span * u(rng), std::min(90.0, lat0 + span * u(rng))};
		Vec3 q = unit_vector(geographic_point(c));
		double lat_mid = std::min(90.0, lat0 + span / 2), lon_mid = lon0 + span / 2;
		ChordModel m = chord_model(q, radians(lon_mid), radians(lat_mid));
		for (int i = 0; i < 16; i++)
		{
			LonLat p{std::min(180.0, lon0 + span * u(rng)), std::min(90.0, lat0 + span * u(rng))};
			if (i == 0)
				p = LonLat{std::min(180.0, lon0 + span), std::min(90.0, lat0 + span)};
			double c2 = exact_chord2(p, q);
			Chord2Range r = chord_model_range(m, radians(p.lon), radians(p.lat));
			ASSERT_LE(r.lo, c2) << "patch " << patch << " point " << i;
			ASSERT_GE(r.hi, c2) << "patch " << patch << " point " << i;
			/* the search multiplies by pi / 180 where the exact test divides by 180 */
			Chord2Range rm = chord_model_range(m, p.lon * (M_PI / 180.0), p.lat * (M_PI / 180.0));
			ASSERT_LE(rm.lo, c2) << "patch " << patch << " point " << i;
			ASSERT_GE(rm.hi, c2) << "patch " << patch << " point " << i;
			/* the range is the remainder's bound, not wider: it decides small patches */
			double s = std::fabs(radians(p.lon - lon_mid)) + std::fabs(radians(p.lat - lat_mid));
			ASSERT_LE(r.hi - r.lo, 2.0 * s * s * s / 3.0 * 1.01 + 3e-12);
			if (s > 1e-3)
				widest = std::max(widest, std::fabs(c2 - 0.5 * (r.lo + r.hi)) / (s * s * s / 3.0));
		}
	}
	/* the third-order term is there: some points need a good part of the bound */
	EXPECT_GT(widest, 0.1);
}

/*
 * A model about a chunk box's middle (an unordered scan's): the range holds
 * every point of the box, across the antimeridian and at the poles too; an
 * empty box or one too large has no model.
 */
TEST(ChordModel, BoxModelHoldsItsPoints)
{
	std::mt19937_64 rng(33);
	std::uniform_real_distribution<double> u(0.0, 1.0);
	int modelled = 0;
	for (int patch = 0; patch < 5000; patch++)
	{
		double span = 4.0 * std::pow(u(rng), 2.0); /* degrees */
		double lon0 = -180.0 + 360.0 * u(rng), lat0 = -90.0 + (180.0 - span) * u(rng);
		if (patch % 5 == 0)
			lon0 = 180.0 - span / 2; /* across the antimeridian: longitudes wrap */
		if (patch % 5 == 1)
			lat0 = 90.0 - span;
		Vec3 q = unit_vector(geographic_point(LonLat{lon0 + 3.0 * u(rng), lat0 - 3.0 * u(rng)}));
		std::vector<LonLat> pts;
		Box3 box = box_empty();
		for (int i = 0; i < 32; i++)
		{
			double lon = lon0 + span * u(rng);
			LonLat p = stored_lonlat(lon > 180.0 ? lon - 360.0 : lon, lat0 + span * u(rng));
			pts.push_back(p);
			box_extend(&box, unit_vector(geographic_point(p)));
		}
		ChordModel m;
		if (!chord_model_of_box(q, box, &m))
		{
			ASSERT_GT(span, 3.0) << "a small box without a model";
			continue;
		}
		modelled++;
		for (const LonLat &p : pts)
		{
			double c2 = exact_chord2(p, q);
			Chord2Range r = chord_model_range(m, radians(p.lon), radians(p.lat));
			ASSERT_LE(r.lo, c2) << "patch " << patch;
			ASSERT_GE(r.hi, c2) << "patch " << patch;
		}
	}
	EXPECT_GT(modelled, 4000);
	ChordModel m;
	EXPECT_FALSE(chord_model_of_box(Vec3{1, 0, 0}, box_empty(), &m));
}

/*
 * Wherever the range decides a point, every key decides it alike from the
 * point's own unit vector; and near a circle most points are decided.
 */
TEST(ChordModel, KeysDecideAsTheExactTest)
{
	std::mt19937_64 rng(32);
	std::uniform_real_distribution<double> u(0.0, 1.0);
	long decided = 0, points = 0;
	for (int trial = 0; trial < 400; trial++)
	{
		LonLat c{-180.0 + 360.0 * u(rng), std::asin(2.0 * u(rng) - 1.0) * 180.0 / M_PI};
		if (trial % 7 == 0)
			c = LonLat{179.9, 0.5};
		GeoPoint cg = geographic_point(c);
		Vec3 q = unit_vector(cg);
		double radius = 1e3 * std::pow(10.0, 4.0 * u(rng)); /* 1 km to 10,000 km */
		std::vector<RegionTest> regions;
		switch (trial % 5)
		{
			case 0:
				regions.push_back(region_test(cg, radius, true, RegionMode::dist_gt));
				break;
			case 1:
				regions.push_back(region_test(cg, radius, true, RegionMode::dist_ge));
				break;
			case 2:
				regions.push_back(region_test(cg, radius, true, RegionMode::outside));
				regions.push_back(region_test(cg, radius * 2.0, true, RegionMode::within, true));
				break;
			case 3:
				regions.push_back(region_test(cg, radius, true, RegionMode::dist_le));
				break;
			default: /* a key around another centre is left to the exact test */
				regions.push_back(region_test(cg, radius, true, RegionMode::dist_gt));
				regions.push_back(region_test(geographic_point(LonLat{c.lon, c.lat * 0.5}), 1e7,
											  true, RegionMode::within));
				break;
		}
		SpatialKeys keys = spatial_keys(regions.data(), (int) regions.size());
		ChordKeys ck = chord_keys(keys, q);
		/* patches on the circle: at the radius from the centre, bearing at random */
		for (int patch = 0; patch < 20; patch++)
		{
			double span = 0.002 + 0.5 * u(rng) * u(rng);
			double angle = radius / 6371008.8, bearing = 2.0 * M_PI * u(rng);
			double lat = std::asin(std::sin(cg.lat) * std::cos(angle) +
								   std::cos(cg.lat) * std::sin(angle) * std::cos(bearing));
			double lon = cg.lon + std::atan2(std::sin(bearing) * std::sin(angle) * std::cos(cg.lat),
											 std::cos(angle) - std::sin(cg.lat) * std::sin(lat));
			lon = std::remainder(lon, 2.0 * M_PI);
			ChordModel m = chord_model(q, lon, lat);
			for (int i = 0; i < 32; i++)
			{
				LonLat p{
					(lon + span * (u(rng) - 0.5) * M_PI / 180.0) * 180.0 / M_PI,
					std::max(-90.0, std::min(90.0, (lat * 180.0 / M_PI) + span * (u(rng) - 0.5)))};
				p = stored_lonlat(p.lon, p.lat);
				Chord2Range r = chord_model_range(m, radians(p.lon), radians(p.lat));
				int by_chord = chord_keys_match(ck, p.lat, r.lo, r.hi);
				GeoPoint g = geographic_point(p);
				bool exact = spatial_point_matches_at(keys, p, g, unit_vector(g));
				if (trial % 5 == 4)
					ASSERT_NE(by_chord, 1) << "a key around another centre decided a point";
				else
					points++;
				if (by_chord < 0)
					continue;
				decided += trial % 5 != 4;
				ASSERT_EQ(by_chord == 1, exact) << "trial " << trial << " patch " << patch;
			}
		}
	}
	/* most points of patches on a circle around the model's centre are decided without their
	 * vectors */
	EXPECT_GT(decided, points / 2);
}

} // namespace
