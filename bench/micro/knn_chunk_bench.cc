/*
 * What a keyset page far out pays per chunk its circle cuts (PG page 100:
 * ~30 chunks of 32 points straddle a ~400 km circle, and each is expanded
 * before the first row): knn_add_chunk on such chunks, with the paging key
 * around the centre. Fixed-seed chunks on the circle at random bearings,
 * ~0.6 degree across like a leaf's chunks in the world data; the points are
 * on both sides of the circle, so a branch on a point's side is a coin toss.
 *
 *   cmake -S . -B build-bench -DGEOIDX_BENCHMARKS=ON -DCMAKE_BUILD_TYPE=Release
 *   cmake --build build-bench -j2 && build-bench/geoidx_micro_bench --benchmark_filter=Cut
 */
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "knn_search.h"
#include "malloc_search.h"

namespace
{

using namespace geoidx;

constexpr LonLat kCentre{13.4, 52.5};
constexpr double kBound = 400000.0; /* metres: page 100's bound in the world data */
constexpr int kChunks = 30;

struct CutChunks
{
	std::vector<SearchChunk> chunks;
	std::vector<Box3> boxes;
};

/* kChunks chunks of 32 points, each centred on the circle at a random bearing. */
const CutChunks &
cut_chunks()
{
	static const CutChunks c = []
	{
		CutChunks out;
		std::mt19937_64 rng(12);
		std::uniform_real_distribution<double> u(-1.0, 1.0), bearing(0.0, 2.0 * M_PI);
		const double deg = kBound / 111195.0; /* the bound in degrees of arc */
		out.chunks.resize(kChunks);
		out.boxes.resize(kChunks);
		for (int c = 0; c < kChunks; c++)
		{
			double b = bearing(rng);
			double lat = kCentre.lat + deg * std::cos(b);
			double lon = kCentre.lon + deg * std::sin(b) / std::cos(lat * M_PI / 180.0);
			SearchChunk &ch = out.chunks[c];
			ch.n = kSearchChunk;
			ch.in_region = false;
			out.boxes[c] = box_empty();
			for (int i = 0; i < kSearchChunk; i++)
			{
				double x = lon + 0.3 * u(rng), y = lat + 0.3 * u(rng);
				ch.e[i] = ChunkEntry{(uint64_t) (c * kSearchChunk + i), nullptr, x, y};
				box_extend(&out.boxes[c], unit_vector(geographic_point(LonLat{x, y})));
			}
		}
		return out;
	}();
	return c;
}

void
BM_CutChunksOfPage100(benchmark::State &state)
{
	const CutChunks &cc = cut_chunks();
	RegionTest key =
		region_test(geographic_point(kCentre), kBound, true, RegionMode::dist_gt, false);
	SpatialKeys keys = spatial_keys(&key, 1);
	KnnCallbacks cb = geoidx_micro::malloc_callbacks();
	SearchItem page{};
	page.kind = ItemKind::page;
	uint64_t vectors = 0;
	for (auto _ : state)
	{
		KnnSearch s;
		knn_init(&s, cb, keys, kCentre);
		for (int c = 0; c < kChunks; c++)
		{
			SearchChunk *buf = knn_chunk_buffer(&s);
			*buf = cc.chunks[c];
			knn_add_chunk(&s, buf, cc.boxes[c], page);
		}
		benchmark::DoNotOptimize(s.heap.size);
		vectors += s.vectors;
		geoidx_micro::malloc_search_finish(&s);
	}
	state.counters["vectors"] = (double) vectors / (double) state.iterations();
	state.counters["points"] = benchmark::Counter(
		(double) kChunks * kSearchChunk * (double) state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CutChunksOfPage100);

} // namespace
