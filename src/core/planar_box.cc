#include "planar_box.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "shape_bounds.h"

namespace geoidx
{

namespace
{

/* Beyond this many degrees a box's image is the whole sphere (shape_bounds.cc's cos_range agrees).
 */
constexpr double kImageLimitDeg = 1e6;

/* The latitude the geography cast gives y (it folds y alone, leaving the longitude be). */
double
folded_lat(double y)
{
	LonLat ll;
	(void) normalize_like_geography(0.0, y, &ll);
	return ll.lat;
}

/*
 * The range of the folded latitudes of [lo, hi]: the fold is a triangle wave,
 * peaks at 90 + 360k and troughs at -90 + 360k, so the range is that of the
 * ends and of the turns between them.
 */
void
folded_lat_range(double lo, double hi, double *out_lo, double *out_hi)
{
	if (lo >= -90.0 && hi <= 90.0)
	{
		*out_lo = lo;
		*out_hi = hi;
		return;
	}
	*out_lo = -90.0;
	*out_hi = 90.0;
	if (hi - lo >= 360.0)
		return;
	const double a = folded_lat(lo), b = folded_lat(hi);
	if (90.0 + 360.0 * std::ceil((lo - 90.0) / 360.0) > hi)
		*out_hi = std::max(a, b);
	if (-90.0 + 360.0 * std::ceil((lo + 90.0) / 360.0) > hi)
		*out_lo = std::min(a, b);
}

} // namespace

float
float_down(double d)
{
	if (d > (double) FLT_MAX)
		return FLT_MAX;
	if (d <= (double) -FLT_MAX)
		return -FLT_MAX;
	float f = (float) d;
	if ((double) f <= d)
		return f;
	return std::nextafter(f, -FLT_MAX);
}

float
float_up(double d)
{
	if (d >= (double) FLT_MAX)
		return FLT_MAX;
	if (d < (double) -FLT_MAX)
		return -FLT_MAX;
	float f = (float) d;
	if ((double) f >= d)
		return f;
	return std::nextafter(f, FLT_MAX);
}

FloatBox
float_box(double xmin, double xmax, double ymin, double ymax)
{
	return FloatBox{float_down(xmin), float_up(xmax), float_down(ymin), float_up(ymax)};
}

bool
box_op_holds(BoxOp op, const FloatBox &a, const FloatBox &b)
{
	/* PostGIS 3 marks an EMPTY box by a NaN xmin: it meets nothing, is within and holds the rest */
	const bool a_empty = std::isnan(a.xmin), b_empty = std::isnan(b.xmin);
	switch (op)
	{
		case BoxOp::overlaps:
			if (a_empty || b_empty)
				return false;
			return !((a.xmin > b.xmax) || (b.xmin > a.xmax) || (a.ymin > b.ymax) ||
					 (b.ymin > a.ymax));
		case BoxOp::within:
			if (a_empty && !b_empty)
				return true;
			return !((a.xmin < b.xmin) || (a.xmax > b.xmax) || (a.ymin < b.ymin) ||
					 (a.ymax > b.ymax));
		case BoxOp::contains:
			if (b_empty && !a_empty)
				return true;
			return !((a.xmin > b.xmin) || (a.xmax < b.xmax) || (a.ymin > b.ymin) ||
					 (a.ymax < b.ymax));
	}
	return false;
}

namespace
{

const double kInf = std::numeric_limits<double>::infinity();

/* The least double x with float_down(x) > f: the float after f (none after FLT_MAX). */
double
above_float(float f)
{
	return f >= FLT_MAX ? kInf : (double) std::nextafter(f, std::numeric_limits<float>::infinity());
}

/* The greatest double x with float_up(x) < f: the float before f. */
double
below_float(float f)
{
	return f <= -FLT_MAX ? -kInf
						 : (double) std::nextafter(f, -std::numeric_limits<float>::infinity());
}

/* x's side of one comparison of PostGIS's, as a bound on x; NaN bounds nothing. */
double
lower_bound(float f, bool strict_below_next)
{
	/* float_up(x) >= f: x > below_float(f); float_down(x) >= f: x >= f */
	if (std::isnan(f))
		return -kInf;
	if (strict_below_next)
		return std::nextafter(below_float(f), kInf);
	return (double) f;
}

double
upper_bound(float f, bool strict_above_next)
{
	/* float_down(x) <= f: x < above_float(f); float_up(x) <= f: x <= f */
	if (std::isnan(f))
		return kInf;
	if (strict_above_next)
		return std::nextafter(above_float(f), -kInf);
	return (double) f;
}

} // namespace

PointBoxTest
point_box_test(BoxOp op, const FloatBox &q)
{
	PointBoxTest t{-kInf, kInf, -kInf, kInf, -1};
	const bool q_empty = std::isnan(q.xmin);
	switch (op)
	{
		case BoxOp::overlaps:
			/* float_up(x) >= q.xmin and float_down(x) <= q.xmax */
			if (q_empty)
				t.constant = 0;
			t.xlo = lower_bound(q.xmin, true);
			t.xhi = upper_bound(q.xmax, true);
			t.ylo = lower_bound(q.ymin, true);
			t.yhi = upper_bound(q.ymax, true);
			break;
		case BoxOp::within:
			/* float_down(x) >= q.xmin and float_up(x) <= q.xmax */
			t.xlo = lower_bound(q.xmin, false);
			t.xhi = upper_bound(q.xmax, false);
			t.ylo = lower_bound(q.ymin, false);
			t.yhi = upper_bound(q.ymax, false);
			break;
		case BoxOp::contains:
			/* float_down(x) <= q.xmin and float_up(x) >= q.xmax; a point holds an EMPTY q */
			if (q_empty)
				t.constant = 1;
			t.xhi = upper_bound(q.xmin, true);
			t.xlo = lower_bound(q.xmax, true);
			t.yhi = upper_bound(q.ymin, true);
			t.ylo = lower_bound(q.ymax, true);
			break;
	}
	return t;
}

Box3
search_image(const FloatBox &q)
{
	const double c[4] = {q.xmin, q.xmax, q.ymin, q.ymax};
	double m = 0.0;
	for (double v : c)
	{
		if (!(std::fabs(v) <= kImageLimitDeg))
			return Box3{{-1.0, -1.0, -1.0}, {1.0, 1.0, 1.0}};
		m = std::max(m, std::fabs(v));
	}
	/*
	 * An entry's coordinate whose float rounding reaches q's box lies within
	 * one float step of it: at most m * 2^-23 at magnitude m; twice that, and a
	 * nanodegree for magnitudes near zero, also covers the degree-to-radian
	 * rounding of a raw coordinate a turn or more from its wrapped place.
	 */
	const double pad = m * std::ldexp(1.0, -22) + 1e-9;
	const DegreeBox raw{q.xmin - pad, q.ymin - pad, q.xmax + pad, q.ymax + pad};
	/*
	 * Beyond the poles the two places differ: a shape's box holds the image of
	 * its raw rectangle, where (x, 95) is (x + 180, 85), and a point's vector is
	 * where the cast puts it, (x, 85). The image holds both.
	 */
	Box3 image = degree_box_image(raw);
	double lo, hi;
	folded_lat_range(raw.ymin, raw.ymax, &lo, &hi);
	if (lo != raw.ymin || hi != raw.ymax)
		box_extend(&image, degree_box_image(DegreeBox{raw.xmin, lo - 1e-9, raw.xmax, hi + 1e-9}));
	return image;
}

} // namespace geoidx
