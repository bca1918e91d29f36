#include "planar_distance.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace geoidx
{

namespace
{

constexpr double kRad = 180.0 / M_PI;
/* Outward padding of a range read off a box of vectors: far above the rounding of asin, atan2. */
constexpr double kRangePad = 1e-9;
/* The rounding of a unit vector's z = sin(lat) (the radians' and the sine's), with room. */
constexpr double kZError = 4e-16;

/* The gap between [a0, a1] and the nearest of [b0, b1] + period * k, k any integer. */
double
periodic_gap(double a0, double a1, double b0, double b1, double period)
{
	if (b1 - b0 >= period)
		return 0.0;
	const double k = std::round(((a0 + a1) - (b0 + b1)) / (2.0 * period));
	double best = std::numeric_limits<double>::infinity();
	for (double j = k - 1.0; j <= k + 1.0; j += 1.0)
	{
		const double lo = b0 + j * period, hi = b1 + j * period;
		best = std::min(best, std::max({0.0, lo - a1, a0 - hi}));
	}
	return best;
}

} // namespace

LonLatRange
box_lonlat_range(const Box3 &b)
{
	LonLatRange r;
	/*
	 * A vector's z is sin(lat) to within a few units of 1e-16, which asin
	 * magnifies near the poles (to ~1e-8 rad): widen z by that first.
	 */
	r.lat_min = std::asin(std::clamp(b.lo[2] - kZError, -1.0, 1.0)) * kRad - kRangePad;
	r.lat_max = std::asin(std::clamp(b.hi[2] + kZError, -1.0, 1.0)) * kRad + kRangePad;
	r.lon_min = -180.0;
	r.lon_max = 180.0 + 360.0; /* every longitude */
	if (b.lo[0] <= 0.0 && b.hi[0] >= 0.0 && b.lo[1] <= 0.0 && b.hi[1] >= 0.0)
		return r;
	/* the rectangle misses the axis: its directions span less than a half turn around its centre's
	 */
	const double ref = std::atan2(0.5 * (b.lo[1] + b.hi[1]), 0.5 * (b.lo[0] + b.hi[0]));
	double lo = 0.0, hi = 0.0;
	for (int i = 0; i < 4; i++)
	{
		const double x = (i & 1) ? b.hi[0] : b.lo[0], y = (i & 2) ? b.hi[1] : b.lo[1];
		double d = std::atan2(y, x) - ref;
		if (d > M_PI)
			d -= 2.0 * M_PI;
		else if (d < -M_PI)
			d += 2.0 * M_PI;
		lo = std::min(lo, d);
		hi = std::max(hi, d);
	}
	r.lon_min = (ref + lo) * kRad - kRangePad;
	r.lon_max = (ref + hi) * kRad + kRangePad;
	return r;
}

double
planar_point_distance(const PlanarTarget &t, double x, double y)
{
	if (t.point)
	{
		/* liblwgeom's lw_dist2d_pt_pt, operation for operation */
		const double hside = t.xmin - x;
		const double vside = t.ymin - y;
		return std::sqrt(hside * hside + vside * vside);
	}
	const double dx = std::max({0.0, t.xmin - x, x - t.xmax});
	const double dy = std::max({0.0, t.ymin - y, y - t.ymax});
	return std::sqrt(dx * dx + dy * dy);
}

double
planar_box_bound(const PlanarTarget &t, const Box3 &b)
{
	if (box_is_empty(b))
		return std::numeric_limits<double>::infinity();
	const LonLatRange r = box_lonlat_range(b);
	const double dlon = periodic_gap(t.xmin, t.xmax, r.lon_min, r.lon_max, 360.0);
	const double dlon_turned =
		periodic_gap(t.xmin, t.xmax, r.lon_min + 180.0, r.lon_max + 180.0, 360.0);
	const double dlat = periodic_gap(t.ymin, t.ymax, r.lat_min, r.lat_max, 360.0);
	const double dlat_folded =
		periodic_gap(t.ymin, t.ymax, 180.0 - r.lat_max, 180.0 - r.lat_min, 360.0);
	const double d = std::min({std::hypot(dlon, dlat), std::hypot(dlon, dlat_folded),
							   std::hypot(dlon_turned, dlat_folded)});
	/* below every rounding of the distances it bounds */
	return std::max(0.0, d * (1.0 - 1e-12) - 1e-12);
}

} // namespace geoidx
