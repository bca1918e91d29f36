#include "chord_model.h"

#include <algorithm>
#include <cmath>

namespace geoidx
{

namespace
{

/* A model's middle (radians) with its sines and cosines. */
struct Middle
{
	double lon0, lat0;
	double sl, cl, sp, cp; /* sin and cos of lon0, of lat0 */
};

Middle
middle_at(double lon0, double lat0)
{
	return Middle{lon0, lat0, std::sin(lon0), std::cos(lon0), std::sin(lat0), std::cos(lat0)};
}

/* The value and the first and second partial derivatives of |u - q|^2 at the middle c. */
ChordModel
chord_model_with(const Vec3 &q, const Middle &c)
{
	double lon0 = c.lon0, lat0 = c.lat0, sl = c.sl, cl = c.cl, sp = c.sp, cp = c.cp;
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
	m.third = 1.0 / 3.0;
	m.sin_lon0 = sl;
	m.cos_lon0 = cl;
	m.sin_lat0 = sp;
	m.cos_lat0 = cp;
	return m;
}

/* Grid multiples k of kChordGridStep with |k| <= kGridMax cover every longitude and latitude. */
constexpr int kGridMax = 403;
static_assert(kGridMax * kChordGridStep >= M_PI, "the grid covers +-pi");

struct GridTrig
{
	double sin[2 * kGridMax + 1];
	double cos[2 * kGridMax + 1];
};

/* std::sin and std::cos of every grid angle, computed once (~13 kB). */
const GridTrig &
grid_trig()
{
	static const GridTrig table = []
	{
		GridTrig t;
		for (int k = -kGridMax; k <= kGridMax; k++)
		{
			t.sin[k + kGridMax] = std::sin(k * kChordGridStep);
			t.cos[k + kGridMax] = std::cos(k * kChordGridStep);
		}
		return t;
	}();
	return table;
}

int
grid_index(double angle)
{
	double k = chord_grid_angle(angle) / kChordGridStep;
	return (int) std::max<double>(-kGridMax, std::min<double>(kGridMax, k));
}

} // namespace

ChordModel
chord_model(const Vec3 &q, double lon0, double lat0)
{
	return chord_model_with(q, middle_at(lon0, lat0));
}

ChordModel
chord_model_near(const Vec3 &q, double lon0, double lat0)
{
	const GridTrig &t = grid_trig();
	int i = grid_index(lon0), j = grid_index(lat0);
	return chord_model_with(q,
							Middle{i * kChordGridStep, j * kChordGridStep, t.sin[i + kGridMax],
								   t.cos[i + kGridMax], t.sin[j + kGridMax], t.cos[j + kGridMax]});
}

/*
 * The ellipsoid's point e = (p cos lon, p sin lon, z) over a, with p = n cos lat,
 * z = n (1 - e2) sin lat, n = 1 / sqrt(1 - e2 sin^2 lat): p' = -m sin lat and
 * z' = m cos lat, m = (1 - e2) n^3 (the meridian's radius of curvature over a),
 * and m' = 3 e2 n^2 sin lat cos lat m.
 */
namespace
{

ChordModel
ellipsoid_model_at(const Ecef &centre, const Middle &c)
{
	double lon0 = c.lon0, lat0 = c.lat0, sl = c.sl, cl = c.cl, sp = c.sp, cp = c.cp;
	constexpr double e2 = 1.0 - (kWgs84B / kWgs84A) * (kWgs84B / kWgs84A);
	double n = 1.0 / std::sqrt(1.0 - e2 * sp * sp);
	double m = (1.0 - e2) * n * n * n;
	double m1 = 3.0 * e2 * n * n * sp * cp * m;
	double p = n * cp, z = n * (1.0 - e2) * sp;
	double p1 = -m * sp, z1 = m * cp;
	double p2 = -m1 * sp - m * cp, z2 = m1 * cp - m * sp;
	Vec3 d{p * cl - centre.x, p * sl - centre.y, z - centre.z};
	Vec3 e_lon{-p * sl, p * cl, 0.0};
	Vec3 e_lat{p1 * cl, p1 * sl, z1};
	Vec3 e_lon_lon{-p * cl, -p * sl, 0.0};
	Vec3 e_lon_lat{-p1 * sl, p1 * cl, 0.0};
	Vec3 e_lat_lat{p2 * cl, p2 * sl, z2};
	/* f = |d|^2: f' = 2 d.e', f'' = 2 (e'.e' + d.e'') */
	ChordModel r;
	r.lon0 = lon0;
	r.lat0 = lat0;
	r.f0 = dot(d, d);
	r.d_lon = 2.0 * dot(d, e_lon);
	r.d_lat = 2.0 * dot(d, e_lat);
	r.h_lon_lon = dot(e_lon, e_lon) + dot(d, e_lon_lon);
	r.h_lon_lat = 2.0 * (dot(e_lon, e_lat) + dot(d, e_lon_lat));
	r.h_lat_lat = dot(e_lat, e_lat) + dot(d, e_lat_lat);
	r.third = kEllipsoidModelThird / 6.0;
	r.sin_lon0 = sl;
	r.cos_lon0 = cl;
	r.sin_lat0 = sp;
	r.cos_lat0 = cp;
	return r;
}

} // namespace

ChordModel
ellipsoid_chord_model(const Ecef &centre, double lon0, double lat0)
{
	return ellipsoid_model_at(centre, middle_at(lon0, lat0));
}

ChordModel
ellipsoid_chord_model(const Ecef &centre, const ChordModel &sphere)
{
	return ellipsoid_model_at(centre, Middle{sphere.lon0, sphere.lat0, sphere.sin_lon0,
											 sphere.cos_lon0, sphere.sin_lat0, sphere.cos_lat0});
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
