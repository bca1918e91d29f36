/*
 * A k-NN search of the core on malloc'ed memory, for the micro benchmarks:
 * the callbacks it allocates through, and its end. No page is ever read
 * (visit_page is null): the benchmarks hand the search its chunks themselves.
 */
#pragma once

#include <cstdlib>

#include "knn_search.h"

namespace geoidx_micro
{

inline geoidx::SearchItem *
malloc_grow(void *, geoidx::SearchItem *old, size_t cap)
{
	return (geoidx::SearchItem *) realloc(old, sizeof(geoidx::SearchItem) * cap);
}

inline void *
malloc_alloc(void *, size_t bytes)
{
	return malloc(bytes);
}

inline void
malloc_release(void *, void *p)
{
	free(p);
}

inline geoidx::KnnCallbacks
malloc_callbacks()
{
	return geoidx::KnnCallbacks{nullptr,      nullptr,        malloc_grow,
								malloc_alloc, malloc_release, nullptr};
}

/* Free what a finished search holds, its heap's array too. */
inline void
malloc_search_finish(geoidx::KnnSearch *s)
{
	geoidx::knn_finish(s);
	free(s->heap.items);
}

} // namespace geoidx_micro
