#include "value_tags.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace geoidx
{

/*
 * Fibonacci hashing: the top 7 bits of v times 2^64 / phi. Consecutive
 * integers (categories past kTagExactMax, ids) land evenly spread (the
 * three-distance theorem), so 100 of them take ~100 distinct buckets of the
 * 128 where a random hash would take ~69.
 */
int
value_tag_bucket(int64_t v)
{
	return static_cast<int>((static_cast<uint64_t>(v) * 0x9E3779B97F4A7C15ULL) >> 57);
}

uint32_t
tags_equal(const uint8_t *tags, uint8_t tag)
{
#if defined(__SSE2__)
	/* two compares of 16 bytes: a chunk's test costs less than one payload's */
	__m128i want = _mm_set1_epi8(static_cast<char>(tag));
	__m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i *>(tags));
	__m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i *>(tags + 16));
	uint32_t lo_bits = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(lo, want))) & 0xFFFF;
	uint32_t hi_bits = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(hi, want))) & 0xFFFF;
	return lo_bits | (hi_bits << 16);
#else
	uint32_t bits = 0;
	for (int i = 0; i < kTagGroup; i++)
		bits |= static_cast<uint32_t>(tags[i] == tag) << i;
	return bits;
#endif
}

uint32_t
tags_in_set(const uint8_t *tags, const TagSet &set)
{
	uint32_t bits = 0;
	for (int i = 0; i < kTagGroup; i++)
		bits |= static_cast<uint32_t>(tag_set_has(set, tags[i])) << i;
	return bits;
}

} // namespace geoidx
