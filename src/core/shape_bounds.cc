#include "shape_bounds.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace geoidx
{

namespace
{

/* Rounding of cos and sin of a degree value, and of their products: far below this. */
constexpr double kImageSlack = 1e-15;

struct Range
{
	double lo;
	double hi;
};

/* The range of cos(t) for t in [a, b] (radians, a <= b): the ends, and every multiple of pi
 * between. */
Range
cos_range(double a, double b)
{
	/* a whole turn, or values so large that the multiples of pi below could not be stepped through
	 */
	if (!(b - a < 2 * M_PI) || std::fabs(a) > 1e6 || std::fabs(b) > 1e6)
		return Range{-1.0, 1.0};
	Range r{std::min(std::cos(a), std::cos(b)), std::max(std::cos(a), std::cos(b))};
	for (double k = std::ceil(a / M_PI); k * M_PI <= b; k += 1.0)
	{
		if (std::fmod(std::fabs(k), 2.0) == 0.0)
			r.hi = 1.0;
		else
			r.lo = -1.0;
	}
	return r;
}

/* The range of sin(t) for t in [a, b]: sin(t) = cos(t - pi/2). */
Range
sin_range(double a, double b)
{
	return cos_range(a - M_PI / 2, b - M_PI / 2);
}

/* The range of the product of values in r and s. */
Range
product(const Range &r, const Range &s)
{
	const double p[4] = {r.lo * s.lo, r.lo * s.hi, r.hi * s.lo, r.hi * s.hi};
	return Range{*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}

CoordCheck
worse(CoordCheck a, CoordCheck b)
{
	return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

} // namespace

Box3
degree_box_image(const DegreeBox &b)
{
	const double d2r = M_PI / 180.0;
	/* widen by the rounding of the conversion to radians */
	const double lon0 = b.xmin * d2r - kImageSlack, lon1 = b.xmax * d2r + kImageSlack;
	const double lat0 = b.ymin * d2r - kImageSlack, lat1 = b.ymax * d2r + kImageSlack;
	const Range cl = cos_range(lat0, lat1), sl = sin_range(lat0, lat1);
	const Range co = cos_range(lon0, lon1), so = sin_range(lon0, lon1);
	const Range x = product(cl, co), y = product(cl, so);
	Box3 box{{x.lo, y.lo, sl.lo}, {x.hi, y.hi, sl.hi}};
	for (int i = 0; i < 3; i++)
	{
		box.lo[i] = std::max(-1.0, box.lo[i] - kImageSlack);
		box.hi[i] = std::min(1.0, box.hi[i] + kImageSlack);
	}
	return box;
}

void
box_pole_step(Box3 *b, int axis)
{
	const int j = (axis + 1) % 3, k = (axis + 2) % 3;
	if (!(b->lo[j] < 0.0 && b->hi[j] > 0.0 && b->lo[k] < 0.0 && b->hi[k] > 0.0))
		return;
	if (b->lo[axis] > 0.0 && b->hi[axis] > 0.0)
		b->hi[axis] = 1.0;
	else if (b->lo[axis] < 0.0 && b->hi[axis] < 0.0)
		b->lo[axis] = -1.0;
	else
	{
		b->lo[axis] = -1.0;
		b->hi[axis] = 1.0;
	}
}

void
box_add_enclosed_poles(Box3 *b)
{
	/* z first, then y, then x, each test seeing what the one before it did */
	for (int axis = 2; axis >= 0; axis--)
		box_pole_step(b, axis);
}

ShapeBounds::ShapeBounds()
	: geodesic_(box_empty()), polygon_(box_empty()),
	  in_polygon_(false), degrees_{std::numeric_limits<double>::infinity(),
								   std::numeric_limits<double>::infinity(),
								   -std::numeric_limits<double>::infinity(),
								   -std::numeric_limits<double>::infinity()},
	  npoints_(0), check_(CoordCheck::in_range)
{
}

void
ShapeBounds::begin_polygon()
{
	polygon_ = box_empty();
	in_polygon_ = true;
}

void
ShapeBounds::end_polygon()
{
	/* an EMPTY polygon, or one of a single point, has no edges to enclose anything */
	if (!box_is_empty(polygon_))
	{
		box_add_enclosed_poles(&polygon_);
		box_extend(&geodesic_, polygon_);
	}
	in_polygon_ = false;
}

Vec3
ShapeBounds::vector_of(double x, double y)
{
	LonLat ll{0.0, 0.0};
	const CoordCheck c = normalize_like_geography(x, y, &ll);
	check_ = worse(check_, c);
	degrees_.xmin = std::min(degrees_.xmin, x);
	degrees_.xmax = std::max(degrees_.xmax, x);
	degrees_.ymin = std::min(degrees_.ymin, y);
	degrees_.ymax = std::max(degrees_.ymax, y);
	return unit_vector(geographic_point(ll));
}

void
ShapeBounds::chain(ChainKind kind, const uint8_t *coords, uint32_t npoints, int ndims)
{
	Box3 *into = in_polygon_ ? &polygon_ : &geodesic_;
	Vec3 prev{0.0, 0.0, 0.0};
	for (uint32_t i = 0; i < npoints; i++)
	{
		double x, y;
		serialized_xy(coords, ndims, i, &x, &y);
		npoints_++;
		const Vec3 v = vector_of(x, y);
		if (check_ == CoordCheck::not_finite)
			return; /* no box means anything; the caller refuses the shape */
		if (i == 0 || kind == ChainKind::point)
			box_extend(into, v);
		else
			box_extend(into, arc_box(prev, v));
		prev = v;
	}
}

Box3
ShapeBounds::box() const
{
	Box3 b = geodesic_;
	if (!empty() && check_ != CoordCheck::not_finite)
		box_extend(&b, degree_box_image(degrees_));
	return b;
}

} // namespace geoidx
