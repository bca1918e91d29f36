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

/* The model about the direction of the box's middle. */
bool
chord_model_of_box(const Vec3 &q, const Box3 &b, ChordModel *m)
{
	if (box_is_empty(b))
		return false;
	double d2 = 0.0;
	for (int a = 0; a < 3; a++)
		d2 += (b.hi[a] - b.lo[a]) * (b.hi[a] - b.lo[a]);
	if (!(d2 < kChordModelMaxSpan * kChordModelMaxSpan))
		return false;
	double x = 0.5 * (b.lo[0] + b.hi[0]), y = 0.5 * (b.lo[1] + b.hi[1]),
		   z = 0.5 * (b.lo[2] + b.hi[2]);
	*m = chord_model(q, std::atan2(y, x), std::atan2(z, std::hypot(x, y)));
	return true;
}

} // namespace geoidx
