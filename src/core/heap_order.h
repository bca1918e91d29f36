/*
 * Heap order for an unordered scan's rows. The executor fetches each row the
 * index returns from the heap; it keeps the heap page pinned while the next
 * row is on the same page, so rows handed over in heap order (block, then
 * offset) cost one buffer lookup per page instead of one per row, which is
 * most of a radius query's time when the heap is not clustered. A batch's rows
 * are keyed by their heap position with their place in the batch in the low
 * bits, and the keys sorted.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "pg_free.h"

namespace geoidx
{

/* The most rows one batch can order: a key keeps the row's place in its low 16 bits. */
constexpr size_t kHeapOrderMax = 65536;

inline uint64_t
heap_order_key(uint32_t block, uint16_t offset, size_t place)
{
	return (uint64_t) block << 32 | (uint64_t) offset << 16 | (uint64_t) (place & 0xFFFF);
}

inline size_t
heap_order_place(uint64_t key)
{
	return (size_t) (key & 0xFFFF);
}

/* The heap block of a key: a batch counts the pages it reads by its keys' blocks. */
inline uint32_t
heap_order_block(uint64_t key)
{
	return (uint32_t) (key >> 32);
}

/*
 * Sort n keys by heap position, with scratch room for n more: an LSD radix
 * sort on the six bytes above the place, skipping a byte every key shares (the
 * high bytes of block numbers usually are). It is stable: keys of one heap
 * position (a scan has none) keep their order.
 */
void sort_heap_order(uint64_t *keys, uint64_t *scratch, size_t n);

} // namespace geoidx
