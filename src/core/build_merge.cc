#include "build_merge.h"

namespace geoidx
{

size_t
build_merge_pick(const BuildRunHead *runs, size_t n)
{
	size_t best = n;
	for (size_t i = 0; i < n; i++)
	{
		if (runs[i].next == runs[i].end)
			continue;
		if (best == n || build_point_before(*runs[i].next, *runs[best].next))
			best = i;
	}
	return best;
}

} // namespace geoidx
