/*
 * The batch verdicts against chord_model_match, point by point: the same
 * ranges to the last bit and the same verdicts, on chunks of every size up to
 * 32 around circles of every key mode, with NaN coordinates and with keys
 * that never match or do not decide every key.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "chord_batch.h"
#include "chord_key_cases.h"
#include "chord_model.h"
#include "region.h"
#include "search_keys.h"

namespace
{

using namespace geoidx;

uint64_t
bits_of(double x)
{
	uint64_t b;
	memcpy(&b, &x, sizeof b);
	return b;
}

/*
 * The keys of one trial: chord_key_case's kinds, and a ring whose outer
 * circle lies near the inner one (both of its tests decide in one chunk).
 */
std::vector<RegionTest>
trial_regions(int trial, LonLat c, GeoPoint cg, double radius)
{
	if (trial % (kChordKeyCases + 1) < kChordKeyCases)
		return chord_key_case(trial % (kChordKeyCases + 1), c, cg, radius);
	return {region_test(cg, radius, true, RegionMode::dist_gt),
			region_test(cg, radius * 1.001, true, RegionMode::within, true)};
}

typedef void (*BatchFn)(const ChordKeys &, const ChordModel &, const ChordPoints &, int,
						ChordBatch *);

void
expect_batch_is_pointwise(BatchFn batch_fn, const ChordKeys &ck, const ChordModel &m,
						  const LonLat *lls, int n, const char *what)
{
	/* lanes past the padding hold anything (NaN here), as a reused buffer would */
	ChordPoints points;
	for (int i = 0; i < kChordBatchMax; i++)
		points.lon[i] = points.lat[i] = std::nan("");
	for (int i = 0; i < n; i++)
	{
		points.lon[i] = lls[i].lon;
		points.lat[i] = lls[i].lat;
	}
	chord_points_pad(&points, n);
	ChordBatch batch;
	batch_fn(ck, m, points, n, &batch);
	ASSERT_EQ(batch.accept & batch.undecided, 0u) << what;
	if (n < 32)
	{
		ASSERT_EQ((batch.accept | batch.undecided) >> n, 0u) << what << ": bits beyond n";
	}
	for (int i = 0; i < n; i++)
	{
		Chord2Range r;
		int v = chord_model_match(ck, m, lls[i], &r);
		int got = (batch.accept >> i) & 1u ? 1 : ((batch.undecided >> i) & 1u ? -1 : 0);
		ASSERT_EQ(got, v) << what << ": point " << i << " of " << n << " (" << lls[i].lon << ", "
						  << lls[i].lat << ")";
		ASSERT_EQ(bits_of(batch.lo[i]), bits_of(r.lo)) << what << ": point " << i;
		ASSERT_EQ(bits_of(batch.hi[i]), bits_of(r.hi)) << what << ": point " << i;
	}
}

/* Every path this CPU can run, and the one the search calls. */
std::vector<std::pair<const char *, BatchFn>>
batch_paths()
{
	std::vector<std::pair<const char *, BatchFn>> paths{
		{"portable", chord_model_match_batch_portable}, {"dispatched", chord_model_match_batch}};
	if (chord_batch_has_avx2())
		paths.push_back({"avx2", chord_model_match_batch_avx2});
	return paths;
}

TEST(ChordBatch, IsChordModelMatchPointByPoint)
{
	std::vector<std::pair<const char *, BatchFn>> paths = batch_paths();
	std::mt19937_64 rng(7);
	std::uniform_real_distribution<double> u(0.0, 1.0);
	long decided = 0, dropped = 0, accepted = 0, points = 0;
	for (int trial = 0; trial < 600; trial++)
	{
		LonLat c{-180.0 + 360.0 * u(rng), std::asin(2.0 * u(rng) - 1.0) * 180.0 / M_PI};
		GeoPoint cg = geographic_point(c);
		Vec3 q = unit_vector(cg);
		double radius = 1e3 * std::pow(10.0, 4.0 * u(rng));
		std::vector<RegionTest> regions = trial_regions(trial, c, cg, radius);
		SpatialKeys keys = spatial_keys(regions.data(), (int) regions.size());
		ChordKeys ck = chord_keys(keys, q);
		ASSERT_GT(ck.n, 0) << "trial " << trial;
		/* a chunk on the circle, at a random bearing, of a random size */
		double span = 0.002 + 0.5 * u(rng) * u(rng);
		LonLat on = point_on_circle(cg, radius, 2.0 * M_PI * u(rng));
		double lon = on.lon, lat = on.lat;
		ChordModel m = chord_model(q, lon, lat);
		int n = trial % 33;
		LonLat lls[kChordBatchMax];
		for (int i = 0; i < n; i++)
		{
			LonLat p{lon * 180.0 / M_PI + span * (u(rng) - 0.5),
					 std::max(-90.0, std::min(90.0, lat * 180.0 / M_PI + span * (u(rng) - 0.5)))};
			lls[i] = stored_lonlat(p.lon, p.lat);
			if (trial % 50 == 7 && i % 5 == 2)
				lls[i].lat = std::nan(""); /* a NaN reaches the model only from a test */
		}
		/* the same tests, as keys that never match and as keys that are not all here */
		ChordKeys never = ck;
		never.never = true;
		ChordKeys partial = ck;
		partial.complete = false;
		for (const auto &path : paths)
		{
			SCOPED_TRACE(path.first);
			expect_batch_is_pointwise(path.second, ck, m, lls, n, "keys");
			expect_batch_is_pointwise(path.second, never, m, lls, n, "never");
			expect_batch_is_pointwise(path.second, partial, m, lls, n, "incomplete");
		}
		for (int i = 0; i < n; i++)
		{
			Chord2Range r;
			int v = chord_model_match(ck, m, lls[i], &r);
			points++;
			decided += v >= 0;
			dropped += v == 0;
			accepted += v == 1;
		}
	}
	/* the chunks straddle their circles: every verdict comes up, many times */
	EXPECT_GT(dropped, points / 10);
	EXPECT_GT(accepted, points / 10);
	EXPECT_LT(decided, points);
}

} // namespace
