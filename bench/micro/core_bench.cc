/*
 * Micro-benchmarks of the core's per-point and per-box operations: what a scan
 * pays for each heap tuple or index entry it looks at. Inputs are fixed-seed
 * random and cycled through arrays that fit in L1/L2, so the numbers are
 * compute cost, not memory latency.
 *
 *   cmake -S . -B build-bench -DGEOIDX_BENCHMARKS=ON -DCMAKE_BUILD_TYPE=Release
 *   cmake --build build-bench -j2 && build-bench/geoidx_micro_bench
 */
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "geodesy.h"
#include "hilbert.h"
#include "sphere_bounds.h"

namespace
{

using namespace geoidx;

constexpr size_t kN = 4096; /* a power of two: i & (kN - 1) cycles */
constexpr double kTypicalRadius = 200000.0;

struct Inputs
{
	std::vector<LonLat> lonlat;
	std::vector<GeoPoint> geo;
	std::vector<Vec3> vec;
};

/* Points uniform on the sphere, or within `spread` degrees of (lon, lat). */
Inputs
make_points(uint64_t seed, double lon = 0, double lat = 0, double spread = -1)
{
	std::mt19937_64 rng(seed);
	std::uniform_real_distribution<double> ulon(-180, 180), uz(-1, 1), off(-1, 1);
	Inputs in;
	for (size_t i = 0; i < kN; i++)
	{
		double x, y;
		if (spread < 0)
		{
			x = ulon(rng);
			y = std::asin(uz(rng)) * 180 / M_PI;
		}
		else
		{
			x = lon + off(rng) * spread / std::cos(lat * M_PI / 180);
			y = lat + off(rng) * spread;
		}
		LonLat ll;
		normalize_like_geography(x, y, &ll);
		in.lonlat.push_back(ll);
		in.geo.push_back(geographic_point(ll));
		in.vec.push_back(unit_vector(in.geo.back()));
	}
	return in;
}

const LonLat kCenter{13.4, 52.5}; /* Berlin */

/* Points around the centre, ~3.6 degrees (400 km) either way: about a quarter within 200 km. */
const Inputs &
near_points()
{
	static const Inputs in = make_points(2, kCenter.lon, kCenter.lat, 3.6);
	return in;
}

const Inputs &
global_points()
{
	static const Inputs in = make_points(1);
	return in;
}

void
BM_SpheroidDistance_Global(benchmark::State &state)
{
	const Inputs &a = global_points();
	const Inputs &b = near_points();
	size_t i = 0;
	for (auto _ : state)
	{
		benchmark::DoNotOptimize(spheroid_distance(a.geo[i & (kN - 1)], b.geo[i & (kN - 1)]));
		i++;
	}
}
BENCHMARK(BM_SpheroidDistance_Global);

void
BM_SpheroidDistance_200km(benchmark::State &state)
{
	const Inputs &b = near_points();
	GeoPoint c = geographic_point(kCenter);
	size_t i = 0;
	for (auto _ : state)
	{
		benchmark::DoNotOptimize(spheroid_distance(c, b.geo[i & (kN - 1)]));
		i++;
	}
}
BENCHMARK(BM_SpheroidDistance_200km);

void
BM_SphereCentralAngle(benchmark::State &state)
{
	const Inputs &b = near_points();
	GeoPoint c = geographic_point(kCenter);
	size_t i = 0;
	for (auto _ : state)
	{
		benchmark::DoNotOptimize(sphere_central_angle(c, b.geo[i & (kN - 1)]));
		i++;
	}
}
BENCHMARK(BM_SphereCentralAngle);

/* ST_DWithin(p, centre, 200 km): the sphere pre-check, then PROJ when it is not conclusive. */
void
BM_StDWithin_200km(benchmark::State &state)
{
	const bool use_spheroid = state.range(0) != 0;
	const Inputs &b = near_points();
	GeoPoint c = geographic_point(kCenter);
	size_t i = 0;
	for (auto _ : state)
	{
		benchmark::DoNotOptimize(st_dwithin(c, b.geo[i & (kN - 1)], kTypicalRadius, use_spheroid));
		i++;
	}
}
BENCHMARK(BM_StDWithin_200km)->ArgName("spheroid")->Arg(1)->Arg(0);

/* point_within for points around the centre: the chord tests decide most. */
void
BM_PointWithin_200km_Near(benchmark::State &state)
{
	const bool use_spheroid = state.range(0) != 0;
	const Inputs &b = near_points();
	RadiusTest t = radius_test(geographic_point(kCenter), kTypicalRadius, use_spheroid);
	size_t i = 0;
	for (auto _ : state)
	{
		benchmark::DoNotOptimize(point_within(t, b.lonlat[i & (kN - 1)]));
		i++;
	}
}
BENCHMARK(BM_PointWithin_200km_Near)->ArgName("spheroid")->Arg(1)->Arg(0);

/* point_within for points anywhere: nearly all rejected by the latitude test. */
void
BM_PointWithin_200km_Global(benchmark::State &state)
{
	const Inputs &b = global_points();
	RadiusTest t = radius_test(geographic_point(kCenter), kTypicalRadius, true);
	size_t i = 0;
	for (auto _ : state)
	{
		benchmark::DoNotOptimize(point_within(t, b.lonlat[i & (kN - 1)]));
		i++;
	}
}
BENCHMARK(BM_PointWithin_200km_Global);

void
BM_RadiusTest(benchmark::State &state)
{
	const Inputs &b = global_points();
	size_t i = 0;
	for (auto _ : state)
	{
		benchmark::DoNotOptimize(radius_test(b.geo[i & (kN - 1)], kTypicalRadius, true));
		i++;
	}
}
BENCHMARK(BM_RadiusTest);

void
BM_UnitVector(benchmark::State &state)
{
	const Inputs &b = global_points();
	size_t i = 0;
	for (auto _ : state)
	{
		benchmark::DoNotOptimize(unit_vector(b.geo[i & (kN - 1)]));
		i++;
	}
}
BENCHMARK(BM_UnitVector);

/* Boxes of 2..32 points within ~1 degree, as a leaf's would be. */
std::vector<Box3>
make_boxes()
{
	std::mt19937_64 rng(3);
	const Inputs &centres = global_points();
	std::uniform_real_distribution<double> off(-1, 1);
	std::vector<Box3> boxes;
	for (size_t i = 0; i < kN; i++)
	{
		Box3 b = box_empty();
		size_t n = 2 + rng() % 31;
		for (size_t k = 0; k < n; k++)
		{
			LonLat ll;
			normalize_like_geography(centres.lonlat[i].lon + off(rng),
									 centres.lonlat[i].lat + off(rng), &ll);
			box_extend(&b, unit_vector(geographic_point(ll)));
		}
		boxes.push_back(b);
	}
	return boxes;
}

const std::vector<Box3> &
boxes()
{
	static const std::vector<Box3> b = make_boxes();
	return b;
}

void
BM_MinChord2(benchmark::State &state)
{
	const std::vector<Box3> &bx = boxes();
	Vec3 q = unit_vector(geographic_point(kCenter));
	size_t i = 0;
	for (auto _ : state)
	{
		benchmark::DoNotOptimize(min_chord2(bx[i & (kN - 1)], q));
		i++;
	}
}
BENCHMARK(BM_MinChord2);

/* The kNN key of a box: min_chord2 -> angle -> metres lower bound. */
void
BM_BoxLowerBoundMetres(benchmark::State &state)
{
	const std::vector<Box3> &bx = boxes();
	Vec3 q = unit_vector(geographic_point(kCenter));
	size_t i = 0;
	for (auto _ : state)
	{
		double a = chord2_to_angle(min_chord2(bx[i & (kN - 1)], q));
		benchmark::DoNotOptimize(metres_lower_bound(a, true));
		i++;
	}
}
BENCHMARK(BM_BoxLowerBoundMetres);

void
BM_ClassifyBox_200km(benchmark::State &state)
{
	const std::vector<Box3> &bx = boxes();
	RadiusTest t = radius_test(geographic_point(kCenter), kTypicalRadius, true);
	size_t i = 0;
	for (auto _ : state)
	{
		benchmark::DoNotOptimize(classify_box(t, bx[i & (kN - 1)]));
		i++;
	}
}
BENCHMARK(BM_ClassifyBox_200km);

void
BM_HilbertKey(benchmark::State &state)
{
	const Inputs &b = global_points();
	size_t i = 0;
	for (auto _ : state)
	{
		benchmark::DoNotOptimize(hilbert_key(b.vec[i & (kN - 1)]));
		i++;
	}
}
BENCHMARK(BM_HilbertKey);

} // namespace
