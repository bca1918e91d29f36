/*
 * The chord model's verdicts (chord_model_match) on a whole chunk of points
 * at once, four to a vector register where the CPU has AVX2 and two
 * elsewhere. A keyset page far out or a ring's hole decides ~1,000 points of
 * the ~30 chunks its circle cuts this way; one at a time, each point paid the
 * model's ~20 operations in sequence and a branch on its side of the circle
 * that no predictor learns (half of a cut chunk's points lie on each side).
 * Here the arithmetic runs 2-4 points per operation and the verdicts come out
 * as bit masks, so the caller visits only the points that pass or need the
 * exact test, in their order, and a dropped point costs no branch at all.
 *
 * Every lane computes what chord_model_match computes, in the same order of
 * operations (the build contracts nothing: -ffp-contract=off), so the ranges
 * and verdicts are chord_model_match's to the last bit (chord_batch_test.cc).
 */
#pragma once

#include <cstdint>

#include "chord_model.h"
#include "search_keys.h"

namespace geoidx
{

/* The most points one call decides: a search chunk's. */
constexpr int kChordBatchMax = 32;

/*
 * The points' stored lon/lat (degrees) by coordinate, as the vector lanes
 * load them: the caller fills n and sets the rest of the last vector's lanes
 * (chord_points_pad), which are computed and then masked out.
 */
struct ChordPoints
{
	alignas(32) double lon[kChordBatchMax];
	alignas(32) double lat[kChordBatchMax];
};

/* Give lanes n .. the next multiple of 4 a value (0, 0): they are read, never reported. */
inline void
chord_points_pad(ChordPoints *p, int n)
{
	for (int i = n; i < kChordBatchMax && (i & 3) != 0; i++)
		p->lon[i] = p->lat[i] = 0.0;
}

struct ChordBatch
{
	uint32_t accept;           /* bit i: chord_model_match says 1 */
	uint32_t undecided;        /* bit i: it says -1 (the points whose bits are in neither say 0) */
	double lo[kChordBatchMax]; /* the range it gives point i */
	double hi[kChordBatchMax];
};

/*
 * The two paths (the unit tests run both), and whether this CPU can run the
 * AVX2 one. Off x86-64 the "AVX2" path is the portable one under another name.
 */
void chord_model_match_batch_portable(const ChordKeys &ck, const ChordModel &m,
									  const ChordPoints &p, int n, ChordBatch *out);
void chord_model_match_batch_avx2(const ChordKeys &ck, const ChordModel &m, const ChordPoints &p,
								  int n, ChordBatch *out);
bool chord_batch_has_avx2();

/*
 * chord_model_match(ck, m, {p.lon[i], p.lat[i]}, ..) for the n <=
 * kChordBatchMax points of p (degrees, as stored_lonlat leaves them, padded):
 * four points an operation where the CPU has AVX2, else two.
 */
inline void
chord_model_match_batch(const ChordKeys &ck, const ChordModel &m, const ChordPoints &p, int n,
						ChordBatch *out)
{
	static const bool avx2 = chord_batch_has_avx2();
	if (avx2)
		chord_model_match_batch_avx2(ck, m, p, n, out);
	else
		chord_model_match_batch_portable(ck, m, p, n, out);
}

} // namespace geoidx
