/*
 * The distance of the row a k-NN scan returned last. ORDER BY col <~> centre
 * LIMIT k makes the executor compute col <~> centre for each row the index
 * returns (it projects the ORDER BY expression), a second geodesic for a
 * distance the scan has just computed. The scan notes the row's stored
 * coordinates, the centre's and the distance; <~> and geoidx_distance (on the
 * spheroid) return it when called with exactly those coordinates, in that
 * order.
 *
 * Why the value is the one they would compute: both sides compute
 * st_distance(point, centre, true) from the same bits, with the same
 * normalisation (stored_lonlat equals the cast's for finite coordinates), and
 * st_distance is a function of its inputs alone. So the memo is right whoever
 * noted it and whenever it is read: it needs no invalidation, only an exact
 * match of the inputs (bitwise: the arithmetic reads bits, not values). Calls
 * with the arguments the other way round compute, as the order may matter in
 * the last bit.
 */
#include <cstring>

#include "geoidx.h"

namespace
{

struct DistanceMemo
{
	bool valid;
	double x, y;
	geoidx::RawPoint centre;
	double dist;
};
static_assert(std::is_trivially_destructible_v<DistanceMemo>, "backend-static, never destroyed");

DistanceMemo memo;

bool
same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

} // namespace

/* Note the distance a scan computed for a stored point (x, y) to centre. */
void
geoidx_distance_memo_note(double x, double y, geoidx::RawPoint centre, double dist)
{
	memo.valid = true;
	memo.x = x;
	memo.y = y;
	memo.centre = centre;
	memo.dist = dist;
}

/* Find the distance of point (x, y) to centre if a scan noted exactly these; false if not. */
bool
geoidx_distance_memo_find(double x, double y, geoidx::RawPoint centre, double *dist)
{
	if (!memo.valid || !same_bits(memo.x, x) || !same_bits(memo.y, y) ||
		!same_bits(memo.centre.x, centre.x) || !same_bits(memo.centre.y, centre.y))
		return false;
	*dist = memo.dist;
	return true;
}
