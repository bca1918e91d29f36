/*
 * The merge of a parallel bulk build: each participant sorts its share of the
 * rows into runs (sort_build_points), and the leader reads the runs' heads in
 * the build order, one record at a time. The order is total (key, then TID),
 * so the merged stream, and so the index, is the same whatever the number of
 * participants and runs.
 */
#pragma once

#include "build_sort.h"

namespace geoidx
{

/* Whether a comes before b in the build order: by key, then TID (the kind is not part of it). */
inline bool
build_point_before(const BuildPoint &a, const BuildPoint &b)
{
	if (a.key != b.key)
		return a.key < b.key;
	return (a.tid & kBuildTidMask) < (b.tid & kBuildTidMask);
}

/* What of one sorted run is in memory: the records [next, end); empty when the run is exhausted. */
struct BuildRunHead
{
	const BuildPoint *next;
	const BuildPoint *end;
};

/*
 * The run whose next record comes first in the build order; n when every run
 * is empty. A run whose buffer ran dry must be refilled before the next pick.
 * Linear in n: a build has a few runs per participant.
 */
size_t build_merge_pick(const BuildRunHead *runs, size_t n);

} // namespace geoidx
