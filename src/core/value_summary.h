/*
 * A summary of a small set of integers: 128 bits, bit h(v) set for each value
 * v. It says for sure when a value is absent (its bit is clear) and only
 * perhaps when it is there, like one row of a bloom filter with one hash.
 *
 * A leaf chunk keeps one for its entries' values of a filter column (format.h),
 * so that a filtered search skips a chunk that holds no row of the category it
 * asks for without reading the chunk's payloads. A chunk of 32 rows of 100
 * categories rules out ~97 % of the categories it lacks (value_summary.cc).
 */
#pragma once

#include <cstdint>

namespace geoidx
{

struct ValueSummary
{
	uint64_t bits[2];
};

/* The bit a value sets (value_summary.cc says how consecutive integers spread). */
int value_summary_bit(int64_t v);

inline void
value_summary_add(ValueSummary *s, int64_t v)
{
	int b = value_summary_bit(v);
	s->bits[b >> 6] |= uint64_t{1} << (b & 63);
}

/* Whether a summary may hold any value of those whose bits mask has (false: none is there). */
inline bool
value_summary_may_hold(const ValueSummary &s, const ValueSummary &mask)
{
	return ((s.bits[0] & mask.bits[0]) | (s.bits[1] & mask.bits[1])) != 0;
}

/* Whether every bit of sub is set in s: a stored summary must cover its values' summary. */
inline bool
value_summary_covers(const ValueSummary &s, const ValueSummary &sub)
{
	return (sub.bits[0] & ~s.bits[0]) == 0 && (sub.bits[1] & ~s.bits[1]) == 0;
}

} // namespace geoidx
