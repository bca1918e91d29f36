/*
 * The bulk build's in-memory sort. A row of a single-column index is a
 * 32-byte record (Hilbert key, TID, coordinates) in one flat array, sorted in
 * place: no tuple is formed, and the write phase reads the sorted records
 * sequentially instead of chasing one tuple pointer each. The order is the one
 * the tuplesort path produces (key, then TID), so either path builds the same
 * index, byte for byte.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "pg_free.h"

namespace geoidx
{

struct BuildPoint
{
	uint64_t key; /* the Hilbert key; all ones for NULL and EMPTY rows, which sort last */
	uint64_t tid; /* block << 16 | offset in the low 48 bits; the row's kind above them */
	double x;
	double y;
};
static_assert(sizeof(BuildPoint) == 32, "a build record is 32 bytes");

constexpr int kBuildKindShift = 56;
constexpr uint64_t kBuildTidMask = (UINT64_C(1) << 48) - 1;

inline uint64_t
build_tid_kind(uint32_t block, uint16_t offset, int kind)
{
	return (uint64_t) block << 16 | offset | (uint64_t) kind << kBuildKindShift;
}

/* Sort by key, then TID (the kind is not part of the order). */
void sort_build_points(BuildPoint *points, size_t n);

} // namespace geoidx
