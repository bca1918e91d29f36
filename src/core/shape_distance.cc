#include "shape_distance.h"

#include <cmath>
#include <cstdint>

#include "postgis_edge.h"

namespace geoidx
{

namespace
{

/* The largest box side, in each unit-vector axis, of a polygon this answers for. */
constexpr double kMaxBoxSide = 0.5;
/* The most edges near the nearest one that are compared with it; more: PostGIS answers. */
constexpr int kMaxCandidates = 256;
/* Within this factor of the nearest angle another ring's point may be nearer on the spheroid. */
constexpr double kRingMargin = 1.01;
/* Angles closer than this are a tie between two points of a ring (PostGIS rounds each near 1e-16).
 */
constexpr double kTie = 1e-12;

struct Candidate
{
	double angle;
	GeoPoint closest;
	uint32_t ring;
};

/* Small polygons of proper rings (a ring of fewer than 4 points is PostGIS's to judge). */
bool
answerable(const CoverShape &s)
{
	for (uint32_t i = 0; i < s.npolygons; i++)
	{
		const CoverPolygon &poly = s.polygons[i];
		for (int k = 0; k < 3; k++)
			if (!(poly.box.hi[k] - poly.box.lo[k] < kMaxBoxSide))
				return false;
		for (uint32_t r = 0; r < poly.nrings; r++)
			if (s.rings[poly.first_ring + r].n < 4)
				return false;
	}
	return true;
}

/* The least squared chord from vp to a vertex (chunks whose box lies farther are skipped). */
double
nearest_vertex_chord2(const CoverShape &s, const Vec3 &vp)
{
	double best = 4.0;
	for (uint32_t i = 0; i < s.npolygons; i++)
	{
		const CoverPolygon &poly = s.polygons[i];
		for (uint32_t k = 0; k < poly.nrings; k++)
		{
			const RingVectors &ring = s.rings[poly.first_ring + k];
			const uint32_t nchunks = ring_chunk_count(ring.n);
			for (uint32_t c = 0; c < nchunks; c++)
			{
				if (ring.chunks != nullptr && min_chord2(ring.chunks[c], vp) >= best)
					continue;
				const uint32_t end = std::min(ring.n, (c + 1) * kRingChunk + 1);
				for (uint32_t j = c * kRingChunk; j < end; j++)
					best = std::min(best, chord2(ring.v[j], vp));
			}
		}
	}
	return best;
}

/* The squared chord of an angle, rounded up. */
double
chord2_of(double angle)
{
	const double half = std::sin(std::min(M_PI, angle) / 2.0);
	return 4.0 * half * half * (1.0 + 1e-12) + 1e-30;
}

/*
 * Calls f(ring number, ring, edge j) for every edge that may lie within the
 * chord sqrt(far2) of vp (chunk boxes, then sagitta boxes); stops when f says
 * false, and returns false then.
 */
template <class F>
bool
each_edge_near(const CoverShape &s, const Vec3 &vp, double far2, F f)
{
	for (uint32_t i = 0; i < s.npolygons; i++)
	{
		const CoverPolygon &poly = s.polygons[i];
		for (uint32_t r = 0; r < poly.nrings; r++)
		{
			const uint32_t ring_no = poly.first_ring + r;
			const RingVectors &ring = s.rings[ring_no];
			const uint32_t nchunks = ring_chunk_count(ring.n);
			for (uint32_t c = 0; c < nchunks; c++)
			{
				if (ring.chunks != nullptr && min_chord2(ring.chunks[c], vp) > far2)
					continue;
				const uint32_t end = std::min(ring.n - 1, (c + 1) * kRingChunk);
				for (uint32_t j = c * kRingChunk; j < end; j++)
					if (!arc_beyond_chord2(ring.v[j], ring.v[j + 1], vp, far2) &&
						!f(ring_no, ring, j))
						return false;
			}
		}
	}
	return true;
}

/*
 * Every edge within the chord sqrt(far2) of vp, of any ring but skip_ring,
 * with PostGIS's angle to it; false past kMaxCandidates.
 */
bool
gather(const CoverShape &s, const GeoPoint &gp, const Vec3 &vp, double far2, uint32_t skip_ring,
	   Candidate *out, int *n)
{
	*n = 0;
	return each_edge_near(s, vp, far2,
						  [&](uint32_t ring_no, const RingVectors &ring, uint32_t j)
						  {
							  if (ring_no == skip_ring)
								  return true;
							  if (*n == kMaxCandidates)
								  return false;
							  const GeoPoint *g = s.geo + (ring.v - s.points);
							  Candidate &k = out[(*n)++];
							  k.angle = postgis_edge_point_angle(g[j], g[j + 1], gp, &k.closest);
							  k.ring = ring_no;
							  return true;
						  });
}

bool
same_bits(const GeoPoint &a, const GeoPoint &b)
{
	return a.lon == b.lon && a.lat == b.lat;
}

/*
 * The nearest of the candidates of ring (PostGIS's choice within a ring: the
 * least angle), or -1 where another point of the ring ties with it.
 */
int
nearest_of_ring(const Candidate *cand, int n, uint32_t ring)
{
	int best = -1;
	for (int i = 0; i < n; i++)
		if (cand[i].ring == ring && (best < 0 || cand[i].angle < cand[best].angle))
			best = i;
	for (int i = 0; i < n && best >= 0; i++)
		if (i != best && cand[i].ring == ring && cand[i].angle <= cand[best].angle + kTie &&
			!same_bits(cand[i].closest, cand[best].closest))
			return -1;
	return best;
}

} // namespace

bool
shape_point_distance(const CoverShape &s, const GeoPoint &gp, const Vec3 &vp, bool use_spheroid,
					 double *metres, bool knn)
{
	if (knn)
		use_spheroid = false;
	const Cover c = cover_shape_covers(s, vp);
	if (c == Cover::inside)
	{
		*metres = 0.0;
		return true;
	}
	if (c != Cover::outside || s.coerced || !answerable(s))
		return false;
	/* the nearest edge lies no farther than the nearest vertex; PostGIS's rounding of an angle is
	 * far below 1e-9 */
	const double hi = chord2_to_angle(nearest_vertex_chord2(s, vp));
	Candidate cand[kMaxCandidates];
	int n;
	if (!gather(s, gp, vp, chord2_of(hi + 1e-9), UINT32_MAX, cand, &n) || n == 0)
		return false;
	int best = 0;
	for (int i = 1; i < n; i++)
		if (cand[i].angle < cand[best].angle)
			best = i;
	best = nearest_of_ring(cand, n, cand[best].ring);
	if (best < 0)
		return false;
	const Candidate b = cand[best];
	const double b_metres = use_spheroid ? spheroid_distance(gp, b.closest) : 0.0;

	/*
	 * The circle tree measures to the ring nearest on the sphere (b's); the
	 * loop over rings takes the least spheroid distance of each ring's
	 * nearest point. They agree unless another ring's point is nearer on the
	 * spheroid, which needs it within kRingMargin of b on the sphere.
	 */
	if (!gather(s, gp, vp, chord2_of(b.angle * kRingMargin + 1e-9), b.ring, cand, &n))
		return false;
	for (int i = 0; i < n; i++)
	{
		if (cand[i].ring == UINT32_MAX)
			continue;
		const uint32_t ring = cand[i].ring;
		const int r = nearest_of_ring(cand, n, ring);
		/* a tie on the sphere leaves the circle tree's choice to its order of visits */
		if (r < 0 || cand[r].angle <= b.angle + kTie ||
			(use_spheroid && spheroid_distance(gp, cand[r].closest) < b_metres))
			return false;
		for (int k = i; k < n; k++)
			if (cand[k].ring == ring)
				cand[k].ring = UINT32_MAX; /* done with this ring */
	}
	*metres = knn ? sphere_knn_distance(gp, b.closest) : st_distance(gp, b.closest, use_spheroid);
	return true;
}

} // namespace geoidx
