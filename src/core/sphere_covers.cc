#include "sphere_covers.h"

#include <algorithm>
#include <cmath>

#include "arc_box.h"
#include "shape_bounds.h"

namespace geoidx
{

namespace
{

/*
 * How far our box may be from PostGIS's double box of the same edges: ours is
 * padded (arc_box: at most ~5e-11 beyond the arc), PostGIS's is rounded by a
 * few ulps. The pole rule's tests must come out the same at both ends.
 */
constexpr double kBoxSlack = 1e-10;
/* The widest a float4 rounded outwards from x can be from x: one ulp. */
double
float_slack(double x)
{
	return std::fabs(x) * 1.2e-7 + 1e-30;
}

/* A cap whose axis point is this far outside the box can take the stab line. */
constexpr double kRoomyCap = 1e-3;
/* Sixteen roundings of a cross product's coordinate: how far off a normal is, times |a x b|. */
constexpr double kNormalRounding = 1.6e-15;
/* Ends this close to antipodal leave an edge's great circle to rounding. */
constexpr double kLongEdgeDot = -0.9999;

/* The margin the sides of an edge's circle get, from |e1 x e2|: kCoverMargin, or its normal's
 * rounding if wider. */
double
edge_margin(double normal_length)
{
	return kCoverMargin + kNormalRounding / normal_length;
}

Vec3
unit(const Vec3 &v)
{
	const double len = std::sqrt(dot(v, v));
	return Vec3{v.x / len, v.y / len, v.z / len};
}

bool
same_box(const Box3 &a, const Box3 &b)
{
	for (int i = 0; i < 3; i++)
		if ((a.lo[i] == -1.0) != (b.lo[i] == -1.0) || (a.hi[i] == 1.0) != (b.hi[i] == 1.0))
			return false;
	return true;
}

/*
 * A cap outside the box: {s * v_axis > bound}. Its bound lies in [least, most]
 * for PostGIS's float4 box (our box, give or take kBoxSlack inwards and
 * float_slack outwards).
 */
struct Cap
{
	int axis;
	double sign;
	double least; /* the cap is at its largest */
	double most;  /* the cap is at its smallest */
};

/* True if the caps surely meet even at their smallest (their bounds at their most). */
bool
caps_meet(const Cap &a, const Cap &b)
{
	if (a.axis == b.axis)
		return false; /* opposite caps of one axis never meet */
	const double s = std::max(a.most, 0.0), t = std::max(b.most, 0.0);
	return s * s + t * t < 1.0 - 1e-9;
}

} // namespace

unsigned
cover_outside_caps(const Box3 &edges, Box3 *box)
{
	/* the pole rule at both ends of where PostGIS's box can be, and on ours */
	Box3 small = edges, large = edges;
	for (int i = 0; i < 3; i++)
	{
		small.lo[i] += kBoxSlack;
		small.hi[i] -= kBoxSlack;
		large.lo[i] -= kBoxSlack;
		large.hi[i] += kBoxSlack;
	}
	*box = edges;
	for (int axis = 2; axis >= 0; axis--)
	{
		box_pole_step(&small, axis);
		box_pole_step(&large, axis);
		box_pole_step(box, axis);
		if (!same_box(small, large))
			return 0;
	}

	Cap caps[kAxisPoints];
	int ncaps = 0;
	for (int i = 0; i < 3; i++)
	{
		/* {v_i > hi_i}: it may exist if its bound at the least is below 1 */
		const double hi_least = box->hi[i] - kBoxSlack,
					 hi_most = box->hi[i] + float_slack(box->hi[i]);
		if (box->hi[i] < 1.0 && hi_least < 1.0)
			caps[ncaps++] = Cap{i, 1.0, hi_least, hi_most};
		const double lo_least = -(box->lo[i] + kBoxSlack),
					 lo_most = -(box->lo[i] - float_slack(box->lo[i]));
		if (box->lo[i] > -1.0 && lo_least < 1.0)
			caps[ncaps++] = Cap{i, -1.0, lo_least, lo_most};
	}
	/* every cap that may exist must be reached from the first through caps that surely meet */
	bool reached[kAxisPoints] = {false};
	int stack[kAxisPoints], top = 0, nreached = 0;
	if (ncaps == 0)
		return 0;
	reached[0] = true;
	stack[top++] = 0;
	nreached = 1;
	while (top > 0)
	{
		const int c = stack[--top];
		for (int d = 0; d < ncaps; d++)
			if (!reached[d] && caps_meet(caps[c], caps[d]))
			{
				reached[d] = true;
				stack[top++] = d;
				nreached++;
			}
	}
	if (nreached != ncaps)
		return 0;
	unsigned mask = 0;
	for (int c = 0; c < ncaps; c++)
		if (1.0 - caps[c].most >= kRoomyCap)
			mask |= 1u << (2 * caps[c].axis + (caps[c].sign > 0 ? 0 : 1));
	return mask;
}

namespace
{

/* The least and greatest of n . v over the box. */
void
plane_range(const Box3 &b, const Vec3 &n, double *lo, double *hi)
{
	*lo = *hi = 0.0;
	for (int i = 0; i < 3; i++)
	{
		const double c = coord(n, i);
		*lo += c * (c >= 0 ? b.lo[i] : b.hi[i]);
		*hi += c * (c >= 0 ? b.hi[i] : b.lo[i]);
	}
}

/*
 * True if no edge of the chunk can matter to the test of p with stab circle
 * ns: p is outside the padded box (no edge near it), the box lies well within
 * p's hemisphere (no edge near its antipode) and wholly on one side of the
 * stab line's circle (every edge's ends on one side of it).
 */
bool
chunk_is_quiet(const Box3 &chunk, const Vec3 &p, const Vec3 &ns)
{
	if (box_contains(chunk, p) || max_chord2(chunk, p) >= 2.0 - 1e-6)
		return false;
	double lo, hi;
	plane_range(chunk, ns, &lo, &hi);
	return lo > kCoverMargin || hi < -kCoverMargin;
}

} // namespace

void
ring_chunk_boxes(const Vec3 *v, uint32_t n, Box3 *out)
{
	const uint32_t chunks = ring_chunk_count(n);
	for (uint32_t c = 0; c < chunks; c++)
	{
		Box3 b = box_empty();
		double margin = kCoverMargin;
		const uint32_t first = 1 + c * kRingChunk, last = std::min(n - 1, first + kRingChunk - 1);
		for (uint32_t i = first; i <= last; i++)
		{
			const double c2 = chord2(v[i - 1], v[i]);
			if (c2 < 1e-30)
				continue;
			if (c2 <= 2.0)
			{
				/*
				 * Up to 90 degrees the box of the ends padded by the sagitta
				 * 1 - cos(theta / 2) is arc_box's own bound for short arcs,
				 * and costs no trigonometry: a prepared zone is mostly these.
				 */
				box_extend(&b, arc_sagitta_box(v[i - 1], v[i]));
			}
			else
				box_extend(&b, arc_box(v[i - 1], v[i]));
			const Vec3 n = cross(v[i - 1], v[i]);
			margin = std::max(margin, edge_margin(std::sqrt(dot(n, n))));
		}
		if (!box_is_empty(b))
			for (int i = 0; i < 3; i++)
			{
				b.lo[i] -= margin;
				b.hi[i] += margin;
			}
		out[c] = b;
	}
}

Cover
polygon_covers(const RingVectors *rings, uint32_t nrings, const Box3 &box, unsigned caps,
			   const Vec3 &p)
{
	if (caps == 0 || nrings == 0)
		return Cover::uncertain;
	/* outside PostGIS's float4 box: PostGIS looks no further */
	for (int i = 0; i < 3; i++)
		if (coord(p, i) < box.lo[i] - float_slack(box.lo[i]) ||
			coord(p, i) > box.hi[i] + float_slack(box.hi[i]))
			return Cover::outside;
	/* the stab line's far end: the nearest roomy cap's axis point */
	Vec3 o{0, 0, 0};
	double best = -2.0;
	for (int i = 0; i < kAxisPoints; i++)
		if (caps & (1u << i))
		{
			const Vec3 a = axis_point(i);
			if (dot(a, p) > best)
			{
				best = dot(a, p);
				o = a;
			}
		}
	if (best < -0.5)
		return Cover::uncertain; /* a stab line over 120 degrees */
	const Vec3 ns = unit(cross(p, o));
	const Vec3 mid_s{p.x + o.x, p.y + o.y, p.z + o.z};

	int in_holes = 0;
	for (uint32_t r = 0; r < nrings; r++)
	{
		const RingVectors &ring = rings[r];
		if (ring.n < 4)
		{
			/* PostGIS: not a ring, holds nothing (so a polygon without a real outer ring covers
			 * nothing) */
			if (r == 0)
				return Cover::outside;
			continue;
		}
		int crossings = 0;
		for (uint32_t i = 1; i < ring.n; i++)
		{
			if (ring.chunks != nullptr && (i - 1) % kRingChunk == 0)
			{
				const Box3 &chunk = ring.chunks[(i - 1) / kRingChunk];
				if (box_is_empty(chunk) || chunk_is_quiet(chunk, p, ns))
				{
					i += kRingChunk - 1; /* the loop's i++ moves to the next chunk's first edge */
					continue;
				}
			}
			const Vec3 &e1 = ring.v[i - 1], &e2 = ring.v[i];
			if (chord2(e1, e2) < 1e-30)
				continue;
			if (dot(e1, e2) < kLongEdgeDot)
				return Cover::uncertain;
			/*
			 * PostGIS (edge_intersects) gives up on an edge first when the point and
			 * the stab line's end are on one side of the edge's circle, then when the
			 * edge's ends are on one side of the stab line's circle. Only past both
			 * does it look at touches, and only there can its 1e-12 tolerance miscount.
			 */
			const Vec3 ne_raw = cross(e1, e2);
			const double ne_len = std::sqrt(dot(ne_raw, ne_raw));
			const Vec3 ne{ne_raw.x / ne_len, ne_raw.y / ne_len, ne_raw.z / ne_len};
			/*
			 * The circle of ends d apart is known only to ~1e-16 / d (each coordinate
			 * of the cross product is rounded to ~1e-16), ours and PostGIS's alike:
			 * sides of it are decided beyond that.
			 */
			const double me = edge_margin(ne_len);
			const double a1 = dot(ne, p), a2 = dot(ne, o);
			/*
			 * The point on an edge's circle: PostGIS's touch rules answer "on the
			 * ring" whatever its own stab line, if the edge is at the point (the
			 * boundary) or at its antipode (where the two circles meet again).
			 */
			if (std::fabs(a1) < me && ((dot(cross(e1, p), ne) >= -kCoverMargin &&
										dot(cross(p, e2), ne) >= -kCoverMargin) ||
									   dot(p, e1) <= 0.0 || dot(p, e2) <= 0.0))
				return Cover::uncertain;
			if (std::fabs(a1) >= me && std::fabs(a2) >= me && (a1 > 0) == (a2 > 0))
				continue;
			const double s1 = dot(ns, e1), s2 = dot(ns, e2);
			if (std::fabs(s1) >= kCoverMargin && std::fabs(s2) >= kCoverMargin &&
				(s1 > 0) == (s2 > 0))
				continue;
			if (std::fabs(a1) < me || std::fabs(a2) < me || std::fabs(s1) < kCoverMargin ||
				std::fabs(s2) < kCoverMargin)
				return Cover::uncertain; /* a touch, or the point on (or near) the edge */
			/* each arc straddles the other's circle: do they meet at the same one of the two
			 * crossings? */
			const Vec3 x = cross(ns, ne);
			const double xlen = std::sqrt(dot(x, x));
			const Vec3 mid_e{e1.x + e2.x, e1.y + e2.y, e1.z + e2.z};
			const double da = dot(x, mid_s), db = dot(x, mid_e);
			if (std::fabs(da) < kCoverMargin * xlen || std::fabs(db) < kCoverMargin * xlen)
				return Cover::uncertain;
			if ((da > 0) == (db > 0))
				crossings++;
		}
		const bool holds = (crossings % 2) == 1;
		if (r == 0 && !holds)
			return Cover::outside;
		if (r > 0 && holds)
			in_holes++;
	}
	if (in_holes % 2 != 0)
		return Cover::outside;
	/*
	 * Inside by the rings: PostGIS agrees if the point is in its box, which
	 * holds ours give or take kBoxSlack.
	 */
	for (int i = 0; i < 3; i++)
	{
		/* a face the pole rule put at +-1 is PostGIS's exactly, and no point lies beyond it */
		const bool low = box.lo[i] != -1.0 && coord(p, i) < box.lo[i] + kBoxSlack;
		const bool high = box.hi[i] != 1.0 && coord(p, i) > box.hi[i] - kBoxSlack;
		if (low || high)
			return Cover::uncertain;
	}
	return Cover::inside;
}

} // namespace geoidx
