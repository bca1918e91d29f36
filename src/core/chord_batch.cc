#include "chord_batch.h"

#include <cmath>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace geoidx
{

namespace
{

/*
 * GCC's and Clang's generic vectors: SSE2 on x86-64 (its baseline), NEON on
 * arm64, pairs of scalar operations elsewhere; the same source on each.
 */
typedef double V2 __attribute__((vector_size(16)));
typedef int64_t M2 __attribute__((vector_size(16))); /* a comparison's lanes: -1 true, 0 false */

inline V2
splat(double x)
{
	return V2{x, x};
}

/* std::fabs: the sign bit cleared. */
inline V2
abs2(V2 x)
{
	return (V2) ((M2) x & M2{INT64_MAX, INT64_MAX});
}

inline uint32_t
lane_bits(M2 m)
{
#ifdef __SSE2__
	return (uint32_t) _mm_movemask_pd((__m128d) m);
#else
	return (uint32_t) (m[0] & 1) | (uint32_t) ((m[1] & 1) << 1);
#endif
}

} // namespace

void
chord_model_match_batch(const ChordKeys &ck, const ChordModel &m, const LonLat *lls, int n,
						ChordBatch *out)
{
	uint32_t drop = 0, undecided = 0;
	for (int i = 0; i < n; i += 2)
	{
		/* an odd n's last pair repeats its point; the mask below drops the lane */
		int j = i + 1 < n ? i + 1 : i;
		V2 lat_deg = V2{lls[i].lat, lls[j].lat};
		/* chord_model_range, term by term in its order */
		V2 a = V2{lls[i].lon, lls[j].lon} * splat(M_PI / 180.0) - splat(m.lon0);
		V2 b = lat_deg * splat(M_PI / 180.0) - splat(m.lat0);
		V2 f =
			splat(m.f0) + splat(m.d_lon) * a + splat(m.d_lat) * b +
			(splat(m.h_lon_lon) * a * a + splat(m.h_lon_lat) * a * b + splat(m.h_lat_lat) * b * b);
		V2 s = abs2(a) + abs2(b);
		V2 r = s * s * s * splat(m.third) * splat(1.0 + 1e-9) + splat(kChordModelSlack);
		V2 lo = f - r, hi = f + r;
		out->lo[i] = lo[0];
		out->lo[i + 1] = lo[1];
		out->hi[i] = hi[0];
		out->hi[i + 1] = hi[1];
		/* chord_keys_verdict's sphere tests: any test that drops decides; else any undecided */
		M2 d{0, 0}, u{0, 0};
		for (int k = 0; k < ck.n; k++)
		{
			const ChordTest &t = ck.t[k];
			M2 far = (abs2(lat_deg - splat(t.centre_lat_deg)) > splat(t.reject_dlat_deg)) |
					 (lo > splat(t.reject_c2));
			M2 near = (hi < splat(t.accept_c2)) & ~(hi > splat(t.reject_c2));
			M2 outer = t.outer ? M2{-1, -1} : M2{0, 0};
			d |= (far & ~outer) | (~far & near & outer);
			u |= ~far & ~near;
		}
		drop |= lane_bits(d) << i;
		undecided |= lane_bits(u) << i;
	}
	uint32_t all = n >= 32 ? ~0u : (1u << n) - 1u;
	if (ck.never)
		drop = all;
	out->accept = ck.complete ? all & ~drop & ~undecided : 0u;
	out->undecided = ck.complete ? all & ~drop & undecided : all & ~drop;
}

} // namespace geoidx
