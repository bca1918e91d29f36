/*
 * What building one zone's index entry costs in the core, step by step, over
 * the 195 NYC neighbourhoods (540 vertices each on average): the prepared
 * polygon (whose walk also gives the entry's box), the interior grid (the
 * raster, and the block build it replaced where the raster applies), and the
 * planar check; and the bounds walk alone, which a polygon's entry no longer
 * needs (lines, points and collections still take their box from it). BUILD
 * on zones (bench/run) compares the whole with GiST(geography); this says
 * which step to make cheaper.
 *
 *   cmake -S . -B build-bench -DGEOIDX_BENCHMARKS=ON -DCMAKE_BUILD_TYPE=Release
 *   cmake --build build-bench -j2 && build-bench/geoidx_micro_bench --benchmark_filter=Entry
 */
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../test/unit/nyc_shapes.h"
#include "interior_grid.h"
#include "packed_box.h"
#include "planar_grid.h"
#include "shape_bounds.h"

namespace
{

using namespace geoidx;
using namespace nyc_shapes;

struct Zone
{
	std::vector<uint8_t> bytes;
	SerializedHeader h;
	PreparedBytes prepared;
	Box3 box;
	InteriorGrid grid;
};

std::vector<Zone> &
zones()
{
	static std::vector<Zone> all = []
	{
		std::ifstream in(GEOIDX_DATA "/gofence-profiling/nyc/nyc_ntas.geojson");
		std::stringstream text;
		text << in.rdbuf();
		std::vector<Zone> out;
		for (const Shape &s : GeoJson(text.str()).shapes())
		{
			Zone z;
			z.bytes = serialize(s, 0, 0);
			WalkError err;
			read_serialized_header(z.bytes.data(), z.bytes.size(), &z.h, &err);
			prepare_bytes(z.bytes, &z.prepared);
			z.box = unpack_box(pack_box(z.prepared.shape.bounds));
			z.grid = interior_grid(z.prepared.shape, z.box);
			out.push_back(std::move(z));
		}
		return out;
	}();
	return all;
}

void
BM_EntryBounds(benchmark::State &state)
{
	for (auto _ : state)
		for (const Zone &z : zones())
		{
			ShapeBounds b;
			WalkError err;
			benchmark::DoNotOptimize(walk_serialized(z.bytes.data(), z.h, &b, &err));
			benchmark::DoNotOptimize(b.box());
		}
	state.SetItemsProcessed(state.iterations() * zones().size());
}
BENCHMARK(BM_EntryBounds);

void
BM_EntryPrepare(benchmark::State &state)
{
	for (auto _ : state)
		for (const Zone &z : zones())
		{
			PreparedBytes p;
			benchmark::DoNotOptimize(prepare_bytes(z.bytes, &p));
		}
	state.SetItemsProcessed(state.iterations() * zones().size());
}
BENCHMARK(BM_EntryPrepare);

void
BM_EntryGrid(benchmark::State &state)
{
	for (auto _ : state)
		for (const Zone &z : zones())
			benchmark::DoNotOptimize(interior_grid(z.prepared.shape, z.box));
	state.SetItemsProcessed(state.iterations() * zones().size());
}
BENCHMARK(BM_EntryGrid);

void
BM_EntryGridByBlocks(benchmark::State &state)
{
	for (auto _ : state)
		for (const Zone &z : zones())
			benchmark::DoNotOptimize(interior_grid_by_blocks(z.prepared.shape, grid_frame(z.box)));
	state.SetItemsProcessed(state.iterations() * zones().size());
}
BENCHMARK(BM_EntryGridByBlocks);

void
BM_EntryPlanarCheck(benchmark::State &state)
{
	for (auto _ : state)
		for (const Zone &z : zones())
			benchmark::DoNotOptimize(
				planar_grid_agrees(z.prepared.shape, z.grid, grid_frame(z.box)));
	state.SetItemsProcessed(state.iterations() * zones().size());
}
BENCHMARK(BM_EntryPlanarCheck);

} // namespace
