#include "build_sort.h"

#include <algorithm>

namespace geoidx
{

void
sort_build_points(BuildPoint *points, size_t n)
{
	std::sort(points, points + n,
			  [](const BuildPoint &a, const BuildPoint &b)
			  {
				  if (a.key != b.key)
					  return a.key < b.key;
				  return (a.tid & kBuildTidMask) < (b.tid & kBuildTidMask);
			  });
}

} // namespace geoidx
