#include "value_summary.h"

namespace geoidx
{

/*
 * Fibonacci hashing: the top 7 bits of v times 2^64 / phi. Consecutive
 * integers, which categories and enums usually are, land evenly spread (the
 * three-distance theorem), so 100 of them take ~100 distinct bits of the 128
 * where a random hash would take ~69.
 */
int
value_summary_bit(int64_t v)
{
	return static_cast<int>((static_cast<uint64_t>(v) * 0x9E3779B97F4A7C15ULL) >> 57);
}

} // namespace geoidx
