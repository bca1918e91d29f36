/*
 * The bounds of sphere_bounds.h against the exact PostGIS distances of
 * geodesy.h on millions of fixed-seed random pairs, concentrated where the
 * bounds are tightest or the arithmetic is worst: the poles, the antimeridian,
 * near-antipodes, near-identical points (down into PostGIS's 1e-12 radian
 * "same point" snap), the equator and the meridians (where the spheroid/sphere
 * ratio reaches its extremes).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "geodesy.h"
#include "sphere_bounds.h"

namespace
{

using namespace geoidx;

class Gen
{
public:
	explicit Gen(uint64_t seed) : rng_(seed) {}

	double
	uni(double lo, double hi)
	{
		return std::uniform_real_distribution<double>(lo, hi)(rng_);
	}
	/* 10^u for u uniform in [lo_exp, hi_exp) */
	double
	log_uni(double lo_exp, double hi_exp)
	{
		return std::pow(10.0, uni(lo_exp, hi_exp));
	}
	double
	sign()
	{
		return (rng_() & 1) ? 1.0 : -1.0;
	}
	/* true with probability p */
	bool
	chance(double p)
	{
		return uni(0, 1) < p;
	}
	size_t
	below(size_t n)
	{
		return static_cast<size_t>(rng_() % n);
	}
	/* uniform on the sphere, degrees */
	LonLat
	sphere()
	{
		return LonLat{uni(-180, 180), std::asin(uni(-1, 1)) * 180 / M_PI};
	}

private:
	std::mt19937_64 rng_;
};

/* The geography cast: raw degrees -> in-range degrees. */
LonLat
cast(double lon, double lat)
{
	LonLat out{0, 0};
	CoordCheck c = normalize_like_geography(lon, lat, &out);
	EXPECT_NE(c, CoordCheck::not_finite);
	return out;
}

std::string
pt(LonLat p)
{
	std::ostringstream s;
	s.precision(17);
	s << "POINT(" << p.lon << " " << p.lat << ")";
	return s.str();
}

struct Failures
{
	long count = 0;
	std::vector<std::string> first;

	void
	add(const std::string &what)
	{
		if (count++ < 8)
			first.push_back(what);
	}
	std::string
	report() const
	{
		std::string s = std::to_string(count) + " failures; first:";
		for (const std::string &f : first)
			s += "\n  " + f;
		return s;
	}
};

/*
 * The distances PostGIS can give for (a, b): ST_DWithin compares the raw
 * distance, ST_Distance returns it rounded to 10 nm (geodesy_test checks that
 * the rounding moves it by at most 5e-9 m, so raw -+ 5e-9 covers both), and on
 * the sphere the formula is not symmetric in its arguments in the last ulp.
 */
struct Exact
{
	double raw; /* ST_DWithin's distance, (a, b) order */
	double lo;  /* least distance PostGIS can report for the pair */
	double hi;
};

Exact
exact(GeoPoint a, GeoPoint b, bool use_spheroid)
{
	if (use_spheroid)
	{
		double d = spheroid_distance(a, b);
		return Exact{d, std::max(0.0, d - 5e-9), d + 5e-9};
	}
	double raw = kSphereRadius * sphere_central_angle(a, b);
	double rev = kSphereRadius * sphere_central_angle(b, a);
	double rounded = st_distance(a, b, false);
	return Exact{raw, std::min({raw, rev, rounded}), std::max({raw, rev, rounded})};
}

enum PairKind
{
	kUniform,
	kPoles,
	kAntimeridian,
	kAntipodal,
	kIdentical,
	kEquator,
	kMeridian,
	kPairKinds
};

const char *const kPairKindName[kPairKinds] = {
	"uniform", "poles", "antimeridian", "near-antipodal", "near-identical", "equator", "meridian",
};

/* A raw (uncast) pair of the given kind. */
void
make_pair(Gen &g, PairKind kind, double out[4])
{
	LonLat p = g.sphere(), q = g.sphere();
	double plon = p.lon, plat = p.lat, qlon = q.lon, qlat = q.lat;
	switch (kind)
	{
		case kUniform:
			break;
		case kPoles:
		{
			double pole = g.sign() * 90;
			plat = pole - std::copysign(g.chance(0.05) ? 0.0 : g.log_uni(-12, -1), pole);
			bool same = g.chance(0.8);
			double qpole = same ? pole : -pole;
			qlat = qpole - std::copysign(g.chance(0.05) ? 0.0 : g.log_uni(-12, -1), qpole);
			if (g.chance(0.3))
				qlon = plon + g.sign() * (g.chance(0.5) ? 180.0 : g.log_uni(-12, 2));
			break;
		}
		case kAntimeridian:
		{
			/* exactly on it, just inside, nudged onto it, or wrapped across it */
			double side[2];
			for (double &s : side)
			{
				double u = g.uni(0, 1);
				if (u < 0.1)
					s = 180;
				else if (u < 0.2)
					s = 180 + 5e-11;
				else if (u < 0.3)
					s = 180 + g.log_uni(-9, 0);
				else
					s = 180 - g.log_uni(-12, 1);
			}
			plon = side[0];
			qlon = -side[1];
			if (g.chance(0.5))
				std::swap(plon, qlon);
			if (g.chance(0.7))
				qlat = plat + g.sign() * g.log_uni(-12, 1);
			break;
		}
		case kAntipodal:
		{
			if (g.chance(0.1))
				plat = g.sign() * (90 - g.log_uni(-12, 0));
			if (g.chance(0.1))
				plat = g.sign() * g.log_uni(-12, 0);
			double dlon = g.chance(0.15) ? 0.0 : g.sign() * g.log_uni(-13, 0);
			double dlat = g.chance(0.15) ? 0.0 : g.sign() * g.log_uni(-13, 0);
			qlon = plon + 180 + dlon;
			qlat = -plat + dlat;
			break;
		}
		case kIdentical:
		{
			/* 1e-9 .. 1e-3 degree apart, and a quarter below 1e-9 (PostGIS's same-point snap) */
			double lo = g.chance(0.25) ? -14 : -9, hi = lo < -9 ? -9 : -3;
			qlon = plon + (g.chance(0.2) ? 0.0 : g.sign() * g.log_uni(lo, hi));
			qlat = plat + (g.chance(0.2) ? 0.0 : g.sign() * g.log_uni(lo, hi));
			if (g.chance(0.1))
				plat = qlat = g.sign() * (90 - g.log_uni(-6, 0));
			break;
		}
		case kEquator:
			plat = qlat = 0;
			if (g.chance(0.5))
				qlon = plon + g.sign() * g.log_uni(-10, 2.3);
			break;
		case kMeridian:
			qlon = g.chance(0.3) ? plon + 180 : plon;
			if (g.chance(0.5))
				qlat = plat + g.sign() * g.log_uni(-10, 2);
			break;
		default:
			break;
	}
	out[0] = plon;
	out[1] = plat;
	out[2] = qlon;
	out[3] = qlat;
}

long
env_scale()
{
	/* GEOIDX_TEST_SCALE=10 runs ten times as many random cases. */
	const char *s = std::getenv("GEOIDX_TEST_SCALE");
	long v = s ? std::atol(s) : 1;
	return v > 0 ? v : 1;
}

} // namespace

/*
 * metres_lower_bound(angle) <= exact <= metres_upper_bound(angle), angle from
 * the chord of the two unit vectors, for both use_spheroid values.
 */
TEST(SphereBounds, PairBoundsNeverCrossTheExactDistance)
{
	const long per_kind[kPairKinds] = {600000, 200000, 200000, 300000, 300000, 200000, 200000};
	const long scale = env_scale();
	Gen g(20240601);
	Failures fail, loose;
	long pairs = 0, checks = 0;
	for (int k = 0; k < kPairKinds; k++)
	{
		for (long i = 0; i < per_kind[k] * scale; i++)
		{
			double raw[4];
			make_pair(g, static_cast<PairKind>(k), raw);
			LonLat p = cast(raw[0], raw[1]), q = cast(raw[2], raw[3]);
			GeoPoint a = geographic_point(p), b = geographic_point(q);
			double angle = chord2_to_angle(chord2(unit_vector(a), unit_vector(b)));
			for (bool s : {false, true})
			{
				Exact e = exact(a, b, s);
				double lb = metres_lower_bound(angle, s), ub = metres_upper_bound(angle, s);
				if (!(lb <= e.lo) || !(e.hi <= ub))
				{
					std::ostringstream m;
					m.precision(17);
					m << kPairKindName[k] << " " << pt(p) << " " << pt(q) << " use_spheroid=" << s
					  << " lb=" << lb << " exact=[" << e.lo << "," << e.hi << "] ub=" << ub;
					fail.add(m.str());
				}
				/* and they are worth having: at most the spheroid/sphere ratio apart */
				double allowed =
					s ? 0.0102 * e.hi + 1e-4 : (angle < 3.1 ? 1e-8 * e.hi + 1e-4 : 4.0);
				if (!(ub - lb <= allowed))
				{
					std::ostringstream m;
					m.precision(17);
					m << "loose: " << kPairKindName[k] << " " << pt(p) << " " << pt(q)
					  << " use_spheroid=" << s << " lb=" << lb << " ub=" << ub;
					loose.add(m.str());
				}
				checks += 3;
			}
			pairs++;
		}
	}
	EXPECT_EQ(fail.count, 0) << fail.report();
	EXPECT_EQ(loose.count, 0) << loose.report();
	std::printf("[ stats    ] %ld pairs, %ld lower/upper/tightness checks\n", pairs, checks);
	RecordProperty("pairs", std::to_string(pairs));
}

namespace
{

struct BoxCase
{
	Box3 box;
	std::vector<LonLat> inside; /* degrees, cast */
	std::vector<GeoPoint> geo;
	LonLat center;
	double extent;
};

BoxCase
make_box(Gen &g)
{
	BoxCase c;
	c.center = g.sphere();
	double u = g.uni(0, 1);
	if (u < 0.1)
		c.center.lat = g.sign() * (90 - g.log_uni(-8, 0.5));
	else if (u < 0.2)
		c.center.lon = g.sign() * (180 - g.log_uni(-8, 0.5));
	c.extent = g.chance(0.05) ? 400.0 : g.log_uni(-7, 2);
	c.box = box_empty();
	size_t members = 2 + g.below(23);
	auto candidate = [&](double spread)
	{
		if (c.extent > 200)
			return g.sphere();
		return cast(c.center.lon + g.uni(-spread, spread), c.center.lat + g.uni(-spread, spread));
	};
	for (size_t i = 0; i < members; i++)
	{
		LonLat p = candidate(c.extent);
		box_extend(&c.box, unit_vector(geographic_point(p)));
		c.inside.push_back(p);
	}
	/* Other points that happen to fall inside the box count too. */
	for (int i = 0; i < 24; i++)
	{
		LonLat p = candidate(c.extent * 1.3);
		if (box_contains(c.box, unit_vector(geographic_point(p))))
			c.inside.push_back(p);
	}
	for (const LonLat &p : c.inside)
		c.geo.push_back(geographic_point(p));
	return c;
}

LonLat
make_query(Gen &g, const BoxCase &c, int which)
{
	switch (which)
	{
		case 0:
			return g.sphere();
		case 1:
			return cast(c.center.lon + g.sign() * g.log_uni(-7, 1),
						c.center.lat + g.sign() * g.log_uni(-7, 1));
		case 2: /* near the antipode of the box */
			return cast(c.center.lon + 180 + g.sign() * g.log_uni(-12, 0),
						-c.center.lat + g.sign() * g.log_uni(-12, 0));
		case 3:
			return cast(g.uni(-180, 180), g.sign() * (90 - g.log_uni(-10, 0)));
		case 4: /* one of the points itself */
			return c.inside[g.below(c.inside.size())];
		default:
		{
			LonLat m = c.inside[g.below(c.inside.size())];
			return cast(m.lon + 180, -m.lat);
		}
	}
}

} // namespace

/*
 * Boxes built from random points: the min_chord2 lower bound and the max_chord2
 * upper bound hold for every point inside; classify_box says inside only if
 * every point inside is within and outside only if none is; point_within
 * agrees with st_dwithin on all of them.
 */
TEST(SphereBounds, BoxBoundsAndClassify)
{
	const long boxes = 1000 * env_scale();
	Gen g(8675309);
	Failures bound_fail, verdict_fail, within_fail;
	long bound_checks = 0, points_checked = 0, within_checks = 0;
	long verdicts[3] = {0, 0, 0};
	for (long n = 0; n < boxes; n++)
	{
		BoxCase c = make_box(g);
		for (int which = 0; which < 6; which++)
		{
			LonLat ql = make_query(g, c, which);
			GeoPoint q = geographic_point(ql);
			Vec3 qv = unit_vector(q);
			double lo_angle = chord2_to_angle(min_chord2(c.box, qv));
			double hi_angle = chord2_to_angle(max_chord2(c.box, qv));
			for (bool s : {false, true})
			{
				double lb = metres_lower_bound(lo_angle, s), ub = metres_upper_bound(hi_angle, s);
				std::vector<double> dist;
				for (size_t i = 0; i < c.geo.size(); i++)
				{
					Exact e = exact(q, c.geo[i], s);
					dist.push_back(e.raw);
					if (!(lb <= e.lo) || !(e.hi <= ub))
					{
						std::ostringstream m;
						m.precision(17);
						m << "box extent " << c.extent << " query " << pt(ql) << " point "
						  << pt(c.inside[i]) << " use_spheroid=" << s << " lb=" << lb << " exact=["
						  << e.lo << "," << e.hi << "] ub=" << ub;
						bound_fail.add(m.str());
					}
					bound_checks += 2;
					points_checked++;
				}
				/* radii: anywhere, at a point's exact distance and one ulp either side, the bounds
				 */
				double d = dist[g.below(dist.size())];
				const double radii[] = {g.uni(0, 2.0e7),
										g.log_uni(-3, 7.3),
										d,
										std::nextafter(d, 0.0),
										std::nextafter(d, 1e300),
										lb,
										ub,
										0.5 * (lb + ub)};
				for (double r : radii)
				{
					RadiusTest t = radius_test(q, r, s);
					Verdict v = classify_box(t, c.box);
					verdicts[static_cast<int>(v)]++;
					for (size_t i = 0; i < c.geo.size(); i++)
					{
						bool within = st_dwithin(q, c.geo[i], r, s);
						if ((v == Verdict::inside && !within) || (v == Verdict::outside && within))
						{
							std::ostringstream m;
							m.precision(17);
							m << "verdict " << static_cast<int>(v) << " query " << pt(ql)
							  << " radius " << r << " point " << pt(c.inside[i])
							  << " use_spheroid=" << s << " st_dwithin=" << within;
							verdict_fail.add(m.str());
						}
						if (point_within(t, c.inside[i]) != within)
						{
							std::ostringstream m;
							m.precision(17);
							m << "point_within center " << pt(ql) << " radius " << r << " point "
							  << pt(c.inside[i]) << " use_spheroid=" << s
							  << " st_dwithin=" << within;
							within_fail.add(m.str());
						}
						within_checks++;
					}
				}
			}
		}
	}
	EXPECT_EQ(bound_fail.count, 0) << bound_fail.report();
	EXPECT_EQ(verdict_fail.count, 0) << verdict_fail.report();
	EXPECT_EQ(within_fail.count, 0) << within_fail.report();
	/* The test has teeth only if all three verdicts occur often. */
	EXPECT_GT(verdicts[static_cast<int>(Verdict::inside)], boxes);
	EXPECT_GT(verdicts[static_cast<int>(Verdict::outside)], boxes);
	EXPECT_GT(verdicts[static_cast<int>(Verdict::maybe)], boxes);
	std::printf("[ stats    ] %ld boxes, %ld box/point bound checks, %ld verdict+point_within "
				"checks (verdicts outside %ld inside %ld maybe %ld)\n",
				boxes, bound_checks, within_checks, verdicts[0], verdicts[1], verdicts[2]);
}

/*
 * point_within(radius_test(center, r), p) == st_dwithin(center, p, r) for random
 * radii and for radii exactly at the distance and one ulp either side of it.
 */
TEST(SphereBounds, PointWithinEqualsStDWithin)
{
	const long pairs = 80000 * env_scale();
	Gen g(31337);
	Failures fail;
	long checks = 0, within_true = 0;
	for (long n = 0; n < pairs; n++)
	{
		LonLat cl;
		int kind = static_cast<int>(n % 5);
		if (kind == 1)
			cl = cast(g.uni(-180, 180), g.sign() * (90 - g.log_uni(-10, 0.5)));
		else if (kind == 2)
			cl = cast(g.sign() * (180 - g.log_uni(-10, 0.5)), g.uni(-80, 80));
		else
			cl = g.sphere();
		LonLat pl;
		double u = g.uni(0, 1);
		if (u < 0.5)
			pl = cast(cl.lon + g.sign() * g.log_uni(-14, 1.5),
					  cl.lat + g.sign() * g.log_uni(-14, 1.5));
		else if (u < 0.65)
			pl = cast(cl.lon + 180 + g.sign() * g.log_uni(-12, 0),
					  -cl.lat + g.sign() * g.log_uni(-12, 0));
		else if (u < 0.7)
			pl = cl;
		else
			pl = g.sphere();
		GeoPoint c = geographic_point(cl), p = geographic_point(pl);
		for (bool s : {false, true})
		{
			double d = s ? spheroid_distance(c, p) : kSphereRadius * sphere_central_angle(c, p);
			const double radii[] = {d,
									std::nextafter(d, 0.0),
									std::nextafter(d, 1e300),
									st_distance(c, p, s),
									d * (1 + g.sign() * g.log_uni(-12, -1)),
									g.uni(0, 2.0e7),
									0.0};
			for (double r : radii)
			{
				bool want = st_dwithin(c, p, r, s);
				RadiusTest t = radius_test(c, r, s);
				bool got = point_within(t, pl);
				/* a box of one point: the chord thresholds alone, without the exact fallback */
				Verdict v = classify_box(t, box_of(unit_vector(p)));
				if (got != want || (v == Verdict::inside && !want) ||
					(v == Verdict::outside && want))
				{
					std::ostringstream m;
					m.precision(17);
					m << "center " << pt(cl) << " point " << pt(pl) << " radius " << r
					  << " use_spheroid=" << s << " st_dwithin=" << want << " point_within=" << got
					  << " verdict=" << static_cast<int>(v);
					fail.add(m.str());
				}
				within_true += want;
				checks += 2;
			}
		}
	}
	EXPECT_EQ(fail.count, 0) << fail.report();
	EXPECT_GT(within_true, checks / 8);
	EXPECT_LT(within_true, checks * 3 / 8);
	std::printf(
		"[ stats    ] %ld center/point pairs, %ld point_within + one-point classify_box checks\n",
		pairs, checks);
}

/* PostGIS reports 0 for points within 1e-12 rad in lat and lon (FP_EQUALS). */
TEST(SphereBounds, SamePointSnapIsWithinZero)
{
	const LonLat center{0, 0};
	const LonLat near[] = {{0, 5e-11}, {3e-11, 3e-11}, {-5.7e-11, 5.7e-11}, {0, 0}};
	for (bool s : {false, true})
		for (const LonLat &p : near)
		{
			GeoPoint c = geographic_point(center), g = geographic_point(p);
			ASSERT_TRUE(st_dwithin(c, g, 0.0, s)) << pt(p);
			EXPECT_TRUE(point_within(radius_test(c, 0.0, s), p)) << pt(p) << " use_spheroid=" << s;
			double angle = chord2_to_angle(chord2(unit_vector(c), unit_vector(g)));
			EXPECT_LE(metres_lower_bound(angle, s), st_distance(c, g, s)) << pt(p);
			Box3 b = box_of(unit_vector(g));
			EXPECT_NE(classify_box(radius_test(c, 0.0, s), b), Verdict::outside) << pt(p);
		}
}

TEST(SphereBounds, BoxBasics)
{
	Box3 e = box_empty();
	EXPECT_TRUE(box_is_empty(e));
	EXPECT_EQ(classify_box(radius_test(GeoPoint{0, 0}, 1e7, true), e), Verdict::outside);
	Vec3 x{1, 0, 0}, y{0, 1, 0}, z{0, 0, 1};
	Box3 b = box_of(x);
	EXPECT_FALSE(box_is_empty(b));
	EXPECT_TRUE(box_contains(b, x));
	EXPECT_FALSE(box_contains(b, y));
	EXPECT_DOUBLE_EQ(box_enlargement(b, y), 2.0); /* the x and y extents both grow by 1 */
	box_extend(&b, y);
	EXPECT_TRUE(box_contains(b, Vec3{0.5, 0.5, 0}));
	EXPECT_DOUBLE_EQ(box_margin(b), 2.0);
	EXPECT_EQ(box_enlargement(b, x), 0.0);
	Box3 c = box_of(z);
	EXPECT_FALSE(box_contains(b, c));
	box_extend(&c, b);
	EXPECT_TRUE(box_contains(c, b));
	EXPECT_TRUE(box_contains(c, e));
	/* nearest point of [0,1]x[0,1]x[0,0] to z is (0,0,0), the farthest (1,1,0) */
	EXPECT_DOUBLE_EQ(min_chord2(b, z), 1.0);
	EXPECT_DOUBLE_EQ(max_chord2(b, z), 3.0);
	EXPECT_DOUBLE_EQ(chord2(x, y), 2.0);
	EXPECT_DOUBLE_EQ(chord2_to_angle(2.0), M_PI / 2);
	EXPECT_DOUBLE_EQ(chord2_to_angle(4.0), M_PI);
	EXPECT_EQ(chord2_to_angle(0.0), 0.0);
	EXPECT_DOUBLE_EQ(chord2_to_angle(1.0), M_PI / 3);
	/* unit_vector of lon 90, lat 0 is +y; of lat 90 is +z */
	Vec3 v = unit_vector(GeoPoint{M_PI / 2, 0});
	EXPECT_NEAR(v.x, 0, 1e-16);
	EXPECT_DOUBLE_EQ(v.y, 1);
	EXPECT_DOUBLE_EQ(unit_vector(GeoPoint{0.3, M_PI_2}).z, 1);
}

/*
 * max_of is std::max, NaN, signed zeros and infinities included (the chord
 * bounds of a corrupted box must come out as they did with std::max), and the
 * chord bounds built on it equal the per-axis nearest and farthest corners
 * written with std::max.
 */
TEST(SphereBounds, MaxOfIsStdMax)
{
	const double nan = std::numeric_limits<double>::quiet_NaN();
	const double inf = std::numeric_limits<double>::infinity();
	const double vals[] = {0.0, -0.0, 1.0, -1.0, 1e-300, -1e-300, 0.5, inf, -inf, nan};
	for (double a : vals)
		for (double b : vals)
		{
			double want = std::max(a, b), got = max_of(a, b);
			if (std::isnan(want))
				EXPECT_TRUE(std::isnan(got)) << a << " " << b;
			else
			{
				EXPECT_EQ(got, want) << a << " " << b;
				EXPECT_EQ(std::signbit(got), std::signbit(want)) << a << " " << b;
			}
		}

	Gen g(20261207);
	for (int n = 0; n < 200000; n++)
	{
		Box3 b;
		for (int i = 0; i < 3; i++)
		{
			double x = g.uni(-1.0, 1.0), y = g.uni(-1.0, 1.0);
			b.lo[i] = std::min(x, y);
			b.hi[i] = std::max(x, y);
		}
		if (n % 1000 == 0)
			b.lo[n / 1000 % 3] = nan;
		Vec3 q = unit_vector(geographic_point(LonLat{g.uni(-180.0, 180.0), g.uni(-90.0, 90.0)}));
		const double c[3] = {q.x, q.y, q.z};
		double lo = 0.0, hi = 0.0;
		for (int i = 0; i < 3; i++)
		{
			double d = std::max(0.0, b.lo[i] - c[i]) + std::max(0.0, c[i] - b.hi[i]);
			double e = std::max(std::fabs(c[i] - b.lo[i]), std::fabs(c[i] - b.hi[i]));
			lo += d * d;
			hi += e * e;
		}
		EXPECT_TRUE(min_chord2(b, q) == lo || (std::isnan(lo) && std::isnan(min_chord2(b, q))));
		EXPECT_TRUE(max_chord2(b, q) == hi || (std::isnan(hi) && std::isnan(max_chord2(b, q))));
	}
}

/*
 * The latitude-only bound (meridional arc between the parallels) never exceeds
 * PostGIS's distance; on a meridian, where it is tight, it stays within the
 * slack of it.
 */
TEST(SphereBounds, LatitudeBoundNeverExceedsDistance)
{
	std::mt19937_64 rng(4242);
	std::uniform_real_distribution<double> lon(-180.0, 180.0), lat(-90.0, 90.0), small(-1.0, 1.0);
	int checked = 0;
	for (int i = 0; i < 200000; i++)
	{
		geoidx::LonLat a{lon(rng), lat(rng)};
		geoidx::LonLat b;
		switch (i % 4)
		{
			case 0:
				b = {lon(rng), lat(rng)};
				break;
			case 1:
				b = {a.lon, std::max(-90.0, std::min(90.0, a.lat + small(rng)))};
				break; /* meridian */
			case 2:
				b = {a.lon + 1e-6 * small(rng),
					 std::max(-90.0, std::min(90.0, a.lat + 1e-9 * small(rng)))};
				break;
			default:
				b = {lon(rng), a.lat > 0 ? 89.9 + 0.1 * std::fabs(small(rng))
										 : -89.9 - 0.1 * std::fabs(small(rng))};
				break;
		}
		geoidx::GeoPoint ga = geoidx::geographic_point(a), gb = geoidx::geographic_point(b);
		for (bool spheroid : {true, false})
		{
			double exact = geoidx::st_distance(ga, gb, spheroid);
			double lb = geoidx::metres_lower_bound_dlat(a.lat, b.lat, spheroid);
			ASSERT_LE(lb, exact) << "POINT(" << a.lon << " " << a.lat << ") POINT(" << b.lon << " "
								 << b.lat << ") spheroid=" << spheroid;
			checked++;
		}
	}
	EXPECT_EQ(checked, 400000);
}
