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
 *
 * A scan that returns its rows in order without their geodesics
 * (KnnSearch::order_only) notes the row with no distance. A call of <~> for
 * that row then says the executor reads the distances after all (the query
 * selects it, or a node above sorts on it): the scan asks (memo_take_wanted)
 * and computes them from its next row on, so that each is computed once.
 */
#include <cstring>

#include "geoidx.h"

namespace
{

struct DistanceMemo
{
	bool valid;
	bool has_dist; /* else a row returned without its distance */
	bool wanted;   /* <~> asked for such a row since the last take_wanted */
	double x, y;
	geoidx::RawPoint centre;
	double dist;
};
static_assert(std::is_trivially_destructible_v<DistanceMemo>, "backend-static, never destroyed");

DistanceMemo memo;

/* Remember the row a scan returned last: its point, the centre, and its distance if it has one. */
void
remember(double x, double y, geoidx::RawPoint centre, bool has_dist, double dist)
{
	memo.valid = true;
	memo.has_dist = has_dist;
	memo.x = x;
	memo.y = y;
	memo.centre = centre;
	memo.dist = dist;
}

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
	remember(x, y, centre, true, dist);
}

/* Find the distance of point (x, y) to centre if a scan noted exactly these; false if not. */
bool
geoidx_distance_memo_find(double x, double y, geoidx::RawPoint centre, double *dist)
{
	if (!memo.valid || !same_bits(memo.x, x) || !same_bits(memo.y, y) ||
		!same_bits(memo.centre.x, centre.x) || !same_bits(memo.centre.y, centre.y))
		return false;
	if (!memo.has_dist)
	{
		memo.wanted = true;
		return false;
	}
	*dist = memo.dist;
	return true;
}

/* Note that a scan returned the row of point (x, y) in order to centre, without its distance. */
void
geoidx_distance_memo_note_unknown(double x, double y, geoidx::RawPoint centre)
{
	remember(x, y, centre, false, 0.0);
}

/* Whether <~> asked for a row noted without its distance since the last call; clears it. */
bool
geoidx_distance_memo_take_wanted(void)
{
	bool w = memo.wanted;
	memo.wanted = false;
	return w;
}
