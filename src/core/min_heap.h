/*
 * A binary min-heap over caller-owned storage. It allocates nothing itself:
 * the PostgreSQL glue hands it memory from the scan's memory context (so an
 * ereport in the middle of a scan leaks nothing and no destructor is skipped),
 * and the unit tests hand it malloc'ed memory.
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
}

/* T must define bool operator<(const T&) const: the strict order of the heap. */
template <typename T>
void
heap_push(MinHeap<T> *h, const T &item)
{
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

template <typename T>
const T &
heap_top(const MinHeap<T> *h)
{
	return h->items[0];
}

template <typename T>
T
heap_pop(MinHeap<T> *h)
{
	T top = h->items[0];
	T last = h->items[--h->size];
	size_t i = 0;
	size_t n = h->size;
	for (;;)
	{
		size_t l = 2 * i + 1;
		if (l >= n)
			break;
		size_t c = (l + 1 < n && h->items[l + 1] < h->items[l]) ? l + 1 : l;
		if (!(h->items[c] < last))
			break;
		h->items[i] = h->items[c];
		i = c;
	}
	if (n > 0)
		h->items[i] = last;
	return top;
}

} // namespace geoidx
