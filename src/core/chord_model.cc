#include "chord_model.h"

#include <cmath>

namespace geoidx
{

/* The value and the first and second partial derivatives of |u - q|^2 at (lon0, lat0). */
ChordModel
chord_model(const Vec3 &q, double lon0, double lat0)
{
	double sl = std::sin(lon0), cl = std::cos(lon0);
	double sp = std::sin(lat0), cp = std::cos(lat0);
	Vec3 u{cp * cl, cp * sl, sp};
	/* u's partial derivatives; f's are -2 q.u' */
	Vec3 u_lon{-cp * sl, cp * cl, 0.0};
	Vec3 u_lat{-sp * cl, -sp * sl, cp};
	Vec3 u_lon_lon{-cp * cl, -cp * sl, 0.0};
	Vec3 u_lon_lat{sp * sl, -sp * cl, 0.0};
	ChordModel m;
	m.lon0 = lon0;
	m.lat0 = lat0;
	m.f0 = chord2(u, q);
	m.d_lon = -2.0 * dot(q, u_lon);
	m.d_lat = -2.0 * dot(q, u_lat);
	/* f'' / 2 for the squares, f'' for the cross term (u_lat_lat = -u) */
	m.h_lon_lon = -dot(q, u_lon_lon);
	m.h_lon_lat = -2.0 * dot(q, u_lon_lat);
	m.h_lat_lat = dot(q, u);
	return m;
}

} // namespace geoidx
