/*
 * What R2 pays in the search itself (the 100 nearest within 5 km, nearest
 * first): the frontier's work between the chunks of a few leaves and the 100
 * rows. Fixed-seed points at seed-2's density (~3.9 a km^2 at 75 N) in
 * chunks of 32 on a 1 km grid, a 5 km radius key, order only (R2's distances
 * are not read), 100 rows taken. Each iteration is one query at a new centre.
 *
 *   cmake -S . -B build-bench -DGEOIDX_BENCHMARKS=ON -DCMAKE_BUILD_TYPE=Release
 *   cmake --build build-bench -j2 && build-bench/geoidx_micro_bench --benchmark_filter=Nearest
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

constexpr double kRadius = 5000.0;
constexpr int kRows = 100;
constexpr int kCentres = 64;
constexpr double kSpan = 7.0;    /* km either side of a centre: the chunks a 5 km query reads */
constexpr double kCellKm = 2.85; /* a 32-point chunk at ~3.9 points a km^2 */

struct Query
{
	LonLat centre;
	std::vector<SearchChunk> chunks;
	std::vector<Box3> boxes;
};

const std::vector<Query> &
queries()
{
	static const std::vector<Query> q = []
	{
		std::vector<Query> out(kCentres);
		std::mt19937_64 rng(75);
		std::uniform_real_distribution<double> u(0.0, 1.0);
		for (Query &qu : out)
		{
			qu.centre = LonLat{120.5 + 9.0 * u(rng), 70.5 + 9.0 * u(rng)};
			double km_lat = 1.0 / 111.2, km_lon = km_lat / std::cos(qu.centre.lat * M_PI / 180.0);
			int cells = (int) std::ceil(2.0 * kSpan / kCellKm);
			for (int cy = 0; cy < cells; cy++)
				for (int cx = 0; cx < cells; cx++)
				{
					SearchChunk ch;
					ch.n = kSearchChunk;
					ch.in_region = false;
					Box3 box = box_empty();
					for (int i = 0; i < kSearchChunk; i++)
					{
						double x = qu.centre.lon + (-kSpan + (cx + u(rng)) * kCellKm) * km_lon;
						double y = qu.centre.lat + (-kSpan + (cy + u(rng)) * kCellKm) * km_lat;
						ch.e[i] = ChunkEntry{(uint64_t) (qu.chunks.size() * kSearchChunk + i),
											 nullptr, x, y};
						box_extend(&box, unit_vector(geographic_point(LonLat{x, y})));
					}
					qu.chunks.push_back(ch);
					qu.boxes.push_back(box);
				}
		}
		return out;
	}();
	return q;
}

void
BM_NearestHundredIn5km(benchmark::State &state)
{
	const std::vector<Query> &qs = queries();
	KnnCallbacks cb = geoidx_micro::malloc_callbacks();
	SearchItem page{};
	page.kind = ItemKind::page;
	size_t next = 0;
	uint64_t rows = 0;
	for (auto _ : state)
	{
		const Query &q = qs[next++ % qs.size()];
		RegionTest key =
			region_test(geographic_point(q.centre), kRadius, true, RegionMode::within, false);
		SpatialKeys keys = spatial_keys(&key, 1);
		KnnSearch s;
		knn_init(&s, cb, keys, q.centre);
		s.order_only = true;
		for (size_t c = 0; c < q.chunks.size(); c++)
		{
			SearchChunk *buf = knn_chunk_buffer(&s);
			*buf = q.chunks[c];
			knn_add_chunk(&s, buf, q.boxes[c], page);
		}
		SearchItem item;
		for (int i = 0; i < kRows && knn_next(&s, kRadius, &item); i++)
		{
			benchmark::DoNotOptimize(item.row);
			rows++;
		}
		geoidx_micro::malloc_search_finish(&s);
	}
	state.counters["rows"] = (double) rows / (double) state.iterations();
}
BENCHMARK(BM_NearestHundredIn5km);

} // namespace
