#include "packed_box.h"

#include <algorithm>
#include <cmath>

namespace geoidx
{

namespace
{

constexpr int kBits = 21;
constexpr uint64_t kMask = (uint64_t(1) << kBits) - 1;
/* [-1, 1] maps onto [0, kTop] */
constexpr uint64_t kTop = kMask - 1;
constexpr double kScale = double(kTop) / 2.0;

uint64_t
grid_down(double c)
{
	double g = std::floor((c + 1.0) * kScale) - 1.0;
	if (std::isnan(g) || g <= 0.0)
		return 0;
	return g >= double(kTop) ? kTop : uint64_t(g);
}

uint64_t
grid_up(double c)
{
	double g = std::ceil((c + 1.0) * kScale) + 1.0;
	if (std::isnan(g) || g >= double(kTop))
		return kTop;
	return g <= 0.0 ? 0 : uint64_t(g);
}

double
from_grid(uint64_t g)
{
	return double(g) / kScale - 1.0;
}

} // namespace

/* Six 21-bit fields: lo x, y, z, hi x, y, z, three to a word. */
PackedBox
pack_box(const Box3 &b)
{
	PackedBox p{{0, 0}};
	for (int a = 0; a < 3; a++)
	{
		p.w[0] |= grid_down(b.lo[a]) << (kBits * a);
		p.w[1] |= grid_up(b.hi[a]) << (kBits * a);
	}
	return p;
}

Box3
unpack_box(const PackedBox &p)
{
	Box3 b;
	for (int a = 0; a < 3; a++)
	{
		/* from_grid rounds within 1e-16, far inside the extra grid step of the packing */
		b.lo[a] = from_grid((p.w[0] >> (kBits * a)) & kMask);
		b.hi[a] = from_grid((p.w[1] >> (kBits * a)) & kMask);
	}
	return b;
}

} // namespace geoidx
