/*
 * Value tags: a value's tag is exact where it says so (no other value shares
 * it), a NULL's matches nothing, the hashed ones spread consecutive integers,
 * and the 32-at-once tests equal a brute-force comparison of each tag.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "value_tags.h"

namespace
{

using namespace geoidx;

TEST(ValueTags, ExactValuesHaveTheirOwnTags)
{
	std::set<int> exact;
	for (int64_t v = 0; v <= kTagExactMax; v++)
	{
		ASSERT_TRUE(value_tag_exact(v));
		ASSERT_NE(value_tag(v), kTagNull);
		exact.insert(value_tag(v));
	}
	EXPECT_EQ(exact.size(), static_cast<size_t>(kTagExactMax + 1));
	/* no other value, hashed, takes an exact value's tag */
	std::mt19937_64 rng(3);
	std::vector<int64_t> others = {-1, kTagExactMax + 1, INT64_MIN, INT64_MAX, -1000000000007LL};
	for (int i = 0; i < 100000; i++)
		others.push_back(static_cast<int64_t>(rng()));
	for (int64_t v = kTagExactMax + 1; v < 100000; v++)
		others.push_back(v);
	for (int64_t v : others)
	{
		if (value_tag_exact(v))
			continue;
		ASSERT_EQ(exact.count(value_tag(v)), 0u) << "value " << v << " has an exact value's tag";
		ASSERT_NE(value_tag(v), kTagNull) << "value " << v << " has a NULL's tag";
		ASSERT_GE(value_tag(v), 128);
	}
	EXPECT_FALSE(value_tag_exact(-1));
	EXPECT_FALSE(value_tag_exact(kTagExactMax + 1));
}

TEST(ValueTags, ConsecutiveIntegersScatterOverTheHashedTags)
{
	std::set<int> buckets;
	for (int64_t v = 1000; v < 1100; v++)
		buckets.insert(value_tag(v));
	/* 100 random draws of 128 buckets would hit ~69 distinct ones; Fibonacci hashing spreads them
	 */
	EXPECT_GE(buckets.size(), 94u);
}

/* Random groups of 32 tags: both tests equal a comparison of each tag. */
TEST(ValueTags, GroupTestsEqualBruteForce)
{
	std::mt19937_64 rng(11);
	for (int trial = 0; trial < 20000; trial++)
	{
		/* few distinct tags, so that matches are frequent; all 256 in some trials */
		int spread = trial % 3 == 0 ? 256 : 4;
		uint8_t tags[kTagGroup];
		for (uint8_t &t : tags)
			t = static_cast<uint8_t>(rng() % spread);
		uint8_t want = static_cast<uint8_t>(rng() % spread);
		TagSet set{{0, 0, 0, 0}};
		std::set<uint8_t> members;
		for (int k = 0; k < static_cast<int>(rng() % 4); k++)
		{
			uint8_t m = static_cast<uint8_t>(rng() % spread);
			members.insert(m);
			tag_set_add(&set, m);
		}
		uint32_t equal = 0, in = 0;
		for (int i = 0; i < kTagGroup; i++)
		{
			equal |= static_cast<uint32_t>(tags[i] == want) << i;
			in |= static_cast<uint32_t>(members.count(tags[i]) != 0) << i;
		}
		ASSERT_EQ(tags_equal(tags, want), equal) << "trial " << trial;
		ASSERT_EQ(tags_in_set(tags, set), in) << "trial " << trial;
	}
	/* the high bit of a byte (tags 128..255) and the last tag of the group */
	uint8_t tags[kTagGroup] = {};
	tags[31] = 255;
	tags[0] = 128;
	EXPECT_EQ(tags_equal(tags, 255), uint32_t{1} << 31);
	EXPECT_EQ(tags_equal(tags, 128), 1u);
	EXPECT_EQ(tags_equal(tags, kTagNull), ~((uint32_t{1} << 31) | 1u));
}

} // namespace
