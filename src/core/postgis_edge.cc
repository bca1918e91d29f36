#include "postgis_edge.h"

#include <cmath>

namespace geoidx
{

namespace
{

/* PostGIS's FP_TOLERANCE, behind FP_EQUALS and FP_IS_ZERO. */
constexpr double kTolerance = 1e-12;

struct Cart
{
	double x, y, z;
};

Cart
cart_of(const GeoPoint &g)
{
	return Cart{std::cos(g.lat) * std::cos(g.lon), std::cos(g.lat) * std::sin(g.lon),
				std::sin(g.lat)};
}

double
dot_of(const Cart &a, const Cart &b)
{
	return (a.x * b.x) + (a.y * b.y) + (a.z * b.z);
}

/* PostGIS's normalize: a vector too short to have a direction becomes zero. */
void
make_unit(Cart *p)
{
	const double d = std::sqrt(p->x * p->x + p->y * p->y + p->z * p->z);
	if (std::fabs(d) <= kTolerance)
	{
		p->x = p->y = p->z = 0.0;
		return;
	}
	p->x = p->x / d;
	p->y = p->y / d;
	p->z = p->z / d;
}

/* The normal of the plane through p and q from their latitudes and longitudes (small edges stay
 * exact). */
Cart
robust_normal(const GeoPoint &p, const GeoPoint &q)
{
	const double lon_qpp = (q.lon + p.lon) / -2.0;
	const double lon_qmp = (q.lon - p.lon) / 2.0;
	const double s_minus = std::sin(p.lat - q.lat);
	const double s_plus = std::sin(p.lat + q.lat);
	const double sin_qpp = std::sin(lon_qpp);
	const double sin_qmp = std::sin(lon_qmp);
	const double cos_qpp = std::cos(lon_qpp);
	const double cos_qmp = std::cos(lon_qmp);
	return Cart{s_minus * sin_qpp * cos_qmp - s_plus * cos_qpp * sin_qmp,
				s_minus * cos_qpp * cos_qmp + s_plus * sin_qpp * sin_qmp,
				std::cos(p.lat) * std::cos(q.lat) * std::sin(q.lon - p.lon)};
}

/* Whether p lies in the cone of the edge's ends, with PostGIS's slack of 2e-16. */
bool
in_cone(const GeoPoint &start, const GeoPoint &end, const GeoPoint &p)
{
	const Cart vs = cart_of(start);
	const Cart ve = cart_of(end);
	if (vs.x == -1.0 * ve.x && vs.y == -1.0 * ve.y && vs.z == -1.0 * ve.z)
		return true;
	const Cart vp = cart_of(p);
	Cart mid{vs.x + ve.x, vs.y + ve.y, vs.z + ve.z};
	make_unit(&mid);
	const double s_dot = dot_of(vs, mid);
	const double p_dot = dot_of(vp, mid);
	return p_dot > s_dot || std::fabs(p_dot - s_dot) < 2e-16;
}

bool
same_point(const GeoPoint &a, const GeoPoint &b)
{
	return std::fabs(a.lat - b.lat) <= kTolerance && std::fabs(a.lon - b.lon) <= kTolerance;
}

} // namespace

double
postgis_edge_point_angle(const GeoPoint &start, const GeoPoint &end, const GeoPoint &p,
						 GeoPoint *closest)
{
	if (same_point(start, end))
	{
		*closest = start;
		return sphere_central_angle(start, p);
	}
	Cart n = robust_normal(start, end);
	make_unit(&n);
	const Cart c = cart_of(p);
	const double along = dot_of(c, n);
	n.x *= along;
	n.y *= along;
	n.z *= along;
	Cart k{c.x - n.x, c.y - n.y, c.z - n.z};
	make_unit(&k);
	const GeoPoint foot{std::atan2(k.y, k.x), std::asin(k.z)};

	double best = 1000000000.0;
	if (in_cone(start, end, foot))
		best = sphere_central_angle(p, foot);
	const double to_start = sphere_central_angle(p, start);
	const double to_end = sphere_central_angle(p, end);
	*closest = foot;
	if (to_start < best)
	{
		best = to_start;
		*closest = start;
	}
	if (to_end < best)
	{
		best = to_end;
		*closest = end;
	}
	return best;
}

} // namespace geoidx
