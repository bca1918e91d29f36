/*
 * MinHeap over malloc'ed storage against std::priority_queue and std::sort.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <queue>
#include <random>
#include <vector>

#include "min_heap.h"

namespace
{

using namespace geoidx;

struct Item
{
	double key;
	uint32_t id;
	bool
	operator<(const Item &o) const
	{
		return key < o.key;
	}
};

struct GrowLog
{
	MinHeap<Item> *heap;
	int calls;
	size_t last_capacity;
};

/* The contract: storage for new_capacity items holding the first size items of old. */
Item *
malloc_grow(void *ctx, Item *old, size_t new_capacity)
{
	GrowLog *log = static_cast<GrowLog *>(ctx);
	Item *fresh = static_cast<Item *>(std::malloc(new_capacity * sizeof(Item)));
	if (old != nullptr)
	{
		std::memcpy(fresh, old, log->heap->size * sizeof(Item));
		std::free(old);
	}
	log->calls++;
	log->last_capacity = new_capacity;
	return fresh;
}

struct Heap
{
	MinHeap<Item> h;
	GrowLog log;
	Heap()
	{
		log = GrowLog{&h, 0, 0};
		heap_init(&h, malloc_grow, &log);
	}
	~Heap() { std::free(h.items); }
};

} // namespace

TEST(MinHeap, HeapSortEqualsStdSort)
{
	std::mt19937_64 rng(5);
	std::uniform_real_distribution<double> u(-1e6, 1e6);
	for (size_t n : {0u, 1u, 2u, 3u, 63u, 64u, 65u, 1000u, 100000u})
	{
		Heap heap;
		std::vector<double> keys;
		for (size_t i = 0; i < n; i++)
		{
			double k = (i % 7 == 0) ? std::floor(u(rng) / 1e5) : u(rng); /* some duplicates */
			keys.push_back(k);
			heap_push(&heap.h, Item{k, static_cast<uint32_t>(i)});
		}
		ASSERT_EQ(heap.h.size, n);
		std::sort(keys.begin(), keys.end());
		std::vector<char> seen(n, 0);
		for (size_t i = 0; i < n; i++)
		{
			ASSERT_EQ(heap_min(&heap.h)->key, keys[i]);
			Item it = heap_pop(&heap.h);
			ASSERT_EQ(it.key, keys[i]) << "n=" << n << " i=" << i;
			ASSERT_LT(it.id, n);
			ASSERT_FALSE(seen[it.id]) << "item popped twice";
			seen[it.id] = 1;
		}
		ASSERT_EQ(heap.h.size, 0u);
	}
}

TEST(MinHeap, InterleavedAgainstPriorityQueue)
{
	std::mt19937_64 rng(6);
	std::uniform_int_distribution<int> small(0, 50); /* many ties */
	std::uniform_real_distribution<double> wide(0, 1);
	long ops = 0;
	for (int round = 0; round < 4; round++)
	{
		Heap heap;
		std::priority_queue<double, std::vector<double>, std::greater<double>> ref;
		for (int i = 0; i < 100000; i++)
		{
			/* grow for a while, then drain */
			bool push = ref.empty() || (rng() % 100) < (i < 70000 ? 60u : 30u);
			if (push)
			{
				double k = round % 2 ? small(rng) : wide(rng);
				heap_push(&heap.h, Item{k, static_cast<uint32_t>(i)});
				ref.push(k);
			}
			else
			{
				ASSERT_EQ(heap_min(&heap.h)->key, ref.top());
				ASSERT_EQ(heap_pop(&heap.h).key, ref.top());
				ref.pop();
			}
			ASSERT_EQ(heap.h.size, ref.size());
			ops++;
		}
		while (!ref.empty())
		{
			ASSERT_EQ(heap_pop(&heap.h).key, ref.top());
			ref.pop();
		}
	}
	RecordProperty("ops", std::to_string(ops));
}

/*
 * A search's use: take the top, then push something back (often near the
 * top), push nothing, or pop; read the smallest between times, with and
 * without a hole. Every read and removal against std::priority_queue.
 */
TEST(MinHeap, TakesAndPushesAgainstPriorityQueue)
{
	std::mt19937_64 rng(7);
	long filled = 0, settled_by_read = 0;
	for (int round = 0; round < 6; round++)
	{
		Heap heap;
		std::priority_queue<double, std::vector<double>, std::greater<double>> ref;
		bool holed = false;
		for (int i = 0; i < 60000; i++)
		{
			unsigned op = rng() % 100;
			if (ref.empty() || op < 45)
			{
				/* near the last taken (a refined item), or anywhere; ties on odd rounds */
				double base = ref.empty() ? 0.0 : ref.top();
				double k = (round % 2) ? (double) (rng() % 40)
									   : base + (double) (rng() % 1000) / (op < 25 ? 1e6 : 1.0);
				filled += holed;
				holed = false;
				heap_push(&heap.h, Item{k, static_cast<uint32_t>(i)});
				ref.push(k);
			}
			else if (op < 80)
			{
				ASSERT_EQ(heap_take(&heap.h).key, ref.top());
				ref.pop();
				holed = true;
			}
			else if (op < 90)
			{
				ASSERT_EQ(heap_pop(&heap.h).key, ref.top());
				ref.pop();
				holed = false;
			}
			else if (op < 97)
			{
				settled_by_read += holed;
				heap_settle(&heap.h);
				holed = false;
			}
			ASSERT_EQ(heap_count(&heap.h), ref.size());
			const Item *m = heap_min(&heap.h);
			if (ref.empty())
				ASSERT_EQ(m, nullptr);
			else
				ASSERT_EQ(m->key, ref.top()) << "round " << round << " op " << i;
		}
		std::vector<double> rest;
		while (heap_count(&heap.h) > 0)
			rest.push_back(heap_take(&heap.h).key);
		heap_settle(&heap.h);
		ASSERT_EQ(heap.h.size, 0u);
		ASSERT_EQ(rest.size(), ref.size());
		for (double k : rest)
		{
			ASSERT_EQ(k, ref.top());
			ref.pop();
		}
	}
	/* both ways of closing a hole were exercised */
	EXPECT_GT(filled, 10000);
	EXPECT_GT(settled_by_read, 1000);
}

TEST(MinHeap, GrowsByDoublingFrom64)
{
	Heap heap;
	EXPECT_EQ(heap.h.items, nullptr);
	EXPECT_EQ(heap.h.capacity, 0u);
	heap_push(&heap.h, Item{3, 0});
	EXPECT_EQ(heap.log.calls, 1);
	EXPECT_EQ(heap.h.capacity, 64u);
	for (uint32_t i = 1; i < 64; i++)
		heap_push(&heap.h, Item{static_cast<double>(100 - i), i});
	EXPECT_EQ(heap.log.calls, 1);
	heap_push(&heap.h, Item{-1, 64});
	EXPECT_EQ(heap.log.calls, 2);
	EXPECT_EQ(heap.h.capacity, 128u);
	EXPECT_EQ(heap.log.last_capacity, 128u);
	EXPECT_EQ(heap_pop(&heap.h).key, -1);
	EXPECT_EQ(heap_pop(&heap.h).key, 3);
	EXPECT_EQ(heap_pop(&heap.h).key, 37);
}
