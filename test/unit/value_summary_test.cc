/*
 * ValueSummary: never rules out a value it holds (brute force over random
 * sets), and rules out absent ones about as often as 128 bits can, also for
 * the consecutive small integers categories usually are.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "value_summary.h"

namespace
{

using namespace geoidx;

ValueSummary
mask_of(int64_t v)
{
	ValueSummary m{{0, 0}};
	value_summary_add(&m, v);
	return m;
}

TEST(ValueSummary, BitsAreInRange)
{
	std::mt19937_64 rng(7);
	for (int i = 0; i < 100000; i++)
	{
		int b = value_summary_bit(static_cast<int64_t>(rng()));
		ASSERT_GE(b, 0);
		ASSERT_LT(b, 128);
	}
	for (int64_t v : {INT64_MIN, int64_t{-1}, int64_t{0}, int64_t{1}, INT64_MAX})
	{
		EXPECT_GE(value_summary_bit(v), 0);
		EXPECT_LT(value_summary_bit(v), 128);
	}
}

/* A chunk of 32 entries of 100 categories: members always may be there, absent ones mostly not. */
TEST(ValueSummary, HoldsItsValuesAndRulesOutMostOthers)
{
	std::mt19937_64 rng(11);
	std::uniform_int_distribution<int64_t> category(0, 99);
	long absent = 0, ruled_out = 0;
	for (int trial = 0; trial < 2000; trial++)
	{
		ValueSummary s{{0, 0}};
		std::set<int64_t> members;
		for (int i = 0; i < 32; i++)
		{
			int64_t v = category(rng);
			members.insert(v);
			value_summary_add(&s, v);
		}
		for (int64_t v = 0; v < 100; v++)
		{
			bool may = value_summary_may_hold(s, mask_of(v));
			if (members.count(v))
				ASSERT_TRUE(may) << "value " << v << " of the set was ruled out";
			else
			{
				absent++;
				ruled_out += may ? 0 : 1;
			}
		}
	}
	/*
	 * 32 draws of 100 hold ~27.5 distinct values. 100 categories share only 5
	 * bits, so ~97 % of the rest are ruled out; a random hash would rule out 71 %.
	 */
	EXPECT_GT(static_cast<double>(ruled_out) / absent, 0.93);
}

TEST(ValueSummary, ConsecutiveIntegersScatter)
{
	std::set<int> bits;
	for (int64_t v = 0; v < 100; v++)
		bits.insert(value_summary_bit(v));
	/* 100 random draws of 128 bits would hit ~69 distinct ones; Fibonacci hashing spreads them */
	EXPECT_GE(bits.size(), 94u);
	std::set<int> boolean_bits = {value_summary_bit(0), value_summary_bit(1)};
	EXPECT_EQ(boolean_bits.size(), 2u) << "false and true share a bit";
}

TEST(ValueSummary, MaskOfSeveralValuesAndCover)
{
	ValueSummary s{{0, 0}};
	value_summary_add(&s, 5);
	value_summary_add(&s, 70);
	ValueSummary m = mask_of(5);
	EXPECT_TRUE(value_summary_may_hold(s, m));
	EXPECT_TRUE(value_summary_covers(s, m));
	EXPECT_TRUE(value_summary_covers(s, mask_of(70)));
	ValueSummary empty{{0, 0}};
	EXPECT_FALSE(value_summary_may_hold(empty, m));
	EXPECT_FALSE(value_summary_covers(empty, m));
	EXPECT_TRUE(value_summary_covers(empty, empty));
}

} // namespace
