/*
 * A byte per value of a filter column, a leaf keeps one per entry (format.h):
 * what a filtered search reads in place of the entries' payloads. A small
 * non-negative value (0 .. kTagExactMax, the categories and enums a filter
 * usually asks for, and booleans) is its own tag, so a tag that matches such
 * a value decides the row with no payload read; any other value takes one of
 * 128 hashed tags, and a row whose tag matches is then tested on its payload.
 * Tag 0 is a NULL (or no value at all), which no filter by value matches.
 *
 * A chunk's 32 tags are tested at once: one compare of 32 bytes finds the
 * rows of a category, or finds none and rules the chunk out. KF, the 10
 * nearest of a 1 % category, read every payload of the chunks that might
 * hold one, and the first load of each was most of its page visits
 * (bench/PROFILES.md).
 */
#pragma once

#include <cstdint>

namespace geoidx
{

/* The largest value that is its own tag (tag value + 1). */
constexpr int64_t kTagExactMax = 126;
/* The tag of a NULL, matched by no filter. */
constexpr uint8_t kTagNull = 0;
/* The tags of entries tested at once: a leaf's chunk. */
constexpr int kTagGroup = 32;

/*
 * The hashed tag's bucket of a value, 0 .. 127 (value_tags.cc says how
 * consecutive integers spread).
 */
int value_tag_bucket(int64_t v);

/* Whether a value is its own tag: a tag that matches it matches it alone. */
inline bool
value_tag_exact(int64_t v)
{
	return v >= 0 && v <= kTagExactMax;
}

/* A non-NULL value's tag: 1 .. 127 for an exact one, 128 .. 255 for the rest. */
inline uint8_t
value_tag(int64_t v)
{
	return value_tag_exact(v) ? static_cast<uint8_t>(v + 1)
							  : static_cast<uint8_t>(128 + value_tag_bucket(v));
}

/* A set of tags: those of the values an IN list asks for. */
struct TagSet
{
	uint64_t bits[4];
};

inline void
tag_set_add(TagSet *s, uint8_t tag)
{
	s->bits[tag >> 6] |= uint64_t{1} << (tag & 63);
}

inline bool
tag_set_has(const TagSet &s, uint8_t tag)
{
	return ((s.bits[tag >> 6] >> (tag & 63)) & 1) != 0;
}

/* The tags of tags[0 .. kTagGroup-1] equal to tag, as bits. */
uint32_t tags_equal(const uint8_t *tags, uint8_t tag);

/* The tags of tags[0 .. kTagGroup-1] in set, as bits. */
uint32_t tags_in_set(const uint8_t *tags, const TagSet &set);

} // namespace geoidx
