#include "search_keys.h"

#include <limits>

#include "geodesic_bracket.h"

namespace geoidx
{

/* Summarise n region keys for the page visitor and the frontier. */
SpatialKeys
spatial_keys(const RegionTest *regions, int n)
{
	SpatialKeys k;
	k.regions = regions;
	k.n = n;
	k.empty_matches = n > 0;
	k.near_side_keys = false;
	for (int i = 0; i < n; i++)
	{
		k.empty_matches &= empty_in_region(regions[i]);
		RegionMode m = regions[i].mode;
		k.near_side_keys |=
			(m == RegionMode::outside || m == RegionMode::dist_gt || m == RegionMode::dist_ge);
	}
	return k;
}

/* Judge a box against every key. */
Verdict
spatial_classify(const SpatialKeys &k, const Box3 &box)
{
	Verdict all = Verdict::inside;
	for (int i = 0; i < k.n; i++)
	{
		Verdict v = classify_region(k.regions[i], box);
		if (v == Verdict::outside)
			return k.empty_matches ? Verdict::maybe : v;
		if (v == Verdict::maybe)
			all = v;
	}
	return all;
}

/* Decide exactly whether a stored point satisfies every key. */
bool
spatial_point_matches(const SpatialKeys &k, LonLat p)
{
	for (int i = 0; i < k.n; i++)
		if (!point_in_region(k.regions[i], p))
			return false;
	return true;
}

/* Decide the same, with the point's radians and unit vector given. */
bool
spatial_point_matches_at(const SpatialKeys &k, LonLat p, GeoPoint g, const Vec3 &v)
{
	for (int i = 0; i < k.n; i++)
		if (!point_in_region_at(k.regions[i], p, g, v))
			return false;
	return true;
}

/* Gather the chord tests of the keys around q. */
ChordKeys
chord_keys(const SpatialKeys &k, const Vec3 &q)
{
	ChordKeys ck{};
	ck.complete = true;
	for (int i = 0; i < k.n; i++)
	{
		const RegionTest &t = k.regions[i];
		if (t.mode == RegionMode::box_meets || t.constant == 1)
			continue;
		if (t.constant == 0)
		{
			ck.never = true;
			continue;
		}
		bool same_centre = t.circle.q.x == q.x && t.circle.q.y == q.y && t.circle.q.z == q.z;
		if (!same_centre || ck.n == kMaxChordTests)
		{
			ck.complete = false;
			continue;
		}
		const RadiusTest &c = t.circle;
		double far = 0.0, near = 0.0;
		bool bracketed = c.use_spheroid && bracket_chord_thresholds(c.radius, &far, &near);
		ck.ellipsoid |= bracketed;
		ck.t[ck.n++] = ChordTest{
			c.center.lat * 180.0 / M_PI,
			c.reject_dlat_deg,
			c.reject_c2,
			c.accept_c2,
			region_is_outer(t),
			bracketed ? (far / kWgs84A) * (far / kWgs84A) : std::numeric_limits<double>::infinity(),
			bracketed && near > 0.0 ? (near / kWgs84A) * (near / kWgs84A) : -1.0};
	}
	return ck;
}

/* The out-of-range case of stored_lonlat. */
LonLat
stored_lonlat_wrapped(double x, double y)
{
	LonLat ll = {0.0, 0.0};
	(void) normalize_like_geography(x, y, &ll);
	return ll;
}

} // namespace geoidx
