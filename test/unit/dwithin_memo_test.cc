/*
 * geoidx_dwithin's per-row memo against brute force: every call must answer
 * ST_DWithin(a, b, r, use_spheroid) exactly as st_dwithin(a, b) does without
 * any memo (PostGIS's arithmetic in PostGIS's argument order, checked against
 * PROJ and PostGIS in geodesy_test), whichever argument is the constant one,
 * on radii exactly at a pair's distance in either argument order, and with
 * raw coordinates that the geography cast wraps. The centre choice is checked
 * against the rule the header states.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "dwithin_memo.h"
#include "geodesy.h"

namespace
{

using namespace geoidx;

/* A raw point, sometimes outside the range the cast wraps into, and its cast. */
struct Arg
{
	RawPoint raw;
	LonLat ll;
};

Arg
cast(double x, double y)
{
	Arg a;
	a.raw = RawPoint{x, y};
	EXPECT_NE(normalize_like_geography(x, y, &a.ll), CoordCheck::not_finite);
	return a;
}

Arg
random_arg(std::mt19937_64 &rng, bool wrapped)
{
	std::uniform_real_distribution<double> u(-1.0, 1.0);
	double x = 180.0 * u(rng), y = std::asin(u(rng)) * 180.0 / M_PI;
	if (wrapped)
		x += 360.0; /* the cast brings it back: same place, other raw key */
	return cast(x, y);
}

Arg
near(std::mt19937_64 &rng, const Arg &c, double spread_deg)
{
	std::uniform_real_distribution<double> u(-spread_deg, spread_deg);
	return cast(c.ll.lon + u(rng), c.ll.lat + u(rng));
}

/* The answer with no memo: PostGIS's ST_DWithin(a, b) in the caller's order. */
bool
reference(const Arg &a, const Arg &b, double r, bool spheroid)
{
	return st_dwithin(geographic_point(a.ll), geographic_point(b.ll), r, spheroid);
}

/* Radii that sit exactly on the pair's distance, in either argument order. */
void
boundary_radii(const Arg &a, const Arg &b, bool spheroid, double out[3])
{
	GeoPoint ga = geographic_point(a.ll), gb = geographic_point(b.ll);
	out[0] = kSphereRadius * sphere_central_angle(ga, gb);
	out[1] = kSphereRadius * sphere_central_angle(gb, ga);
	out[2] = st_distance(ga, gb, spheroid);
}

/* Check one call of the memo against the reference; return the reference's answer. */
bool
check_call(DwithinMemo *m, const Arg &a, const Arg &b, double r, bool spheroid)
{
	bool want = reference(a, b, r, spheroid);
	EXPECT_EQ(dwithin_memo_test(m, a.raw, a.ll, b.raw, b.ll, r, spheroid), want)
		<< "r " << r << " spheroid " << spheroid << " a " << a.raw.x << " " << a.raw.y << " b "
		<< b.raw.x << " " << b.raw.y;
	return want;
}

DwithinMemo
empty_memo()
{
	DwithinMemo m;
	std::memset(&m, 0, sizeof m); /* as the glue allocates it: zeroed */
	return m;
}

} // namespace

/* A scan: one argument constant, the other the row, as geoidx_dwithin(pos, c) or (c, pos). */
TEST(DwithinMemo, ScanWithEitherArgumentConstantEqualsBruteForce)
{
	std::mt19937_64 rng(17);
	const double radii[] = {0.0, 1.0, 250.0, 1e4, 3e5, 5e6, 2.1e7};
	long checked = 0, inside = 0;
	for (int q = 0; q < 200; q++)
	{
		Arg centre = random_arg(rng, q % 4 == 0);
		for (double r : radii)
			for (bool spheroid : {true, false})
				for (bool centre_first : {false, true})
				{
					DwithinMemo m = empty_memo();
					for (int i = 0; i < 30; i++)
					{
						Arg row = (i % 3 == 0) ? random_arg(rng, i % 2 == 0)
											   : near(rng, centre, r / 1e5 + 0.01);
						inside += centre_first ? check_call(&m, centre, row, r, spheroid)
											   : check_call(&m, row, centre, r, spheroid);
						checked++;
					}
				}
	}
	/* both answers occur often: neither a constant false nor true passes */
	EXPECT_GT(inside, checked / 10);
	EXPECT_LT(inside, checked - checked / 10);
}

/*
 * Radii exactly at a pair's distance: on the sphere PostGIS's angle of (a, b)
 * and (b, a) differ in the last bits, so the memo must decide in the call's
 * order even when its test is centred on b.
 */
TEST(DwithinMemo, BoundaryRadiiFollowTheArgumentOrder)
{
	std::mt19937_64 rng(23);
	long asymmetric = 0;
	for (bool centre_first : {false, true})
		for (bool spheroid : {false, true})
		{
			Arg centre = random_arg(rng, false);
			for (int i = 0; i < 20000; i++)
			{
				Arg row = (i % 2) ? near(rng, centre, 0.5) : random_arg(rng, false);
				const Arg &a = centre_first ? centre : row;
				const Arg &b = centre_first ? row : centre;
				double radii[3];
				boundary_radii(a, b, spheroid, radii);
				for (double r : radii)
				{
					/* a fresh memo per radius would hide nothing: keep one per radius change */
					DwithinMemo m = empty_memo();
					(void) dwithin_memo_test(&m, a.raw, a.ll, b.raw, b.ll, r, spheroid);
					bool want = reference(a, b, r, spheroid);
					ASSERT_EQ(dwithin_memo_test(&m, a.raw, a.ll, b.raw, b.ll, r, spheroid), want)
						<< i;
					asymmetric += want != reference(b, a, r, spheroid);
				}
			}
		}
	/* the orders do differ sometimes, so the order of the exact test is exercised */
	EXPECT_GT(asymmetric, 0);
}

/*
 * The cheap verdicts alone (what geoidx_nearer and geoidx_beyond take from
 * the memo): inside means the distance is below the radius, outside above it,
 * strictly, even at radii a bit either side of a pair's own distance; and
 * they decide most rows, or the memo would spare nothing.
 */
TEST(DwithinMemo, ClassifyIsStrictAgainstTheDistance)
{
	std::mt19937_64 rng(31);
	long decided = 0, calls = 0;
	for (bool spheroid : {true, false})
		for (int q = 0; q < 40; q++)
		{
			Arg centre = random_arg(rng, q % 5 == 0);
			GeoPoint gc = geographic_point(centre.ll);
			for (int i = 0; i < 2000; i++)
			{
				Arg row = (i % 4 == 0) ? random_arg(rng, false) : near(rng, centre, 3.0);
				double d = st_distance(gc, geographic_point(row.ll), spheroid);
				double radii[5] = {d, std::nextafter(d, 0.0), std::nextafter(d, 1e300),
								   d * (1.0 + 1e-9), 250000.0};
				for (double r : radii)
				{
					if (!(r >= 0.0))
						continue;
					DwithinMemo m = empty_memo();
					Verdict v = dwithin_memo_classify(&m, row.raw, row.ll, centre.raw, centre.ll, r,
													  spheroid);
					calls++;
					if (v == Verdict::inside)
					{
						ASSERT_LT(d, r) << "inside at " << r << ", distance " << d;
					}
					else if (v == Verdict::outside)
					{
						ASSERT_GT(d, r) << "outside at " << r << ", distance " << d;
					}
					decided += v != Verdict::maybe && r == 250000.0;
				}
			}
		}
	/* 250 km against rows within ~300 km and anywhere: nearly all decided cheaply */
	EXPECT_GT(decided, calls / 5 * 9 / 10);
}

/* Random calls: the constant side, the radius and the model change at random, one memo. */
TEST(DwithinMemo, RandomCallSequencesEqualBruteForce)
{
	std::mt19937_64 rng(29);
	std::uniform_int_distribution<int> pick(0, 9);
	DwithinMemo m = empty_memo();
	Arg c = random_arg(rng, false);
	double r = 1e5;
	bool spheroid = true;
	bool centre_first = false;
	for (int i = 0; i < 200000; i++)
	{
		switch (pick(rng))
		{
			case 0:
				c = random_arg(rng, i % 2 == 0);
				break;
			case 1:
				r = std::uniform_real_distribution<double>(0.0, 2e6)(rng);
				break;
			case 2:
				spheroid = !spheroid;
				break;
			case 3:
				centre_first = !centre_first;
				break;
			default:
				break;
		}
		Arg row = (i % 2) ? near(rng, c, 20.0) : random_arg(rng, false);
		if (i % 7 == 0)
		{
			double radii[3];
			boundary_radii(c, row, spheroid, radii);
			r = radii[i % 3];
		}
		if (centre_first)
			check_call(&m, c, row, r, spheroid);
		else
			check_call(&m, row, c, r, spheroid);
		if (::testing::Test::HasFailure())
			FAIL() << "call " << i;
	}
}

/*
 * The rule of dwithin_memo_centre: the test is built around b, unless a stayed
 * the same while b changed; it is kept while either argument is its centre and
 * the radius and model are the same.
 */
TEST(DwithinMemo, CentreIsTheArgumentThatStaysTheSame)
{
	std::mt19937_64 rng(31);
	Arg c = random_arg(rng, false);
	auto centre = [](DwithinMemo *m, const Arg &a, const Arg &b, double r, bool sph)
	{
		return dwithin_memo_centre(m, a.raw, geographic_point(a.ll), b.raw, geographic_point(b.ll),
								   r, sph);
	};

	/* geoidx_dwithin(pos, c): b is constant and the centre from the first row on */
	DwithinMemo m = empty_memo();
	for (int i = 0; i < 5; i++)
		EXPECT_EQ(centre(&m, random_arg(rng, false), c, 100.0, true), DwithinCentre::b);

	/* geoidx_dwithin(c, pos): b by default on the first row, a as soon as b moves */
	m = empty_memo();
	EXPECT_EQ(centre(&m, c, random_arg(rng, false), 100.0, true), DwithinCentre::b);
	for (int i = 0; i < 5; i++)
		EXPECT_EQ(centre(&m, c, random_arg(rng, false), 100.0, true), DwithinCentre::a);
	EXPECT_EQ(m.centre.x, c.raw.x);
	EXPECT_EQ(m.centre.y, c.raw.y);

	/* the key is the raw value: the same place written with lon + 360 is another centre */
	Arg c2 = cast(c.raw.x + 360.0, c.raw.y);
	EXPECT_EQ(centre(&m, c2, random_arg(rng, false), 100.0, true), DwithinCentre::b);
	EXPECT_EQ(centre(&m, c2, random_arg(rng, false), 100.0, true), DwithinCentre::a);
	EXPECT_EQ(m.centre.x, c2.raw.x);

	/* a new radius rebuilds it: around b, since a did not stay (c2 -> c) */
	EXPECT_EQ(centre(&m, c, random_arg(rng, false), 200.0, true), DwithinCentre::b);
	EXPECT_EQ(m.radius, 200.0);
	/* a new model, and a stayed while b moved: around a */
	EXPECT_EQ(centre(&m, c, random_arg(rng, false), 200.0, false), DwithinCentre::a);
	EXPECT_FALSE(m.use_spheroid);
	EXPECT_EQ(m.centre.x, c.raw.x);

	/* both arguments new on every call (a join): always around b */
	m = empty_memo();
	for (int i = 0; i < 5; i++)
		EXPECT_EQ(centre(&m, random_arg(rng, false), random_arg(rng, false), 100.0, true),
				  DwithinCentre::b);
}
