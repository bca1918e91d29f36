#include "heap_order.h"

#include <cstring>

namespace geoidx
{

namespace
{

/* Few keys: insertion sort beats six counting passes. */
constexpr size_t kInsertionSortMax = 48;

void
insertion_sort(uint64_t *keys, size_t n)
{
	for (size_t i = 1; i < n; i++)
	{
		uint64_t k = keys[i];
		size_t j = i;
		for (; j > 0 && (keys[j - 1] >> 16) > (k >> 16); j--)
			keys[j] = keys[j - 1];
		keys[j] = k;
	}
}

} // namespace

void
sort_heap_order(uint64_t *keys, uint64_t *scratch, size_t n)
{
	if (n <= kInsertionSortMax)
	{
		insertion_sort(keys, n);
		return;
	}
	uint64_t *from = keys, *to = scratch;
	for (int shift = 16; shift < 64; shift += 8)
	{
		size_t count[256] = {0};
		for (size_t i = 0; i < n; i++)
			count[(from[i] >> shift) & 0xFF]++;
		if (count[(from[0] >> shift) & 0xFF] == n)
			continue; /* every key has this byte: the order stays */
		size_t start = 0;
		for (size_t &c : count)
		{
			size_t here = c;
			c = start;
			start += here;
		}
		for (size_t i = 0; i < n; i++)
			to[count[(from[i] >> shift) & 0xFF]++] = from[i];
		uint64_t *t = from;
		from = to;
		to = t;
	}
	if (from != keys)
		memcpy(keys, from, n * sizeof(uint64_t));
}

} // namespace geoidx
