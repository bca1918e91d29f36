/*
 * The Hilbert key: the curve checked cell by cell on small orders, against an
 * independently written inverse (Wikipedia's d2xy) on large ones, and the
 * 64-bit key for its face bits and its locality.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "geodesy.h"
#include "hilbert.h"
#include "sphere_bounds.h"

namespace
{

using namespace geoidx;

/* Wikipedia "Hilbert curve", d2xy: the inverse, written independently of hilbert.cc. */
void
ref_d2xy(uint32_t order, uint64_t d, uint32_t *x, uint32_t *y)
{
	const uint64_t n = uint64_t{1} << order;
	uint64_t t = d, px = 0, py = 0;
	for (uint64_t s = 1; s < n; s *= 2)
	{
		uint64_t rx = 1 & (t / 2);
		uint64_t ry = 1 & (t ^ rx);
		if (ry == 0)
		{
			if (rx == 1)
			{
				px = s - 1 - px;
				py = s - 1 - py;
			}
			std::swap(px, py);
		}
		px += s * rx;
		py += s * ry;
		t /= 4;
	}
	*x = static_cast<uint32_t>(px);
	*y = static_cast<uint32_t>(py);
}

int
common_prefix(uint64_t a, uint64_t b)
{
	uint64_t x = a ^ b;
	return x == 0 ? 64 : __builtin_clzll(x);
}

/* S2's face numbering: 0 +x, 1 +y, 2 +z, 3 -x, 4 -y, 5 -z. */
uint64_t
expected_face(const Vec3 &v)
{
	double c[3] = {v.x, v.y, v.z};
	int axis = 0;
	for (int i = 1; i < 3; i++)
		if (std::fabs(c[i]) > std::fabs(c[axis]))
			axis = i;
	return static_cast<uint64_t>(c[axis] >= 0 ? axis : axis + 3);
}

Vec3
random_unit(std::mt19937_64 &rng)
{
	std::uniform_real_distribution<double> lon(-M_PI, M_PI), z(-1, 1);
	return unit_vector(GeoPoint{lon(rng), std::asin(z(rng))});
}

} // namespace

TEST(Hilbert, OrderOneIsTheTextbookU)
{
	EXPECT_EQ(hilbert_xy_to_d(1, 0, 0), 0u);
	EXPECT_EQ(hilbert_xy_to_d(1, 0, 1), 1u);
	EXPECT_EQ(hilbert_xy_to_d(1, 1, 1), 2u);
	EXPECT_EQ(hilbert_xy_to_d(1, 1, 0), 3u);
}

TEST(Hilbert, SmallOrdersAreBijectionsAndContinuous)
{
	long cells = 0;
	for (uint32_t order = 1; order <= 6; order++)
	{
		const uint32_t n = 1u << order;
		const uint64_t total = uint64_t{1} << (2 * order);
		std::vector<int> seen(total, 0);
		std::vector<uint32_t> px(total), py(total);
		for (uint32_t x = 0; x < n; x++)
			for (uint32_t y = 0; y < n; y++)
			{
				uint64_t d = hilbert_xy_to_d(order, x, y);
				ASSERT_LT(d, total) << "order " << order << " (" << x << "," << y << ")";
				ASSERT_EQ(seen[d], 0) << "order " << order << " d " << d << " twice";
				seen[d] = 1;
				px[d] = x;
				py[d] = y;
				cells++;
			}
		/* all 4^order values hit (n*n cells, no repeat), consecutive ones are neighbours */
		for (uint64_t d = 0; d + 1 < total; d++)
		{
			int dist = std::abs(static_cast<int>(px[d]) - static_cast<int>(px[d + 1])) +
					   std::abs(static_cast<int>(py[d]) - static_cast<int>(py[d + 1]));
			ASSERT_EQ(dist, 1) << "order " << order << " d " << d;
		}
		/* the curve runs from one corner to the adjacent one along the x edge */
		EXPECT_EQ(px[0], 0u);
		EXPECT_EQ(py[0], 0u);
		EXPECT_EQ(px[total - 1], n - 1);
		EXPECT_EQ(py[total - 1], 0u);
	}
	RecordProperty("cells", std::to_string(cells));
}

TEST(Hilbert, LargeOrdersInvertTheReference)
{
	std::mt19937_64 rng(30);
	for (uint32_t order = 1; order <= 30; order++)
	{
		const uint64_t total = uint64_t{1} << (2 * order);
		for (int i = 0; i < 2000; i++)
		{
			uint64_t d = rng() % total;
			if (i == 0)
				d = 0;
			if (i == 1)
				d = total - 1;
			uint32_t x, y;
			ref_d2xy(order, d, &x, &y);
			ASSERT_EQ(hilbert_xy_to_d(order, x, y), d) << "order " << order;
			uint32_t cx, cy;
			geoidx::hilbert_d_to_xy(order, d, &cx, &cy);
			ASSERT_EQ(cx, x) << "order " << order << " d " << d;
			ASSERT_EQ(cy, y) << "order " << order << " d " << d;
			if (d + 1 < total)
			{
				uint32_t x2, y2;
				ref_d2xy(order, d + 1, &x2, &y2);
				uint64_t dist = (x > x2 ? x - x2 : x2 - x) + (y > y2 ? y - y2 : y2 - y);
				ASSERT_EQ(dist, 1u) << "order " << order << " d " << d;
				ASSERT_EQ(hilbert_xy_to_d(order, x2, y2), d + 1);
			}
		}
	}
}

TEST(Hilbert, KeyKeepsTheFaceInTheTopBits)
{
	std::mt19937_64 rng(6);
	int faces[6] = {0, 0, 0, 0, 0, 0};
	for (int i = 0; i < 200000; i++)
	{
		Vec3 v = random_unit(rng);
		uint64_t k = hilbert_key(v);
		uint64_t f = expected_face(v);
		ASSERT_EQ(k >> 60, f) << v.x << " " << v.y << " " << v.z;
		faces[f]++;
	}
	for (int f = 0; f < 6; f++)
		EXPECT_GT(faces[f], 200000 / 6 * 9 / 10) << "face " << f;
	/* the axes themselves */
	EXPECT_EQ(hilbert_key(Vec3{1, 0, 0}) >> 60, 0u);
	EXPECT_EQ(hilbert_key(Vec3{0, 1, 0}) >> 60, 1u);
	EXPECT_EQ(hilbert_key(Vec3{0, 0, 1}) >> 60, 2u);
	EXPECT_EQ(hilbert_key(Vec3{-1, 0, 0}) >> 60, 3u);
	EXPECT_EQ(hilbert_key(Vec3{0, -1, 0}) >> 60, 4u);
	EXPECT_EQ(hilbert_key(Vec3{0, 0, -1}) >> 60, 5u);
	/* deterministic */
	Vec3 v = unit_vector(GeoPoint{0.1, 0.2});
	EXPECT_EQ(hilbert_key(v), hilbert_key(v));
}

/*
 * Order 30 on a face of ~10,000 km: cells of about 1 cm. Two points a metre
 * apart are some 7 levels (14 bits) apart at most, unless a high-level cell
 * edge falls between them, which Hilbert keys cannot avoid; so "mostly".
 */
TEST(Hilbert, NearbyPointsMostlyShareLongPrefixes)
{
	std::mt19937_64 rng(1234);
	std::uniform_real_distribution<double> lon(-180, 180), z(-1, 1), dir(0, 2 * M_PI);
	const double metres[] = {1.0, 100.0, 10000.0, 1000000.0};
	double previous_median = 65;
	for (double m : metres)
	{
		std::vector<int> prefixes;
		for (int i = 0; i < 20000; i++)
		{
			double lat = std::asin(z(rng)) * 180 / M_PI, lo = lon(rng);
			if (std::fabs(lat) > 89)
				continue;
			double a = dir(rng);
			double dlat = m * std::cos(a) / 111000.0;
			double dlon = m * std::sin(a) / (111000.0 * std::cos(lat * M_PI / 180));
			LonLat p, q;
			normalize_like_geography(lo, lat, &p);
			normalize_like_geography(lo + dlon, lat + dlat, &q);
			uint64_t kp = hilbert_key(unit_vector(geographic_point(p)));
			uint64_t kq = hilbert_key(unit_vector(geographic_point(q)));
			prefixes.push_back(common_prefix(kp, kq));
		}
		std::sort(prefixes.begin(), prefixes.end());
		int median = prefixes[prefixes.size() / 2];
		int p10 = prefixes[prefixes.size() / 10];
		std::printf("[ stats    ] %.0f m apart: common prefix median %d bits, 10th percentile %d\n",
					m, median, p10);
		/* ~1 cm cells: some log2(distance / 1.2 cm) levels differ, 2 bits a level */
		int levels = static_cast<int>(std::ceil(std::log2(m / 0.012)));
		EXPECT_GE(median, 64 - 2 * (levels + 3)) << m << " m";
		EXPECT_GE(p10, 64 - 2 * (levels + 6)) << m << " m";
		EXPECT_LE(median, previous_median) << "prefixes must shrink with distance";
		previous_median = median;
	}
}
