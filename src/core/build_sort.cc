#include "build_sort.h"

#include "build_merge.h"

#include <algorithm>

namespace geoidx
{

void
sort_build_points(BuildPoint *points, size_t n)
{
	/* a lambda, not the function's address, so that the comparison is inlined */
	std::sort(points, points + n,
			  [](const BuildPoint &a, const BuildPoint &b) { return build_point_before(a, b); });
}

} // namespace geoidx
