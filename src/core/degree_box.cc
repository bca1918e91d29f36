#include "degree_box.h"

#include "sphere_bounds.h"

#include <algorithm>
#include <cmath>

namespace geoidx
{

namespace
{

/* Relative inflation of the asin argument and result: covers sin, cos, / and asin rounding. */
constexpr double kRelSlack = 1e-12;

struct Extent
{
	double ymin;
	double ymax;
	bool all_lon;
	double xmin; /* may pass -180 / 180 when the circle crosses the antimeridian */
	double xmax;
};

/* Return the lon/lat extent of the circle, its longitude span possibly past the antimeridian. */
Extent
circle_extent(LonLat center, double radius, bool use_spheroid)
{
	Extent e;
	if (!(radius >= 0.0))
		radius = HUGE_VAL; /* not a radius (callers reject these): the whole Earth */
	GeoPoint g = geographic_point(center);
	RadiusTest t = radius_test(g, radius, use_spheroid);
	double theta = far_central_angle(radius, use_spheroid);

	/* reject_dlat_deg: nothing within the radius is further than this in latitude. */
	double dlat = t.reject_dlat_deg;
	e.ymin = center.lat - dlat - kDegreeBoxMargin;
	e.ymax = center.lat + dlat + kDegreeBoxMargin;
	bool reaches_pole = !(e.ymin > -90.0) || !(e.ymax < 90.0);
	e.ymin = std::max(e.ymin, -90.0);
	e.ymax = std::min(e.ymax, 90.0);

	e.all_lon = reaches_pole || !(theta < M_PI_2);
	e.xmin = -180.0;
	e.xmax = 180.0;
	if (!e.all_lon)
	{
		/* The cap misses both poles iff sin(theta) < cos(lat); then asin gives its half-width. */
		double s = std::sin(theta) / std::cos(g.lat) * (1.0 + kRelSlack);
		if (!(s < 1.0))
			e.all_lon = true;
		else
		{
			double dlon = std::asin(s) * (180.0 / M_PI) * (1.0 + kRelSlack) + kDegreeBoxMargin;
			e.xmin = center.lon - dlon;
			e.xmax = center.lon + dlon;
			if (!(dlon < 180.0))
				e.all_lon = true;
		}
	}
	if (e.all_lon)
	{
		e.xmin = -180.0;
		e.xmax = 180.0;
	}
	return e;
}

/* Return sin(hi) - sin(lo) of two latitudes in degrees, without cancellation. */
double
sin_difference(double lat_hi_deg, double lat_lo_deg)
{
	/* sin(hi) - sin(lo) without cancellation for thin bands. */
	double hi = lat_hi_deg * (M_PI / 180.0), lo = lat_lo_deg * (M_PI / 180.0);
	return 2.0 * std::cos((hi + lo) / 2.0) * std::sin((hi - lo) / 2.0);
}

} // namespace

/* Return a central angle beyond which nothing is within radius. */
double
far_central_angle(double radius, bool use_spheroid)
{
	if (!(radius >= 0.0 && radius < HUGE_VAL))
		return M_PI;
	/* Anything with a chord above reject_c2 is outside: its angle bounds everything inside. */
	RadiusTest t = radius_test(GeoPoint{0.0, 0.0}, radius, use_spheroid);
	if (!(t.reject_c2 < 4.0))
		return M_PI;
	return std::min(M_PI, chord2_to_angle(t.reject_c2) * (1.0 + kRelSlack));
}

/* Return one degree box holding the circle (all longitudes when it crosses the antimeridian). */
DegreeBox
search_box(LonLat center, double radius, bool use_spheroid)
{
	Extent e = circle_extent(center, radius, use_spheroid);
	if (!(e.xmin > -180.0) || !(e.xmax < 180.0))
	{
		e.xmin = -180.0;
		e.xmax = 180.0;
	}
	return DegreeBox{e.xmin, e.ymin, e.xmax, e.ymax};
}

/* Split the circle's degree box at the antimeridian into one or two boxes. */
int
search_box_pieces(LonLat center, double radius, bool use_spheroid, DegreeBox out[2])
{
	Extent e = circle_extent(center, radius, use_spheroid);
	if (e.xmin < -180.0)
	{
		out[0] = DegreeBox{e.xmin + 360.0, e.ymin, 180.0, e.ymax};
		out[1] = DegreeBox{-180.0, e.ymin, e.xmax, e.ymax};
		return 2;
	}
	if (e.xmax > 180.0)
	{
		out[0] = DegreeBox{e.xmin, e.ymin, 180.0, e.ymax};
		out[1] = DegreeBox{-180.0, e.ymin, e.xmax - 360.0, e.ymax};
		return 2;
	}
	out[0] = DegreeBox{e.xmin, e.ymin, e.xmax, e.ymax};
	return 1;
}

/* Return the area of a degree box on the unit sphere, in steradians. */
double
box_area_sr(const DegreeBox &b)
{
	double width = std::max(0.0, b.xmax - b.xmin) * (M_PI / 180.0);
	return width * std::max(0.0, sin_difference(b.ymax, b.ymin));
}

/* Return the area of a spherical cap of the given radius, in steradians. */
double
circle_area_sr(double radius)
{
	double angle = radius / kSphereRadius;
	if (!(angle < M_PI))
		return 4.0 * M_PI;
	double s = std::sin(angle / 2.0);
	return 4.0 * M_PI * s * s; /* 2 pi (1 - cos angle) */
}

/* Return the share of the boxes' area that the circle covers, in [0, 1]. */
double
circle_fraction(double radius, const DegreeBox *boxes, int nboxes)
{
	double total = 0.0;
	for (int i = 0; i < nboxes; i++)
		total += box_area_sr(boxes[i]);
	if (!(total > 0.0))
		return 1.0;
	double f = circle_area_sr(radius) / total;
	return std::clamp(f, 0.0, 1.0);
}

} // namespace geoidx
