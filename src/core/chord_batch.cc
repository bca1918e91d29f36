#include "chord_batch.h"

#include <cmath>
#include <cstring>

namespace geoidx
{

namespace
{

/*
 * The helpers below take and return 32-byte vectors, whose ABI differs with
 * and without AVX (GCC warns). They are always inlined, at -O0 too, into the
 * one function of each path, so no call crosses that boundary: a helper left
 * out of line would be compiled without AVX and called from the AVX2 path.
 */
#define LANES_INLINE __attribute__((always_inline)) inline
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

/*
 * GCC's and Clang's generic vectors: W doubles a vector, and the comparisons'
 * lanes (-1 true, 0 false). Two lanes are SSE2 on x86-64's baseline (NEON on
 * arm64, scalar pairs elsewhere); four are AVX, in the AVX2 path only (on
 * SSE2 the compiler splits them through memory, slower than two lanes).
 */
template <int W> struct Lanes
{
	typedef double V __attribute__((vector_size(8 * W)));
	typedef int64_t M __attribute__((vector_size(8 * W)));
};

/* x in every lane (a double for V, an int64_t for M: no conversion between them) */
template <typename V, typename T>
LANES_INLINE V
splat(T x)
{
	static_assert(sizeof(T) == 8, "lanes of 8 bytes");
	V v;
	for (size_t i = 0; i < sizeof(V) / sizeof(T); i++)
		v[i] = x;
	return v;
}

/* std::fabs: the sign bit cleared. */
template <typename V, typename M>
LANES_INLINE V
abs_of(V x)
{
	return (V) ((M) x & splat<M>(int64_t{INT64_MAX}));
}

template <typename V>
LANES_INLINE V
load(const double *p)
{
	V v;
	memcpy(&v, p, sizeof v);
	return v;
}

template <typename V>
LANES_INLINE void
store(double *p, V v)
{
	memcpy(p, &v, sizeof v);
}

/*
 * chord_keys_verdict's sphere tests, lane by lane: drop[g] and undecided[g]
 * hold the lanes of points g*W .. g*W+W-1 (-1 true, 0 false). The lanes
 * become bits in the calling path's own function, where the sign-bit move
 * of its instruction set may be used (a helper here has none).
 */
template <int W> struct LaneVerdicts
{
	typename Lanes<W>::M drop[kChordBatchMax / W];
	typename Lanes<W>::M undecided[kChordBatchMax / W];
};

/* A test's thresholds in every lane. */
template <int W> struct TestLanes
{
	typename Lanes<W>::V centre_lat, reject_dlat, reject_c2, accept_c2;
	typename Lanes<W>::M outer;
};

/*
 * The model's coefficients and the tests' thresholds are copied into lanes
 * before the loop: read through references, they could alias the ranges the
 * loop stores, and the compiler loaded and broadcast them again for every
 * group.
 */
template <int W>
LANES_INLINE void
match_batch(const ChordKeys &ck, const ChordModel &m, const ChordPoints &p, int n, ChordBatch *out,
			LaneVerdicts<W> *lv)
{
	typedef typename Lanes<W>::V V;
	typedef typename Lanes<W>::M M;
	const V deg = splat<V>(M_PI / 180.0), lon0 = splat<V>(m.lon0), lat0 = splat<V>(m.lat0);
	const V f0 = splat<V>(m.f0), d_lon = splat<V>(m.d_lon), d_lat = splat<V>(m.d_lat);
	const V h_lon_lon = splat<V>(m.h_lon_lon), h_lon_lat = splat<V>(m.h_lon_lat),
			h_lat_lat = splat<V>(m.h_lat_lat);
	const V third = splat<V>(m.third), widen = splat<V>(1.0 + 1e-9),
			slack = splat<V>(kChordModelSlack);
	const int ntests = ck.n;
	TestLanes<W> tl[kMaxChordTests];
	for (int k = 0; k < ntests; k++)
	{
		const ChordTest &t = ck.t[k];
		tl[k] = TestLanes<W>{splat<V>(t.centre_lat_deg), splat<V>(t.reject_dlat_deg),
							 splat<V>(t.reject_c2), splat<V>(t.accept_c2),
							 splat<M>(int64_t{t.outer ? -1 : 0})};
	}
	int groups = (n + W - 1) / W;
	for (int g = 0; g < groups; g++)
	{
		int i = g * W;
		/* chord_model_range, term by term in its order */
		V lat = load<V>(&p.lat[i]);
		V a = load<V>(&p.lon[i]) * deg - lon0;
		V b = lat * deg - lat0;
		V f = f0 + d_lon * a + d_lat * b +
			  (h_lon_lon * a * a + h_lon_lat * a * b + h_lat_lat * b * b);
		V s = abs_of<V, M>(a) + abs_of<V, M>(b);
		V r = s * s * s * third * widen + slack;
		V lo = f - r, hi = f + r;
		store<V>(&out->lo[i], lo);
		store<V>(&out->hi[i], hi);
		/* any test that drops decides; else any undecided */
		M drop = splat<M>(int64_t{0}), undecided = drop;
		for (int k = 0; k < ntests; k++)
		{
			const TestLanes<W> &t = tl[k];
			M far = (abs_of<V, M>(lat - t.centre_lat) > t.reject_dlat) | (lo > t.reject_c2);
			M near = (hi < t.accept_c2) & ~(hi > t.reject_c2);
			drop |= (far & ~t.outer) | (~far & near & t.outer);
			undecided |= ~far & ~near;
		}
		lv->drop[g] = drop;
		lv->undecided[g] = undecided;
	}
}

/* The verdicts' bits (drop, undecided) as ChordBatch reports them. */
inline void
finish_batch(const ChordKeys &ck, int n, uint32_t drop, uint32_t undecided, ChordBatch *out)
{
	uint32_t all = n >= 32 ? ~0u : (1u << n) - 1u;
	if (ck.never)
		drop = all;
	out->accept = ck.complete ? all & ~drop & ~undecided : 0u;
	out->undecided = ck.complete ? all & ~drop & undecided : all & ~drop;
}

/* A lane mask's bits, lane i at bit i, where no sign-bit move is at hand. */
template <typename M>
LANES_INLINE uint32_t
lane_bits(M m)
{
	uint32_t bits = 0;
	for (size_t i = 0; i < sizeof(M) / sizeof(int64_t); i++)
		bits |= (uint32_t) (m[i] & 1) << i;
	return bits;
}

} // namespace

void
chord_model_match_batch_portable(const ChordKeys &ck, const ChordModel &m, const ChordPoints &p,
								 int n, ChordBatch *out)
{
	LaneVerdicts<2> lv;
	match_batch<2>(ck, m, p, n, out, &lv);
	uint32_t drop = 0, undecided = 0;
	for (int g = 0; g < (n + 1) / 2; g++)
	{
#if defined(__SSE2__)
		drop |= (uint32_t) __builtin_ia32_movmskpd((Lanes<2>::V) lv.drop[g]) << (2 * g);
		undecided |= (uint32_t) __builtin_ia32_movmskpd((Lanes<2>::V) lv.undecided[g]) << (2 * g);
#else
		drop |= lane_bits(lv.drop[g]) << (2 * g);
		undecided |= lane_bits(lv.undecided[g]) << (2 * g);
#endif
	}
	finish_batch(ck, n, drop, undecided, out);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) void
chord_model_match_batch_avx2(const ChordKeys &ck, const ChordModel &m, const ChordPoints &p, int n,
							 ChordBatch *out)
{
	LaneVerdicts<4> lv;
	match_batch<4>(ck, m, p, n, out, &lv);
	uint32_t drop = 0, undecided = 0;
	for (int g = 0; g < (n + 3) / 4; g++)
	{
		drop |= (uint32_t) __builtin_ia32_movmskpd256((Lanes<4>::V) lv.drop[g]) << (4 * g);
		undecided |= (uint32_t) __builtin_ia32_movmskpd256((Lanes<4>::V) lv.undecided[g])
					 << (4 * g);
	}
	finish_batch(ck, n, drop, undecided, out);
}

bool
chord_batch_has_avx2()
{
	__builtin_cpu_init(); /* idempotent; needed before any constructor of ours might ask */
	return __builtin_cpu_supports("avx2");
}
#else
void
chord_model_match_batch_avx2(const ChordKeys &ck, const ChordModel &m, const ChordPoints &p, int n,
							 ChordBatch *out)
{
	chord_model_match_batch_portable(ck, m, p, n, out);
}

bool
chord_batch_has_avx2()
{
	return false;
}
#endif

} // namespace geoidx
