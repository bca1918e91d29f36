#include "heap_order.h"

#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace
{

/* Keys of n rows at random heap positions drawn from blocks [0, max_block], their places 0..n-1. */
std::vector<uint64_t>
random_keys(std::mt19937_64 &rng, size_t n, uint32_t max_block, uint16_t max_offset)
{
	std::uniform_int_distribution<uint32_t> block(0, max_block);
	std::uniform_int_distribution<uint32_t> offset(1, max_offset);
	std::vector<uint64_t> keys;
	for (size_t i = 0; i < n; i++)
		keys.push_back(geoidx::heap_order_key(block(rng), (uint16_t) offset(rng), i));
	return keys;
}

/* Sort with the radix sort and with std::stable_sort on (block, offset) alone, and compare. */
void
expect_sorted_like_reference(std::vector<uint64_t> keys)
{
	std::vector<uint64_t> want = keys;
	std::stable_sort(want.begin(), want.end(),
					 [](uint64_t a, uint64_t b)
					 {
						 uint32_t ba = (uint32_t) (a >> 32), bb = (uint32_t) (b >> 32);
						 if (ba != bb)
							 return ba < bb;
						 return (uint16_t) (a >> 16) < (uint16_t) (b >> 16);
					 });
	std::vector<uint64_t> scratch(keys.size());
	geoidx::sort_heap_order(keys.data(), scratch.data(), keys.size());
	ASSERT_EQ(keys, want);
}

TEST(HeapOrder, KeyKeepsBlockOffsetAndPlace)
{
	uint64_t k = geoidx::heap_order_key(0xFEDCBA98u, 0x1234, 65535);
	EXPECT_EQ(k >> 32, 0xFEDCBA98u);
	EXPECT_EQ(geoidx::heap_order_block(k), 0xFEDCBA98u);
	EXPECT_EQ((k >> 16) & 0xFFFF, 0x1234u);
	EXPECT_EQ(geoidx::heap_order_place(k), 65535u);
	EXPECT_LT(geoidx::heap_order_key(1, 2, 9), geoidx::heap_order_key(1, 3, 0));
	EXPECT_LT(geoidx::heap_order_key(1, 65535, 9), geoidx::heap_order_key(2, 1, 0));
}

TEST(HeapOrder, SortsLikeTheReference)
{
	std::mt19937_64 rng(20261202);
	for (size_t n : {0, 1, 2, 3, 47, 48, 49, 50, 100, 1000, 17000, 65536})
		for (uint32_t max_block : {0u, 10u, 711u, 70000u, 0xFFFFFFFEu})
			for (uint16_t max_offset : {1, 40, 291})
			{
				SCOPED_TRACE(testing::Message()
							 << "n " << n << " blocks " << max_block << " offsets " << max_offset);
				expect_sorted_like_reference(random_keys(rng, n, max_block, max_offset));
			}
}

TEST(HeapOrder, SortedAndReversedInputs)
{
	std::mt19937_64 rng(7);
	std::vector<uint64_t> keys = random_keys(rng, 5000, 3000, 200);
	std::sort(keys.begin(), keys.end());
	expect_sorted_like_reference(keys);
	std::reverse(keys.begin(), keys.end());
	expect_sorted_like_reference(keys);
}

TEST(HeapOrder, EveryPlaceComesBackOnce)
{
	std::mt19937_64 rng(11);
	std::vector<uint64_t> keys = random_keys(rng, geoidx::kHeapOrderMax, 1u << 20, 291);
	std::vector<uint64_t> scratch(keys.size());
	geoidx::sort_heap_order(keys.data(), scratch.data(), keys.size());
	std::vector<bool> seen(keys.size(), false);
	for (uint64_t k : keys)
	{
		size_t p = geoidx::heap_order_place(k);
		ASSERT_FALSE(seen[p]) << p;
		seen[p] = true;
	}
}

} // namespace
