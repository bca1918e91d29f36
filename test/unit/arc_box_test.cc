/*
 * arc_box against the arc itself: points along it computed in long double
 * (slerp), and each coordinate's extreme found by search along the arc, never
 * from the circle's normal as the code finds it. Fixed-seed random arcs where
 * the bound is hardest: long and short arcs, arcs over the poles, along the
 * equator and the meridians, across the antimeridian, near antipodes. Then
 * values worked out by hand (the vertex of a great circle from Napier's rules).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>

#include "arc_box.h"
#include "geodesy.h"
#include "sphere_bounds.h"

namespace
{

using namespace geoidx;
using LD = long double;

struct Vec3L
{
	LD v[3];
};

Vec3L
unit_l(double lon_deg, double lat_deg)
{
	const LD lon = lon_deg * (LD) M_PI / 180, lat = lat_deg * (LD) M_PI / 180;
	return Vec3L{{cosl(lat) * cosl(lon), cosl(lat) * sinl(lon), sinl(lat)}};
}

Vec3
to_vec(const Vec3L &p)
{
	return Vec3{(double) p.v[0], (double) p.v[1], (double) p.v[2]};
}

/* The arc's point at fraction t of the way from a to b. */
Vec3L
slerp(const Vec3L &a, const Vec3L &b, LD theta, LD t)
{
	const LD s = sinl(theta);
	const LD wa = sinl((1 - t) * theta) / s, wb = sinl(t * theta) / s;
	return Vec3L{{wa * a.v[0] + wb * b.v[0], wa * a.v[1] + wb * b.v[1], wa * a.v[2] + wb * b.v[2]}};
}

LD
angle_l(const Vec3L &a, const Vec3L &b)
{
	LD c[3] = {a.v[1] * b.v[2] - a.v[2] * b.v[1], a.v[2] * b.v[0] - a.v[0] * b.v[2],
			   a.v[0] * b.v[1] - a.v[1] * b.v[0]};
	LD d = a.v[0] * b.v[0] + a.v[1] * b.v[1] + a.v[2] * b.v[2];
	return atan2l(sqrtl(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), d);
}

/*
 * The largest value of coordinate i (sign +1) or of its negation (sign -1)
 * along the arc: the best of 16 samples, refined by golden-section search in
 * the neighbouring samples' interval. On an arc shorter than pi a coordinate is
 * a sinusoid with at most one interior extreme, so this finds the maximum.
 */
LD
arc_max(const Vec3L &a, const Vec3L &b, LD theta, int i, int sign)
{
	auto f = [&](LD t) { return sign * slerp(a, b, theta, t).v[i]; };
	const int n = 16;
	int best = 0;
	for (int s = 1; s <= n; s++)
		if (f((LD) s / n) > f((LD) best / n))
			best = s;
	LD lo = std::max<LD>(0, (LD) (best - 1) / n), hi = std::min<LD>(1, (LD) (best + 1) / n);
	const LD g = (sqrtl(5) - 1) / 2;
	for (int it = 0; it < 40; it++)
	{
		LD m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo);
		if (f(m1) < f(m2))
			lo = m1;
		else
			hi = m2;
	}
	return std::max({f(0), f(1), f((lo + hi) / 2)});
}

struct Arc
{
	double lon_a, lat_a, lon_b, lat_b;
};

std::string
describe(const Arc &arc)
{
	std::ostringstream s;
	s.precision(17);
	s << "LINESTRING(" << arc.lon_a << " " << arc.lat_a << ", " << arc.lon_b << " " << arc.lat_b
	  << ")";
	return s.str();
}

class ArcGen
{
public:
	explicit ArcGen(uint64_t seed) : rng_(seed) {}

	double
	uni(double lo, double hi)
	{
		return std::uniform_real_distribution<double>(lo, hi)(rng_);
	}

	double
	lat_uniform()
	{
		return std::asin(uni(-1, 1)) * 180 / M_PI;
	}

	/* An arc of one of the hard kinds, chosen by k. */
	Arc
	arc(int k)
	{
		switch (k % 7)
		{
			case 0: /* anywhere, any length */
				return Arc{uni(-180, 180), lat_uniform(), uni(-180, 180), lat_uniform()};
			case 1: /* short: 1e-10 to 0.1 rad, in any direction */
			{
				double lon = uni(-180, 180), lat = uni(-89, 89);
				double len = std::pow(10.0, uni(-10, -1)) * 180 / M_PI, dir = uni(0, 2 * M_PI);
				return Arc{lon, lat, lon + len * std::cos(dir) / std::cos(lat * M_PI / 180),
						   std::clamp(lat + len * std::sin(dir), -90.0, 90.0)};
			}
			case 2: /* near or over a pole */
			{
				double s = uni(0, 1) < 0.5 ? 1 : -1;
				return Arc{uni(-180, 180), s * (90 - std::pow(10.0, uni(-7, 1.3))), uni(-180, 180),
						   s * (90 - std::pow(10.0, uni(-7, 1.3)))};
			}
			case 3: /* along the equator */
				return Arc{uni(-180, 180), 0.0, uni(-180, 180),
						   uni(0, 1) < 0.5 ? 0.0 : uni(-1e-6, 1e-6)};
			case 4: /* along a meridian */
			{
				double lon = uni(-180, 180);
				return Arc{lon, lat_uniform(), uni(0, 1) < 0.5 ? lon : lon + uni(-1e-6, 1e-6),
						   lat_uniform()};
			}
			case 5: /* across the antimeridian */
				return Arc{180 - std::pow(10.0, uni(-6, 1.5)), uni(-85, 85),
						   -180 + std::pow(10.0, uni(-6, 1.5)), uni(-85, 85)};
			default: /* near an antipode: 0.01 to 1 degree short of it */
			{
				double lon = uni(-180, 180), lat = uni(-80, 80), off = std::pow(10.0, uni(-2, 0));
				return Arc{lon, lat, lon + 180 - off, -lat + uni(-off, off)};
			}
		}
	}

private:
	std::mt19937_64 rng_;
};

TEST(ArcBox, HoldsEveryPointOfRandomArcsAndIsTight)
{
	ArcGen gen(20261202);
	long checked = 0, sphere_boxes = 0, failures = 0;
	std::string first;
	const int n_arcs = 21000;
	for (int k = 0; k < n_arcs; k++)
	{
		const Arc arc = gen.arc(k);
		const Vec3L a = unit_l(arc.lon_a, arc.lat_a), b = unit_l(arc.lon_b, arc.lat_b);
		const Vec3 ad = to_vec(a), bd = to_vec(b);
		const Box3 box = arc_box(ad, bd);
		const double dot = ad.x * bd.x + ad.y * bd.y + ad.z * bd.z;
		if (dot < kAntipodalDot)
		{
			sphere_boxes++;
			for (int i = 0; i < 3; i++)
				if (box.lo[i] != -1.0 || box.hi[i] != 1.0)
					failures++;
			continue;
		}
		const LD theta = angle_l(a, b);
		if (theta == 0)
			continue;
		/* every sampled point of the arc is in the box */
		for (int s = 0; s <= 16; s++)
		{
			const Vec3L p = slerp(a, b, theta, (LD) s / 16);
			for (int i = 0; i < 3; i++)
				if (p.v[i] < box.lo[i] || p.v[i] > box.hi[i])
				{
					if (failures++ == 0)
						first = describe(arc) + " sample " + std::to_string(s) + " outside";
				}
		}
		/*
		 * the box reaches each extreme and goes at most 5e-11 (0.3 mm) beyond it:
		 * the worst is where the normal's slack (8e-16 / theta) meets the sagitta
		 * (theta^2 / 8), at theta ~ 2e-5, 4.3e-11
		 */
		for (int i = 0; i < 3; i++)
		{
			const LD top = arc_max(a, b, theta, i, 1), bottom = -arc_max(a, b, theta, i, -1);
			const bool holds = box.hi[i] >= top && box.lo[i] <= bottom;
			const bool tight = box.hi[i] - top <= 5e-11 && bottom - box.lo[i] <= 5e-11;
			if (!holds || !tight)
			{
				if (failures++ == 0)
				{
					std::ostringstream s;
					s.precision(17);
					s << describe(arc) << " axis " << i << ": box [" << box.lo[i] << ", "
					  << box.hi[i] << "], arc [" << (double) bottom << ", " << (double) top << "]";
					first = s.str();
				}
			}
		}
		checked++;
	}
	EXPECT_EQ(failures, 0) << first;
	EXPECT_GT(checked, n_arcs * 9 / 10);
	EXPECT_GT(sphere_boxes, 0) << "no arc reached the antipodal case";
}

Vec3
unit(double lon_deg, double lat_deg)
{
	return unit_vector(GeoPoint{lon_deg * M_PI / 180, lat_deg * M_PI / 180});
}

TEST(ArcBox, VertexOfAGreatCircleFromNapiersRules)
{
	/*
	 * The arc between (-10, 60) and (10, 60) tops out on the central meridian
	 * at the latitude phi with tan(phi) = tan(60) / cos(10) (the right spherical
	 * triangle at the vertex): the bulge a box of the ends would miss.
	 */
	const Box3 box = arc_box(unit(-10, 60), unit(10, 60));
	const double phi = std::atan(std::tan(60 * M_PI / 180) / std::cos(10 * M_PI / 180));
	EXPECT_GE(box.hi[2], std::sin(phi));
	EXPECT_LE(box.hi[2], std::sin(phi) + 1e-14);
	EXPECT_GT(std::sin(phi) - std::sin(60 * M_PI / 180), 1e-3) << "the bulge is not negligible";
	EXPECT_NEAR(box.lo[2], std::sin(60 * M_PI / 180), 1e-14);
	EXPECT_NEAR(box.hi[0], std::cos(phi), 1e-14); /* x peaks at the vertex too */
}

TEST(ArcBox, EquatorMeridianAndPole)
{
	/* a third of the equator passes (90, 0), where y = 1 */
	Box3 eq = arc_box(unit(0, 0), unit(120, 0));
	EXPECT_NEAR(eq.lo[0], -0.5, 1e-14);
	EXPECT_NEAR(eq.hi[0], 1.0, 1e-14);
	EXPECT_NEAR(eq.lo[1], 0.0, 1e-14);
	EXPECT_GE(eq.hi[1], 1.0);
	EXPECT_NEAR(eq.hi[1], 1.0, 1e-14);
	EXPECT_NEAR(eq.lo[2], 0.0, 1e-14);
	EXPECT_NEAR(eq.hi[2], 0.0, 1e-14);

	/* a meridian arc through the equator reaches x = 1 there */
	Box3 mer = arc_box(unit(0, -30), unit(0, 60));
	EXPECT_GE(mer.hi[0], 1.0);
	EXPECT_NEAR(mer.lo[0], 0.5, 1e-14);
	EXPECT_NEAR(mer.lo[2], -0.5, 1e-14);
	EXPECT_NEAR(mer.hi[2], std::sqrt(3.0) / 2, 1e-14);

	/* (0, 80) to (180, 80) goes over the north pole, 20 degrees long */
	Box3 pole = arc_box(unit(0, 80), unit(180, 80));
	EXPECT_GE(pole.hi[2], 1.0);
	EXPECT_NEAR(pole.lo[2], std::sin(80 * M_PI / 180), 1e-14);
	EXPECT_NEAR(pole.hi[0], std::cos(80 * M_PI / 180), 1e-14);
	EXPECT_NEAR(pole.lo[0], -std::cos(80 * M_PI / 180), 1e-14);
	EXPECT_NEAR(pole.lo[1], 0.0, 1e-14);
	EXPECT_NEAR(pole.hi[1], 0.0, 1e-14);
}

TEST(ArcBox, ShortArcIsItsEndsBox)
{
	/* 1 m along a parallel: the sagitta is ~1e-15, far below any distance that matters */
	const Vec3 a = unit(13.4, 52.5), b = unit(13.4 + 1.5e-5, 52.5);
	const Box3 box = arc_box(a, b);
	Box3 ends = box_of(a);
	box_extend(&ends, b);
	for (int i = 0; i < 3; i++)
	{
		EXPECT_LE(box.lo[i], ends.lo[i]);
		EXPECT_GE(box.hi[i], ends.hi[i]);
		EXPECT_LE(ends.lo[i] - box.lo[i], 1e-14);
		EXPECT_LE(box.hi[i] - ends.hi[i], 1e-14);
	}
	/* a point is an arc of no length */
	const Box3 dot = arc_box(a, a);
	for (int i = 0; i < 3; i++)
		EXPECT_LE(dot.hi[i] - dot.lo[i], 1e-14);
}

TEST(ArcBox, AntipodesAndAxisPoints)
{
	const Box3 anti = arc_box(unit(20, 30), unit(-160, -30));
	for (int i = 0; i < 3; i++)
	{
		EXPECT_EQ(anti.lo[i], -1.0);
		EXPECT_EQ(anti.hi[i], 1.0);
	}
	/* the north pole added to a box of a ring around it */
	Box3 ring = arc_box(unit(0, 70), unit(120, 70));
	box_extend(&ring, arc_box(unit(120, 70), unit(-120, 70)));
	box_extend(&ring, arc_box(unit(-120, 70), unit(0, 70)));
	EXPECT_LT(ring.hi[2], 0.99);
	box_extend_axis_points(&ring, kAxisPlusZ);
	EXPECT_EQ(ring.hi[2], 1.0);
	EXPECT_LT(ring.hi[0], 0.35);

	Box3 all = box_empty();
	box_extend_axis_points(&all, 0x3F);
	for (int i = 0; i < 3; i++)
	{
		EXPECT_EQ(all.lo[i], -1.0);
		EXPECT_EQ(all.hi[i], 1.0);
	}
	for (int i = 0; i < kAxisPoints; i++)
	{
		const Vec3 p = axis_point(i);
		EXPECT_DOUBLE_EQ(p.x * p.x + p.y * p.y + p.z * p.z, 1.0);
	}
}

} // namespace
