/*
 * What deciding "which NYC neighbourhood contains this bus" costs in the core:
 * polygon_covers on the 195 neighbourhoods (540 vertices each on average) for
 * the 1,962 bus positions, every (bus, neighbourhood) pair whose boxes meet,
 * with and without the ring chunk boxes. This is the exact test the index will
 * run on the candidates its tree leaves (seed 003's query, issue 10's G1).
 *
 *   cmake -S . -B build-bench -DGEOIDX_BENCHMARKS=ON -DCMAKE_BUILD_TYPE=Release
 *   cmake --build build-bench -j2 && build-bench/geoidx_micro_bench --benchmark_filter=Covers
 */
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../../test/unit/nyc_shapes.h"

namespace
{

using namespace geoidx;
using namespace nyc_shapes;

std::string
read_file(const char *path)
{
	std::ifstream in(path);
	std::stringstream s;
	s << in.rdbuf();
	return s.str();
}

struct Fixture
{
	std::vector<std::vector<Prepared>> shapes;
	std::vector<std::pair<uint32_t, Vec3>> pairs; /* (neighbourhood, bus) with overlapping boxes */

	explicit Fixture(bool chunked)
	{
		const std::string ntas = read_file(GEOIDX_DATA "/gofence-profiling/nyc/nyc_ntas.geojson");
		for (const Shape &shape : GeoJson(ntas).shapes())
		{
			std::vector<Prepared> members;
			for (const Polygon &poly : shape)
				members.push_back(prepare(poly, 0, 0, chunked));
			this->shapes.push_back(std::move(members));
		}
		const std::string buses = read_file(
			GEOIDX_DATA "/gofence-profiling/nyc/nyc_mta_vehiclemonitoring_1457799429_feed.geojson");
		for (size_t at = 0; (at = buses.find("\"coordinates\":[", at)) != std::string::npos; at++)
		{
			const char *p = buses.c_str() + at + 15;
			char *end;
			const double lon = std::strtod(p, &end), lat = std::strtod(end + 1, nullptr);
			const Vec3 v = cart(lon, lat);
			for (uint32_t n = 0; n < this->shapes.size(); n++)
				for (const Prepared &m : this->shapes[n])
					if (box_contains(m.box, v))
					{
						pairs.emplace_back(n, v);
						break;
					}
		}
	}
};

void
run(benchmark::State &state, bool chunked)
{
	static const Fixture with_chunks(true), without(false);
	const Fixture &f = chunked ? with_chunks : without;
	size_t i = 0;
	long inside = 0;
	for (auto _ : state)
	{
		const auto &pair = f.pairs[i];
		inside += shape_covers(f.shapes[pair.first], pair.second) == Cover::inside;
		if (++i == f.pairs.size())
			i = 0;
	}
	benchmark::DoNotOptimize(inside);
	state.counters["pairs"] = static_cast<double>(f.pairs.size());
}

void
BM_CoversNycChunked(benchmark::State &state)
{
	run(state, true);
}
BENCHMARK(BM_CoversNycChunked);

void
BM_CoversNycPlain(benchmark::State &state)
{
	run(state, false);
}
BENCHMARK(BM_CoversNycPlain);

} // namespace
