/*
 * PostGIS's box operators as the scan decides them (planar_box.h): the float
 * rounding against hand-worked values, the EMPTY (NaN xmin) rules of PostGIS
 * 3.3, and the search image against brute force: every raw point (wrapped,
 * beyond the poles, a turn away) and every raw rectangle whose float box meets
 * q's must reach the image, where the tree keeps it (the geography cast's
 * place for a point, the raw rectangle's image for a shape).
 */
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <random>
#include <vector>

#include "geodesy.h"
#include "cast_vector.h"
#include "planar_box.h"
#include "shape_bounds.h"

namespace
{

using namespace geoidx;

TEST(PlanarBox, FloatRoundingIsOutwards)
{
	EXPECT_EQ(float_down(0.5), 0.5f);
	EXPECT_EQ(float_up(0.5), 0.5f);
	/* 0.1 is between two floats: down is below, up above, one step apart */
	EXPECT_LT((double) float_down(0.1), 0.1);
	EXPECT_GT((double) float_up(0.1), 0.1);
	EXPECT_EQ(std::nextafter(float_down(0.1), 1.0f), float_up(0.1));
	EXPECT_EQ(float_up(1e300), FLT_MAX);
	EXPECT_EQ(float_down(1e300), FLT_MAX);
	EXPECT_EQ(float_down(-1e300), -FLT_MAX);
	EXPECT_EQ(float_up(-1e300), -FLT_MAX);
	EXPECT_TRUE(std::isnan(float_down(std::nan(""))));
}

TEST(PlanarBox, PointOnTheEdgeOfABox)
{
	const FloatBox q = float_box(0.0, 0.1, 0.0, 0.1);
	/* 0.1 rounds outwards on both sides, so a point at 0.1 meets q */
	EXPECT_TRUE(box_op_holds(BoxOp::overlaps, float_box(0.1, 0.1, 0.05, 0.05), q));
	EXPECT_TRUE(box_op_holds(BoxOp::within, float_box(0.1, 0.1, 0.05, 0.05), q));
	/* a double just past q's float edge rounds down onto it, so it meets q too */
	const double past = std::nextafter((double) float_up(0.1), 1.0);
	EXPECT_TRUE(box_op_holds(BoxOp::overlaps, float_box(past, past, 0.05, 0.05), q));
	/* the next float does not */
	const double beyond = (double) std::nextafter(float_up(0.1), 1.0f);
	EXPECT_FALSE(box_op_holds(BoxOp::overlaps, float_box(beyond, beyond, 0.05, 0.05), q));
	/* a point contains only a box no larger than its own float box */
	EXPECT_TRUE(box_op_holds(BoxOp::contains, float_box(0.1, 0.1, 0.1, 0.1),
							 float_box(0.1, 0.1, 0.1, 0.1)));
	EXPECT_FALSE(box_op_holds(BoxOp::contains, float_box(0.1, 0.1, 0.1, 0.1), q));
}

TEST(PlanarBox, NanXminIsEmptyAsInPostgis)
{
	const double nan = std::nan("");
	const FloatBox e = float_box(nan, nan, 0.0, 1.0);
	const FloatBox p = float_box(5.0, 5.0, 0.5, 0.5);
	const FloatBox far = float_box(5.0, 5.0, 7.0, 7.0);
	EXPECT_FALSE(box_op_holds(BoxOp::overlaps, p, e));
	EXPECT_FALSE(box_op_holds(BoxOp::overlaps, e, p));
	/* everything but EMPTY contains EMPTY */
	EXPECT_TRUE(box_op_holds(BoxOp::contains, far, e));
	/* within a NaN box: the NaN comparisons fail, so only y decides */
	EXPECT_TRUE(box_op_holds(BoxOp::within, p, e));
	EXPECT_FALSE(box_op_holds(BoxOp::within, far, e));
	/* a NaN elsewhere is not EMPTY: its comparisons just never fail */
	const FloatBox half = float_box(0.0, nan, 0.0, 1.0);
	EXPECT_TRUE(box_op_holds(BoxOp::overlaps, p, half));
}

TEST(PlanarBox, ImageOfAnUnboundedBoxIsTheSphere)
{
	const Box3 all = search_image(float_box(std::nan(""), 1.0, 0.0, 1.0));
	const Box3 huge = search_image(float_box(-1e7, 1e7, 0.0, 1.0));
	for (int i = 0; i < 3; i++)
	{
		EXPECT_EQ(all.lo[i], -1.0);
		EXPECT_EQ(all.hi[i], 1.0);
		EXPECT_EQ(huge.lo[i], -1.0);
		EXPECT_EQ(huge.hi[i], 1.0);
	}
}

TEST(PlanarBox, EveryMatchReachesTheImage)
{
	std::mt19937_64 rng(20261205);
	std::uniform_real_distribution<double> u(0.0, 1.0);
	const double spans[] = {1e-6, 0.01, 1.0, 30.0, 200.0};
	long matches = 0;
	for (int k = 0; k < 4000; k++)
	{
		/* boxes anywhere, also across the antimeridian and the poles and a turn away */
		const double cx = -540.0 + 1080.0 * u(rng), cy = -200.0 + 400.0 * u(rng);
		const double w = spans[k % 5] * u(rng), h = spans[(k / 5) % 5] * u(rng);
		const FloatBox q = float_box(cx - w, cx + w, cy - h, cy + h);
		const Box3 image = search_image(q);
		for (int j = 0; j < 60; j++)
		{
			/* points in and just around the box, many exactly on an edge */
			double x = cx + (2.0 * u(rng) - 1.0) * w * 1.01;
			double y = cy + (2.0 * u(rng) - 1.0) * h * 1.01;
			if (j % 4 == 0)
				x = (j % 8 == 0) ? (double) q.xmin : (double) q.xmax;
			if (j % 6 == 0)
				y = (j % 12 == 0) ? (double) q.ymin : (double) q.ymax;
			const FloatBox p = float_box(x, x, y, y);
			for (BoxOp op : {BoxOp::overlaps, BoxOp::within})
			{
				if (!box_op_holds(op, p, q))
					continue;
				matches++;
				ASSERT_TRUE(box_contains(image, cast_vector(x, y)))
					<< "point " << x << " " << y << " box " << q.xmin << " " << q.xmax << " "
					<< q.ymin << " " << q.ymax;
				/* a shape whose raw rectangle is this point: its box holds the point's image */
				ASSERT_TRUE(box_meets(image, degree_box_image(DegreeBox{x, y, x, y})));
			}
		}
	}
	EXPECT_GT(matches, 50000);
}

} // namespace

namespace
{

/* Doubles around a float: it, the doubles just beside it, and the float's neighbours. */
void
around(float f, std::vector<double> *out)
{
	const double d = f;
	out->push_back(d);
	out->push_back(std::nextafter(d, INFINITY));
	out->push_back(std::nextafter(d, -INFINITY));
	out->push_back((double) std::nextafter(f, INFINITY));
	out->push_back((double) std::nextafter(f, -INFINITY));
	out->push_back(std::nextafter((double) std::nextafter(f, INFINITY), -INFINITY));
	out->push_back(std::nextafter((double) std::nextafter(f, -INFINITY), INFINITY));
}

TEST(PlanarBox, PointTestEqualsTheFloatBoxes)
{
	std::mt19937_64 rng(4326);
	std::uniform_real_distribution<double> u(-200.0, 200.0);
	const double nan = std::nan("");
	long held = 0, checked = 0;
	for (int k = 0; k < 3000; k++)
	{
		double a = u(rng), b = u(rng), c = u(rng), d = u(rng);
		if (k % 50 == 0)
			a = nan; /* EMPTY-like */
		if (k % 70 == 1)
			d = nan;
		if (k % 90 == 2)
			b = 1e39; /* beyond FLT_MAX: clamped */
		const FloatBox q = float_box(std::min(a, b), std::max(a, b), std::min(c, d),
									 std::isnan(d) ? d : std::max(c, d));
		std::vector<double> xs, ys;
		for (float f : {q.xmin, q.xmax})
			if (!std::isnan(f))
				around(f, &xs);
		for (float f : {q.ymin, q.ymax})
			if (!std::isnan(f))
				around(f, &ys);
		xs.push_back(u(rng));
		ys.push_back(u(rng));
		xs.push_back(5e38);
		ys.push_back(-5e38);
		for (BoxOp op : {BoxOp::overlaps, BoxOp::within, BoxOp::contains})
		{
			const PointBoxTest t = point_box_test(op, q);
			for (double x : xs)
				for (double y : ys)
				{
					const bool want = box_op_holds(op, float_box(x, x, y, y), q);
					ASSERT_EQ(point_box_holds(t, x, y), want)
						<< "op " << (int) op << " x " << x << " y " << y << " q " << q.xmin << " "
						<< q.xmax << " " << q.ymin << " " << q.ymax;
					held += want;
					checked++;
				}
		}
	}
	EXPECT_GT(held, checked / 20);
}

} // namespace
