#include "hilbert.h"

#include <algorithm>
#include <cmath>

namespace geoidx
{

namespace
{

constexpr uint32_t kOrder = 30;

/* Map a unit-vector coordinate in [-1, 1] to a cell of the Hilbert grid. */
uint32_t
quantize(double t)
{
	/* t in [-1, 1] -> [0, 2^kOrder - 1] */
	double s = (t + 1.0) * 0.5 * static_cast<double>(1u << kOrder);
	if (!(s > 0.0))
		return 0;
	uint32_t max = (1u << kOrder) - 1;
	return s >= static_cast<double>(max) ? max : static_cast<uint32_t>(s);
}

} // namespace

/* Return the position of cell (x, y) along a Hilbert curve of the given order. */
uint64_t
hilbert_xy_to_d(uint32_t order, uint32_t x, uint32_t y)
{
	const uint32_t n = 1u << order;
	uint64_t d = 0;
	for (uint32_t s = n >> 1; s > 0; s >>= 1)
	{
		uint32_t rx = (x & s) ? 1 : 0;
		uint32_t ry = (y & s) ? 1 : 0;
		d += static_cast<uint64_t>(s) * s * ((3 * rx) ^ ry);
		/* rotate the quadrant so that the curve stays continuous */
		if (ry == 0)
		{
			if (rx == 1)
			{
				x = n - 1 - x;
				y = n - 1 - y;
			}
			std::swap(x, y);
		}
	}
	return d;
}

/* The inverse of hilbert_xy_to_d: the cell (x, y) at position d of a curve of the given order. */
void
hilbert_d_to_xy(uint32_t order, uint64_t d, uint32_t *x, uint32_t *y)
{
	uint32_t cx = 0, cy = 0;
	for (uint32_t s = 1; s < (1u << order); s <<= 1)
	{
		uint32_t rx = 1 & (uint32_t) (d / 2);
		uint32_t ry = 1 & (uint32_t) (d ^ rx);
		if (ry == 0)
		{
			if (rx == 1)
			{
				cx = s - 1 - cx;
				cy = s - 1 - cy;
			}
			std::swap(cx, cy);
		}
		cx += s * rx;
		cy += s * ry;
		d /= 4;
	}
	*x = cx;
	*y = cy;
}

/* Return the cube face and Hilbert position of a unit vector as one sort key. */
uint64_t
hilbert_key(const Vec3 &v)
{
	double ax = std::fabs(v.x), ay = std::fabs(v.y), az = std::fabs(v.z);
	uint64_t face;
	double u, w, m;
	if (ax >= ay && ax >= az)
	{
		face = v.x >= 0 ? 0 : 3;
		m = ax;
		u = v.y;
		w = v.z;
	}
	else if (ay >= az)
	{
		face = v.y >= 0 ? 1 : 4;
		m = ay;
		u = v.z;
		w = v.x;
	}
	else
	{
		face = v.z >= 0 ? 2 : 5;
		m = az;
		u = v.x;
		w = v.y;
	}
	if (!(m > 0.0))
		return 0;
	/* atan makes the cells of nearly equal area, as S2's projection does */
	double s = std::atan(u / m) * (4.0 / M_PI);
	double t = std::atan(w / m) * (4.0 / M_PI);
	return (face << 60) | hilbert_xy_to_d(kOrder, quantize(s), quantize(t));
}

} // namespace geoidx
