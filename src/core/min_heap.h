/*
 * A binary min-heap over caller-owned storage. It allocates nothing itself:
 * the PostgreSQL glue hands it memory from the scan's memory context (so an
 * ereport in the middle of a scan leaks nothing and no destructor is skipped),
 * and the unit tests hand it malloc'ed memory.
 *
 * heap_take removes the top but leaves its slot empty (a hole at the root)
 * until the next push fills it or the next take or pop closes it (heap_min
 * reads around it): a search that takes its nearest
 * item and puts something near the top back (the item refined, a chunk's
 * next point) fills the hole with one short sift down, where a pop and a push
 * walked the whole depth twice, each level a compare the branch predictor
 * cannot learn (bench/PROFILES.md, R2).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "pg_free.h"

namespace geoidx
{

template <typename T> struct MinHeap
{
	T *items;
	size_t size;
	size_t capacity;
	/* Returns storage for new_capacity items holding the first size items of old. */
	T *(*grow)(void *ctx, T *old, size_t new_capacity);
	void *ctx;
	bool hole; /* items[0] was taken and not refilled; size counts it */
};

template <typename T>
void
heap_init(MinHeap<T> *h, T *(*grow)(void *, T *, size_t), void *ctx)
{
	h->items = nullptr;
	h->size = 0;
	h->capacity = 0;
	h->grow = grow;
	h->ctx = ctx;
	h->hole = false;
}

/* The number of items in the heap. */
template <typename T>
size_t
heap_count(const MinHeap<T> *h)
{
	return h->size - (h->hole ? 1 : 0);
}

/* Place item at slot i, whose subtrees are heaps, moving smaller children up. */
template <typename T>
void
heap_sift_down(MinHeap<T> *h, size_t i, const T &item)
{
	size_t n = h->size;
	for (;;)
	{
		size_t l = 2 * i + 1;
		if (l >= n)
			break;
		size_t c = (l + 1 < n && h->items[l + 1] < h->items[l]) ? l + 1 : l;
		if (!(h->items[c] < item))
			break;
		h->items[i] = h->items[c];
		i = c;
	}
	h->items[i] = item;
}

/* Close a hole left by heap_take: the last item goes to the root and down. */
template <typename T>
void
heap_settle(MinHeap<T> *h)
{
	if (!h->hole)
		return;
	h->hole = false;
	T last = h->items[--h->size];
	if (h->size > 0)
		heap_sift_down(h, 0, last);
}

/* T must define bool operator<(const T&) const: the strict order of the heap. */
template <typename T>
void
heap_push(MinHeap<T> *h, const T &item)
{
	if (h->hole)
	{
		h->hole = false;
		heap_sift_down(h, 0, item);
		return;
	}
	if (h->size == h->capacity)
	{
		size_t cap = h->capacity ? h->capacity * 2 : 64;
		h->items = h->grow(h->ctx, h->items, cap);
		h->capacity = cap;
	}
	size_t i = h->size++;
	while (i > 0)
	{
		size_t parent = (i - 1) / 2;
		if (!(item < h->items[parent]))
			break;
		h->items[i] = h->items[parent];
		i = parent;
	}
	h->items[i] = item;
}

/*
 * The smallest item, or null when there is none. With a hole at the root it
 * is the smaller of the root's children, each the top of a heap, so reading
 * it does not close the hole.
 */
template <typename T>
const T *
heap_min(const MinHeap<T> *h)
{
	if (!h->hole)
		return h->size > 0 ? &h->items[0] : nullptr;
	if (h->size < 2)
		return nullptr;
	if (h->size > 2 && h->items[2] < h->items[1])
		return &h->items[2];
	return &h->items[1];
}

/* Remove and return the smallest item, leaving its slot for the next push. */
template <typename T>
T
heap_take(MinHeap<T> *h)
{
	heap_settle(h);
	h->hole = true;
	return h->items[0];
}

template <typename T>
T
heap_pop(MinHeap<T> *h)
{
	T top = heap_take(h);
	heap_settle(h);
	return top;
}

} // namespace geoidx
