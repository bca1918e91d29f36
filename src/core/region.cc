#include "region.h"

#include "geodesic_bracket.h"

#include <cmath>

namespace geoidx
{

namespace
{

/* Tell whether the mode compares ST_Distance with a bound. */
bool
is_distance_mode(RegionMode m)
{
	return m != RegionMode::within && m != RegionMode::outside;
}

/* The modes whose region is the complement of a disc. */
bool
is_outer_mode(RegionMode m)
{
	return m == RegionMode::outside || m == RegionMode::dist_gt || m == RegionMode::dist_ge;
}

/* d (already rounded as ST_Distance rounds) against r, with float8's NaN-is-largest order. */
bool
compare(RegionMode m, double d, double r)
{
	if (std::isnan(r))
		return m == RegionMode::dist_lt || m == RegionMode::dist_le; /* d < NaN, d <= NaN */
	switch (m)
	{
		case RegionMode::dist_gt:
			return d > r;
		case RegionMode::dist_ge:
			return d >= r;
		case RegionMode::dist_lt:
			return d < r;
		case RegionMode::dist_le:
			return d <= r;
		default:
			return false;
	}
}

/* Return the verdict for the complement of a region. */
Verdict
complement(Verdict v)
{
	if (v == Verdict::inside)
		return Verdict::outside;
	if (v == Verdict::outside)
		return Verdict::inside;
	return v;
}

} // namespace

/* Prepare the test of one region key around centre. */
RegionTest
region_test(GeoPoint centre, double radius, bool use_spheroid, RegionMode mode, bool point_first)
{
	RegionTest t{};
	t.mode = mode;
	t.constant = -1;
	t.point_first = point_first;
	double r = radius;
	if (is_distance_mode(mode))
	{
		/* distances are >= 0 and finite: these bounds decide every row alike */
		if (std::isnan(radius))
			t.constant = compare(mode, 0.0, radius) ? 1 : 0;
		else if (radius < 0.0)
			t.constant = is_outer_mode(mode) ? 1 : 0;
		else if (mode == RegionMode::dist_ge && radius == 0.0)
			t.constant = 1;
		else if (mode == RegionMode::dist_lt && radius == 0.0)
			t.constant = 0;
		if (t.constant >= 0)
			r = 0.0;
	}
	else if (std::isnan(radius) || radius < 0.0)
	{
		/* ST_DWithin compares distance <= radius: false for every point */
		t.constant = mode == RegionMode::outside ? 1 : 0;
		r = 0.0;
	}
	t.circle = radius_test(centre, r, use_spheroid);
	return t;
}

RegionTest
region_box_meets(const Box3 &image)
{
	RegionTest t{};
	t.mode = RegionMode::box_meets;
	t.constant = -1;
	t.box = image;
	return t;
}

/* Judge a box against a region: inside, outside or maybe. */
Verdict
classify_region(const RegionTest &t, const Box3 &b)
{
	if (box_is_empty(b))
		return Verdict::outside; /* holds no point */
	if (t.mode == RegionMode::box_meets)
		return box_meets(t.box, b) ? Verdict::maybe : Verdict::outside;
	if (t.constant >= 0)
		return t.constant ? Verdict::inside : Verdict::outside;
	Verdict v = classify_box(t.circle, b);
	return is_outer_mode(t.mode) ? complement(v) : v;
}

/* Decide exactly whether a stored point is in the region. */
bool
point_in_region(const RegionTest &t, LonLat p)
{
	if (t.mode == RegionMode::box_meets)
		return true;
	if (t.constant >= 0)
		return t.constant != 0;
	if ((t.mode == RegionMode::within || t.mode == RegionMode::outside) && !t.point_first)
		return point_within(t.circle, p) == (t.mode == RegionMode::within);
	GeoPoint g = geographic_point(p);
	return point_in_region_at(t, p, g, unit_vector(g));
}

bool
region_is_outer(const RegionTest &t)
{
	return is_outer_mode(t.mode);
}

/* Decide the same, with the point's radians and unit vector given. */
bool
point_in_region_at(const RegionTest &t, LonLat p, GeoPoint g, const Vec3 &v)
{
	if (t.mode == RegionMode::box_meets)
		return true;
	if (t.constant >= 0)
		return t.constant != 0;
	/*
	 * The cheap tests first, as point_within; their slack exceeds both the
	 * rounding of ST_Distance and the asymmetry of the great-circle angle.
	 */
	const RadiusTest &c = t.circle;
	bool outer = is_outer_mode(t.mode);
	if (std::fabs(p.lat - c.center.lat * 180.0 / M_PI) > c.reject_dlat_deg)
		return outer;
	double c2 = chord2(v, c.q);
	if (c2 > c.reject_c2)
		return outer;
	if (c2 < c.accept_c2)
		return !outer;
	/* the band between the chord tests: the chord bracket decides most of it (point_within) */
	if (c.use_spheroid)
	{
		Bracket b;
		if (geodesic_bracket(ecef_of(v), c.center_ecef, &b))
		{
			bool dwithin_mode = t.mode == RegionMode::within || t.mode == RegionMode::outside;
			if (b.hi <= c.radius && (dwithin_mode || b.hi < c.radius))
				return dwithin_mode ? !outer : compare(t.mode, b.hi, c.radius);
			if (b.lo > c.radius)
				return dwithin_mode ? outer : compare(t.mode, b.lo, c.radius);
		}
	}
	if (t.mode == RegionMode::within || t.mode == RegionMode::outside)
	{
		bool within = t.point_first ? st_dwithin(g, c.center, c.radius, c.use_spheroid)
									: st_dwithin(c.center, g, c.radius, c.use_spheroid);
		return within == (t.mode == RegionMode::within);
	}
	return compare(t.mode, st_distance(c.center, g, c.use_spheroid), c.radius);
}

} // namespace geoidx
