#include "dwithin_memo.h"

#include <cmath>

namespace geoidx
{

namespace
{

/* Return whether two raw points are the same key. */
bool
same(RawPoint p, RawPoint q)
{
	return p.x == q.x && p.y == q.y;
}

} // namespace

/* Return the centre of the memo's test for this call, rebuilding it if need be. */
DwithinCentre
dwithin_memo_centre(DwithinMemo *m, RawPoint a, GeoPoint ga, RawPoint b, GeoPoint gb, double radius,
					bool use_spheroid)
{
	int centre = 0;
	if (m->valid && m->radius == radius && m->use_spheroid == use_spheroid)
	{
		if (same(b, m->centre))
			centre = 2;
		else if (same(a, m->centre))
			centre = 1;
	}
	if (centre == 0)
	{
		/* Build it around the argument that did not change since the last call (b by default). */
		bool a_constant = m->have_last && same(a, m->last_a) && !same(b, m->last_b);
		centre = a_constant ? 1 : 2;
		m->centre = centre == 1 ? a : b;
		m->radius = radius;
		m->use_spheroid = use_spheroid;
		m->test = radius_test(centre == 1 ? ga : gb, radius, use_spheroid);
		m->center_lat_deg = m->test.center.lat * 180.0 / M_PI;
		m->valid = true;
	}
	m->have_last = true;
	m->last_a = a;
	m->last_b = b;
	return centre == 1 ? DwithinCentre::a : DwithinCentre::b;
}

/* Judge a pair with the memo's cheap tests: inside, outside or maybe. */
Verdict
dwithin_memo_classify(DwithinMemo *m, RawPoint a, LonLat lla, RawPoint b, LonLat llb, double radius,
					  bool use_spheroid)
{
	GeoPoint ga = geographic_point(lla);
	GeoPoint gb = geographic_point(llb);
	DwithinCentre centre = dwithin_memo_centre(m, a, ga, b, gb, radius, use_spheroid);
	const LonLat &other = centre == DwithinCentre::a ? llb : lla;
	const GeoPoint &gother = centre == DwithinCentre::a ? gb : ga;
	if (std::fabs(other.lat - m->center_lat_deg) > m->test.reject_dlat_deg)
		return Verdict::outside;
	return classify_box(m->test, box_of(unit_vector(gother)));
}

/* Return ST_DWithin(a, b, radius, use_spheroid), cheap tests first. */
bool
dwithin_memo_test(DwithinMemo *m, RawPoint a, LonLat lla, RawPoint b, LonLat llb, double radius,
				  bool use_spheroid)
{
	switch (dwithin_memo_classify(m, a, lla, b, llb, radius, use_spheroid))
	{
		case Verdict::outside:
			return false;
		case Verdict::inside:
			return true;
		case Verdict::maybe:
			break;
	}
	/* The cheap tests are symmetric bounds; the exact test keeps PostGIS's argument order. */
	return st_dwithin(geographic_point(lla), geographic_point(llb), radius, use_spheroid);
}

} // namespace geoidx
