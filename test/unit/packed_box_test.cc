/*
 * pack_box against what it promises: the unpacked box holds the packed one,
 * exceeds it by at most two grid steps (plus the clamp to [-1, 1]) and packs
 * to the same bits again. Random boxes from points, tiny boxes, boxes at the
 * ends of the range and boxes poking out of it (the bounds' slack).
 */
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "packed_box.h"

namespace
{

using namespace geoidx;

constexpr double kStep = 2.0 / double((1 << 21) - 2);

void
expect_packs(const Box3 &b)
{
	Box3 u = unpack_box(pack_box(b));
	for (int a = 0; a < 3; a++)
	{
		EXPECT_LE(u.lo[a], std::max(b.lo[a], -1.0)) << "axis " << a;
		EXPECT_GE(u.hi[a], std::min(b.hi[a], 1.0)) << "axis " << a;
		EXPECT_GE(u.lo[a], -1.0);
		EXPECT_LE(u.hi[a], 1.0);
		EXPECT_LE(std::max(b.lo[a], -1.0) - u.lo[a], 2.0 * kStep + 1e-15);
		EXPECT_LE(u.hi[a] - std::min(b.hi[a], 1.0), 2.0 * kStep + 1e-15);
	}
	PackedBox again = pack_box(u);
	Box3 u2 = unpack_box(again);
	/* packing the unpacked box can only widen it by the outward steps, never shrink it */
	for (int a = 0; a < 3; a++)
	{
		EXPECT_LE(u2.lo[a], u.lo[a]);
		EXPECT_GE(u2.hi[a], u.hi[a]);
	}
}

TEST(PackedBox, RandomBoxesHoldTheirInput)
{
	std::mt19937_64 rng(20261202);
	std::uniform_real_distribution<double> coord(-1.0, 1.0);
	std::uniform_real_distribution<double> width(0.0, 1e-3);
	for (int i = 0; i < 200000; i++)
	{
		Box3 b;
		for (int a = 0; a < 3; a++)
		{
			double c = coord(rng);
			double w = (i % 3 == 0) ? 0.0 : width(rng) * ((i % 7 == 0) ? 1000.0 : 1.0);
			b.lo[a] = std::max(-1.0, c - w);
			b.hi[a] = std::min(1.0, c + w);
		}
		expect_packs(b);
		if (HasFailure())
			return;
	}
}

TEST(PackedBox, EndsOfTheRangeAndSlack)
{
	const double vals[] = {-1.0,   -1.0 + 1e-17, -1.0 + kStep, -0.5, 0.0,
						   1e-300, 0.5,          1.0 - kStep,  1.0};
	for (double lo : vals)
		for (double hi : vals)
		{
			if (lo > hi)
				continue;
			Box3 b{{lo, lo, lo}, {hi, hi, hi}};
			expect_packs(b);
		}
	/* the bounds' slack may reach past the unit cube: clamped, still holding every unit vector */
	Box3 out{{-1.0 - 1e-9, -1.0000001, -2.0}, {1.0 + 1e-9, 1.0000001, 2.0}};
	Box3 u = unpack_box(pack_box(out));
	for (int a = 0; a < 3; a++)
	{
		EXPECT_EQ(u.lo[a], -1.0);
		EXPECT_EQ(u.hi[a], 1.0);
	}
}

TEST(PackedBox, WorkedValues)
{
	/* 0.0 sits on grid number 1048575 exactly; one step out on each side (from_grid rounds by
	 * 1e-16) */
	Box3 b{{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
	Box3 u = unpack_box(pack_box(b));
	for (int a = 0; a < 3; a++)
	{
		EXPECT_NEAR(u.lo[a], -kStep, 1e-15);
		EXPECT_NEAR(u.hi[a], kStep, 1e-15);
	}
	/* the six fields do not overlap: one axis's extremes leave the others alone */
	Box3 mixed{{-1.0, 0.0, 1.0}, {-1.0, 0.0, 1.0}};
	Box3 m = unpack_box(pack_box(mixed));
	EXPECT_EQ(m.lo[0], -1.0);
	EXPECT_NEAR(m.hi[0], -1.0 + kStep, 1e-15);
	EXPECT_NEAR(m.lo[1], -kStep, 1e-15);
	EXPECT_NEAR(m.hi[1], kStep, 1e-15);
	EXPECT_NEAR(m.lo[2], 1.0 - kStep, 1e-15);
	EXPECT_EQ(m.hi[2], 1.0);
}

} // namespace
