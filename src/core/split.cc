#include "split.h"

#include <algorithm>
#include <limits>

namespace geoidx
{

/* Cut a full page's entries in two along the axis they spread most on. */
void
choose_split(const Box3 *boxes, size_t n, size_t min_fill, size_t *order, size_t *left_count,
			 Box3 *prefix, double *keys)
{
	Box3 all = box_empty();
	for (size_t i = 0; i < n; i++)
		box_extend(&all, boxes[i]);
	int axis = 0;
	for (int a = 1; a < 3; a++)
		if (all.hi[a] - all.lo[a] > all.hi[axis] - all.lo[axis])
			axis = a;

	for (size_t i = 0; i < n; i++)
	{
		order[i] = i;
		/* an empty box (a NULL or EMPTY row, or a page of them) sorts last: one cut can isolate
		 * them */
		keys[i] = box_is_empty(boxes[i]) ? std::numeric_limits<double>::infinity()
										 : (boxes[i].lo[axis] + boxes[i].hi[axis]) * 0.5;
	}
	/* index as a tie-breaker keeps the split deterministic */
	std::sort(order, order + n,
			  [keys](size_t a, size_t b)
			  { return keys[a] < keys[b] || (keys[a] == keys[b] && a < b); });

	Box3 *suffix = prefix + n;
	Box3 acc = box_empty();
	for (size_t i = 0; i < n; i++)
	{
		box_extend(&acc, boxes[order[i]]);
		prefix[i] = acc;
	}
	acc = box_empty();
	for (size_t i = n; i-- > 0;)
	{
		box_extend(&acc, boxes[order[i]]);
		suffix[i] = acc;
	}

	if (min_fill < 1)
		min_fill = 1;
	if (2 * min_fill > n)
		min_fill = n / 2;
	size_t best = n / 2;
	double best_cost = -1.0;
	for (size_t k = min_fill; k + min_fill <= n && k < n; k++)
	{
		if (k == 0)
			continue;
		double cost = box_margin(prefix[k - 1]) + box_margin(suffix[k]);
		if (best_cost < 0.0 || cost < best_cost)
		{
			best_cost = cost;
			best = k;
		}
	}
	*left_count = best;
}

/* Move a split's cut to the nearest one where both halves fit in bytes. */
size_t
fitting_cut(const size_t *bytes, size_t n, size_t capacity, size_t preferred)
{
	size_t total = 0, left = 0;
	for (size_t k = 0; k < n; k++)
	{
		total += bytes[k];
		if (k < preferred)
			left += bytes[k];
	}
	if (preferred <= n && left <= capacity && total - left <= capacity)
		return preferred;
	size_t best = 0, best_distance = 0;
	left = 0;
	for (size_t k = 1; k < n; k++)
	{
		left += bytes[k - 1];
		if (left > capacity || total - left > capacity)
			continue;
		size_t distance = k > preferred ? k - preferred : preferred - k;
		if (best == 0 || distance < best_distance)
		{
			best = k;
			best_distance = distance;
		}
	}
	return best;
}

} // namespace geoidx
