/*
 * The chord model against the squared chord the exact test computes from the
 * point's own unit vector, and the keys' decisions from its range against
 * their decisions from that vector.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "chord_key_cases.h"
#include "chord_model.h"
#include "geodesic_bracket.h"
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

/* A patch of degrees [lon0, lon0 + span] x [lat0, lat0 + span] and a centre for its model. */
struct Patch
{
	double span, lon0, lat0, lon_mid, lat_mid;
	LonLat centre;
};

/* Patches of every size up to the largest modelled, anywhere (poles, antimeridian included). */
Patch
random_patch(std::mt19937_64 &rng, int patch)
{
	std::uniform_real_distribution<double> u(0.0, 1.0);
	Patch p;
	p.span = kChordModelMaxSpan * 180.0 / M_PI * std::pow(u(rng), 3.0);
	p.lon0 = -180.0 + 360.0 * u(rng);
	p.lat0 = -90.0 + 180.0 * u(rng);
	if (patch % 10 == 0)
		p.lat0 = 90.0 - p.span * u(rng); /* at a pole */
	if (patch % 10 == 1)
		p.lon0 = 180.0 - p.span * u(rng); /* at the antimeridian */
	p.centre = LonLat{-180.0 + 360.0 * u(rng), std::asin(2.0 * u(rng) - 1.0) * 180.0 / M_PI};
	if (patch % 3 == 0) /* the centre close by, and sometimes the antipode */
		p.centre = patch % 9 == 0
					   ? LonLat{p.lon0 > 0 ? p.lon0 - 180.0 : p.lon0 + 180.0, -p.lat0}
					   : LonLat{p.lon0 + p.span * u(rng), std::min(90.0, p.lat0 + p.span * u(rng))};
	p.lat_mid = std::min(90.0, p.lat0 + p.span / 2);
	p.lon_mid = p.lon0 + p.span / 2;
	return p;
}

/* Point i of a patch: its far corner first, then anywhere in it. */
LonLat
point_in(const Patch &p, std::mt19937_64 &rng, int i)
{
	std::uniform_real_distribution<double> u(0.0, 1.0);
	if (i == 0)
		return LonLat{std::min(180.0, p.lon0 + p.span), std::min(90.0, p.lat0 + p.span)};
	return LonLat{std::min(180.0, p.lon0 + p.span * u(rng)),
				  std::min(90.0, p.lat0 + p.span * u(rng))};
}

TEST(ChordModel, RangeHoldsTheExactSquaredChord)
{
	std::mt19937_64 rng(31);
	double widest = 0.0;
	for (int patch = 0; patch < 20000; patch++)
	{
		Patch pt = random_patch(rng, patch);
		double lon_mid = pt.lon_mid, lat_mid = pt.lat_mid;
		Vec3 q = unit_vector(geographic_point(pt.centre));
		ChordModel m = chord_model(q, radians(lon_mid), radians(lat_mid));
		for (int i = 0; i < 16; i++)
		{
			LonLat p = point_in(pt, rng, i);
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
 * The model about the grid point nearest a patch's middle is chord_model's
 * about that point, to the bit (its sines and cosines come from a table), and
 * its range holds every point of the patch, the poles and the antimeridian
 * included.
 */
TEST(ChordModel, GridModelIsTheModelAtTheGridPoint)
{
	std::mt19937_64 rng(37);
	std::uniform_real_distribution<double> u(0.0, 1.0);
	for (int patch = 0; patch < 20000; patch++)
	{
		Patch pt = random_patch(rng, patch);
		Vec3 q = unit_vector(geographic_point(pt.centre));
		double lon0 = radians(pt.lon_mid), lat0 = radians(pt.lat_mid);
		ChordModel g = chord_model_near(q, lon0, lat0);
		/* a patch past the antimeridian has its middle past the grid, which ends at +-pi */
		if (std::fabs(lon0) <= M_PI)
		{
			ASSERT_LE(std::fabs(g.lon0 - lon0), kChordGridStep / 2) << "patch " << patch;
		}
		ASSERT_LE(std::fabs(g.lat0 - lat0), kChordGridStep / 2) << "patch " << patch;
		ASSERT_EQ(std::remainder(g.lon0, kChordGridStep), 0.0) << "patch " << patch;
		ChordModel m = chord_model(q, g.lon0, g.lat0);
		ASSERT_EQ(memcmp(&g, &m, sizeof m), 0) << "patch " << patch;
		for (int i = 0; i < 16; i++)
		{
			LonLat p = point_in(pt, rng, i);
			double c2 = exact_chord2(p, q);
			Chord2Range r = chord_model_range(g, p.lon * (M_PI / 180.0), p.lat * (M_PI / 180.0));
			ASSERT_LE(r.lo, c2) << "patch " << patch << " point " << i;
			ASSERT_GE(r.hi, c2) << "patch " << patch << " point " << i;
		}
	}
	/* the grid's ends: the table covers them */
	Vec3 q = unit_vector(geographic_point(LonLat{10.0, 20.0}));
	for (double lon : {-M_PI, M_PI})
		for (double lat : {-M_PI / 2, M_PI / 2})
		{
			ChordModel g = chord_model_near(q, lon, lat);
			ChordModel m = chord_model(q, g.lon0, g.lat0);
			EXPECT_EQ(memcmp(&g, &m, sizeof m), 0) << lon << " " << lat;
		}
}

/* The point the chord bracket reads, over a: ecef_of the exact test's unit vector. */
Vec3
ellipsoid_point(LonLat p)
{
	Ecef e = ecef_of(unit_vector(geographic_point(stored_lonlat(p.lon, p.lat))));
	return Vec3{e.x / kWgs84A, e.y / kWgs84A, e.z / kWgs84A};
}

/* e(lon, lat) over a, of radians. */
Vec3
ellipsoid_at(double lon, double lat)
{
	Ecef e = ecef_of(unit_vector(GeoPoint{lon, lat}));
	return Vec3{e.x / kWgs84A, e.y / kWgs84A, e.z / kWgs84A};
}

/*
 * kEllipsoidModelThird bounds the third derivatives of the ellipsoid chord:
 * finite differences of e's third partials and of |e|^2's third derivative at
 * every latitude (a longitude's derivatives only turn e about the axis).
 */
TEST(ChordModel, EllipsoidThirdDerivativesAreBounded)
{
	const double h = 1e-3;
	auto d_lat = [&](auto f, double lat)
	{
		Vec3 a = f(lat + h), b = f(lat - h);
		return Vec3{(a.x - b.x) / (2 * h), (a.y - b.y) / (2 * h), (a.z - b.z) / (2 * h)};
	};
	auto d2_lat = [&](auto f, double lat)
	{
		Vec3 a = f(lat + h), m = f(lat), b = f(lat - h);
		return Vec3{(a.x - 2 * m.x + b.x) / (h * h), (a.y - 2 * m.y + b.y) / (h * h),
					(a.z - 2 * m.z + b.z) / (h * h)};
	};
	auto d3_lat = [&](auto f, double lat)
	{
		Vec3 a2 = f(lat + 2 * h), a1 = f(lat + h), b1 = f(lat - h), b2 = f(lat - 2 * h);
		return Vec3{(a2.x - 2 * a1.x + 2 * b1.x - b2.x) / (2 * h * h * h),
					(a2.y - 2 * a1.y + 2 * b1.y - b2.y) / (2 * h * h * h),
					(a2.z - 2 * a1.z + 2 * b1.z - b2.z) / (2 * h * h * h)};
	};
	const double lon = 0.7;
	/* e's derivatives in longitude, k times, as functions of the latitude */
	auto e_lon0 = [&](double lat) { return ellipsoid_at(lon, lat); };
	auto e_lon1 = [&](double lat)
	{
		Vec3 a = ellipsoid_at(lon + h, lat), b = ellipsoid_at(lon - h, lat);
		return Vec3{(a.x - b.x) / (2 * h), (a.y - b.y) / (2 * h), 0.0};
	};
	auto e_lon2 = [&](double lat)
	{
		Vec3 a = ellipsoid_at(lon + h, lat), m = ellipsoid_at(lon, lat),
			 b = ellipsoid_at(lon - h, lat);
		return Vec3{(a.x - 2 * m.x + b.x) / (h * h), (a.y - 2 * m.y + b.y) / (h * h), 0.0};
	};
	auto norm2 = [](double lat)
	{
		Vec3 e = ellipsoid_at(0.0, lat);
		return Vec3{dot(e, e), 0.0, 0.0};
	};
	double worst_e = 0.0, worst_h = 0.0;
	for (int i = 0; i <= 3000; i++)
	{
		double lat = -M_PI / 2 + 2 * h + (M_PI - 4 * h) * i / 3000.0;
		Vec3 parts[4] = {d3_lat(e_lon0, lat), d2_lat(e_lon1, lat), d_lat(e_lon2, lat),
						 /* the third in longitude: the first turned a quarter turn twice */
						 Vec3{-e_lon1(lat).x, -e_lon1(lat).y, 0.0}};
		for (const Vec3 &v : parts)
			worst_e = std::max(worst_e, std::sqrt(dot(v, v)));
		worst_h = std::max(worst_h, std::fabs(d3_lat(norm2, lat).x));
	}
	/* the values the header states, and what f's bound is made of (|centre| <= 1) */
	EXPECT_NEAR(worst_e, 1.0237, 0.002);
	EXPECT_NEAR(worst_h, 0.0268, 0.002);
	EXPECT_LT(2.0 * worst_e + worst_h, kEllipsoidModelThird * 0.95);
}

/* The ellipsoid chord model against the chord the bracket computes, on patches as above. */
TEST(ChordModel, EllipsoidRangeHoldsTheBracketsChord)
{
	std::mt19937_64 rng(33);
	double widest = 0.0;
	for (int patch = 0; patch < 20000; patch++)
	{
		Patch pt = random_patch(rng, patch);
		double lon_mid = pt.lon_mid, lat_mid = pt.lat_mid;
		Vec3 ce = ellipsoid_point(pt.centre);
		ChordModel m =
			ellipsoid_chord_model(Ecef{ce.x, ce.y, ce.z}, radians(lon_mid), radians(lat_mid));
		for (int i = 0; i < 16; i++)
		{
			LonLat p = point_in(pt, rng, i);
			Vec3 pe = ellipsoid_point(p);
			Vec3 d{pe.x - ce.x, pe.y - ce.y, pe.z - ce.z};
			double e2 = dot(d, d);
			Chord2Range r = chord_model_range(m, p.lon * (M_PI / 180.0), p.lat * (M_PI / 180.0));
			ASSERT_LE(r.lo, e2) << "patch " << patch << " point " << i;
			ASSERT_GE(r.hi, e2) << "patch " << patch << " point " << i;
			double s = std::fabs(radians(p.lon - lon_mid)) + std::fabs(radians(p.lat - lat_mid));
			if (s > 1e-3)
				widest =
					std::max(widest, std::fabs(e2 - 0.5 * (r.lo + r.hi)) / (s * s * s * m.third));
		}
	}
	/* second-order terms right: what is left is the third order's, a good part of the bound */
	EXPECT_GT(widest, 0.1);
	EXPECT_LT(widest, 1.0);
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
	long decided = 0, points = 0, band = 0, band_decided = 0;
	for (int trial = 0; trial < 400; trial++)
	{
		LonLat c{-180.0 + 360.0 * u(rng), std::asin(2.0 * u(rng) - 1.0) * 180.0 / M_PI};
		if (trial % 7 == 0)
			c = LonLat{179.9, 0.5};
		GeoPoint cg = geographic_point(c);
		Vec3 q = unit_vector(cg);
		double radius = 1e3 * std::pow(10.0, 4.0 * u(rng)); /* 1 km to 10,000 km */
		std::vector<RegionTest> regions = chord_key_case(trial % kChordKeyCases, c, cg, radius);
		SpatialKeys keys = spatial_keys(regions.data(), (int) regions.size());
		ChordKeys ck = chord_keys(keys, q);
		/* patches on the circle: at the radius from the centre, bearing at random */
		for (int patch = 0; patch < 20; patch++)
		{
			double span = 0.002 + 0.5 * u(rng) * u(rng);
			LonLat on = point_on_circle(cg, radius, 2.0 * M_PI * u(rng));
			double lon = on.lon, lat = on.lat;
			ChordModel m = chord_model(q, lon, lat);
			Ecef ce = ecef_of(q);
			ChordModel em = ellipsoid_chord_model(
				Ecef{ce.x / kWgs84A, ce.y / kWgs84A, ce.z / kWgs84A}, lon, lat);
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
				if (by_chord < 0 && ck.ellipsoid && span <= 0.5 * kChordModelMaxSpan * 180 / M_PI)
				{
					/* the band: the bracket's tests on the ellipsoid model (knn_search.cc) */
					Chord2Range er = chord_model_range(em, radians(p.lon), radians(p.lat));
					int by_ellipsoid = chord_keys_match_ellipsoid(ck, p.lat, r, er);
					if (trial % 5 == 4)
					{
						ASSERT_NE(by_ellipsoid, 1) << "a key around another centre decided a point";
					}
					band += trial % 5 != 4;
					if (by_ellipsoid >= 0)
					{
						band_decided += trial % 5 != 4;
						ASSERT_EQ(by_ellipsoid == 1, exact)
							<< "trial " << trial << " patch " << patch << " (ellipsoid)";
					}
				}
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
	/* and most of what the sphere's tests leave, by the ellipsoid's */
	EXPECT_GT(band, 1000);
	EXPECT_GT(band_decided, band / 2) << band_decided << " of " << band;
}

} // namespace
