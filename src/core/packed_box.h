/*
 * The box of a shape entry, packed into the 16 bytes a point entry uses for
 * its coordinates, so that shapes and points share one leaf layout (24-byte
 * entries, the same capacity, chunk boxes and payload area).
 *
 * Each of the six coordinates (lo and hi of x, y, z, all in [-1, 1]) becomes
 * a 21-bit grid number, rounded outwards by one more grid step than the
 * rounding needs, so that the unpacked box always holds the packed one: a grid
 * step is 2 / (2^21 - 2) ~ 9.5e-7 of the unit sphere, 6 m on the Earth, so an
 * entry's box is at most ~12 m larger on each side than the shape's own box.
 * A box that pokes out of [-1, 1] (the slack of the shape bounds) is clamped:
 * no unit vector lies out there.
 */
#pragma once

#include <cstdint>

#include "pg_free.h"
#include "sphere_bounds.h"

namespace geoidx
{

struct PackedBox
{
	uint64_t w[2];
};

/* Pack a non-empty box (lo <= hi on every axis). */
PackedBox pack_box(const Box3 &b);

/* The box a packed one stands for: it holds every box that packs to it. */
Box3 unpack_box(const PackedBox &p);

} // namespace geoidx
