#include "arc_box.h"

#include <algorithm>
#include <cmath>

namespace geoidx
{

namespace
{

/* Rounding of a unit vector's coordinates and of the products below: a few ulps of 1. */
constexpr double kUnitSlack = 1e-15;
/*
 * The normal of ends |a x b| apart is off in direction by about 1e-16 / |a x b|
 * (each coordinate of the cross product is rounded to ~2e-16), which moves the
 * circle's extremes by as much; eight times that covers both our rounding and
 * that of the code that draws the arc (PostGIS's own normal).
 */
constexpr double kNormalSlack = 8e-16;
/*
 * An extreme counts as on the arc when it lies up to this (a sine) beyond an
 * end: such an extreme exceeds the arc's own by at most ~1e-18, and the test
 * never leaves out an extreme that is on the arc for rounding.
 */
constexpr double kOnArcSlack = 1e-9;
/* The squared chord under which the sagitta box alone is the arc's box (arc_box). */
constexpr double kShortChord2 = 1e-10;

void
box_pad(Box3 *b, double pad)
{
	for (int i = 0; i < 3; i++)
	{
		b->lo[i] -= pad;
		b->hi[i] += pad;
	}
}

/* True if p lies on the arc from a to b about the unit normal n, ends included. */
bool
on_arc(const Vec3 &a, const Vec3 &b, const Vec3 &n, const Vec3 &p)
{
	return dot(cross(a, p), n) >= -kOnArcSlack && dot(cross(p, b), n) >= -kOnArcSlack;
}

/* The ends' box extended by the circle's extremes that lie on the arc. */
Box3
extremes_box(const Vec3 &a, const Vec3 &b, const Vec3 &n_raw, double n_len)
{
	const Vec3 n{n_raw.x / n_len, n_raw.y / n_len, n_raw.z / n_len};
	Box3 box = box_of(a);
	box_extend(&box, b);
	for (int i = 0; i < 3; i++)
	{
		const int j = (i + 1) % 3, k = (i + 2) % 3;
		/* the extreme of coordinate i on the circle: sqrt(1 - n_i^2), computed without cancellation
		 */
		const double v = std::hypot(coord(n, j), coord(n, k));
		if (v == 0.0)
			continue; /* the circle lies in the plane v_i = 0, as do its ends */
		double p[3];
		p[i] = v;
		p[j] = -coord(n, i) * coord(n, j) / v;
		p[k] = -coord(n, i) * coord(n, k) / v;
		const Vec3 top{p[0], p[1], p[2]};
		const Vec3 bottom{-p[0], -p[1], -p[2]};
		if (on_arc(a, b, n, top))
			box.hi[i] = std::max(box.hi[i], v);
		if (on_arc(a, b, n, bottom))
			box.lo[i] = std::min(box.lo[i], -v);
	}
	box_pad(&box, kUnitSlack + kNormalSlack / n_len);
	return box;
}

} // namespace

Box3
arc_sagitta_box(const Vec3 &a, const Vec3 &b)
{
	Box3 box = box_of(a);
	box_extend(&box, b);
	double quarter_c2 = chord2(a, b) / 4.0;
	double sagitta = quarter_c2 / (1.0 + std::sqrt(std::max(0.0, 1.0 - quarter_c2)));
	box_pad(&box, sagitta * (1.0 + 1e-9) + kUnitSlack);
	return box;
}

Box3
box_sphere()
{
	return Box3{{-1.0, -1.0, -1.0}, {1.0, 1.0, 1.0}};
}

Box3
arc_box(const Vec3 &a, const Vec3 &b)
{
	if (dot(a, b) < kAntipodalDot)
		return box_sphere();
	Box3 box = arc_sagitta_box(a, b);
	/*
	 * Under a chord of 1e-5 the sagitta pad (<= 1.3e-11) is at least six times
	 * smaller than the extremes' (>= 8e-16 / |a x b| >= 8e-11), so the
	 * intersection below is the sagitta box to the bit: skip the extremes.
	 */
	if (chord2(a, b) < kShortChord2)
		return box;
	const Vec3 n = cross(a, b);
	const double n_len = std::sqrt(dot(n, n));
	if (n_len > 0.0)
	{
		const Box3 e = extremes_box(a, b, n, n_len);
		for (int i = 0; i < 3; i++)
		{
			box.lo[i] = std::max(box.lo[i], e.lo[i]);
			box.hi[i] = std::min(box.hi[i], e.hi[i]);
		}
	}
	return box;
}

Vec3
axis_point(int index)
{
	const double s = (index % 2 == 0) ? 1.0 : -1.0;
	switch (index / 2)
	{
		case 0:
			return Vec3{s, 0.0, 0.0};
		case 1:
			return Vec3{0.0, s, 0.0};
		default:
			return Vec3{0.0, 0.0, s};
	}
}

void
box_extend_axis_points(Box3 *b, unsigned mask)
{
	for (int i = 0; i < kAxisPoints; i++)
		if (mask & (1u << i))
			box_extend(b, axis_point(i));
}

} // namespace geoidx
