/*
 * choose_entry (the subtree an insert descends into) and fitting_cut (where a
 * split with payloads may cut) against brute force: every candidate is scored
 * on its own from the definitions (coverage axis by axis, margin as the sum of
 * edge lengths, growth as the margin of the grown box minus the box's), and the
 * answer is the least score in lexicographic order. Random boxes, duplicates
 * (ties), degenerate boxes (points, flat boxes), empty boxes (pages of NULL or
 * EMPTY rows), rows with no point, and entry sizes up to the largest payload.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "choose.h"
#include "split.h"

namespace
{

using namespace geoidx;

/* An internal entry's shape: the box is not the first field, and entries are 56 bytes apart. */
struct FakeEntry
{
	unsigned child;
	unsigned unused;
	Box3 box;
};

bool
brute_covers(const Box3 &b, const Vec3 &v)
{
	const double c[3] = {v.x, v.y, v.z};
	for (int a = 0; a < 3; a++)
		if (!(b.lo[a] <= c[a] && c[a] <= b.hi[a]))
			return false;
	return true;
}

double
brute_margin(const Box3 &b)
{
	if (b.lo[0] > b.hi[0])
		return 0.0; /* empty */
	return (b.hi[0] - b.lo[0]) + (b.hi[1] - b.lo[1]) + (b.hi[2] - b.lo[2]);
}

double
brute_growth(const Box3 &b, const Vec3 &v)
{
	if (b.lo[0] > b.hi[0])
		return 0.0; /* an empty box grows by nothing: the rule the insert path has always had */
	const double c[3] = {v.x, v.y, v.z};
	Box3 g = b;
	for (int a = 0; a < 3; a++)
	{
		g.lo[a] = c[a] < g.lo[a] ? c[a] : g.lo[a];
		g.hi[a] = c[a] > g.hi[a] ? c[a] : g.hi[a];
	}
	return brute_margin(g) - brute_margin(b);
}

/* The lexicographic least (not covering, growth, margin, position). */
int
brute_choose(const std::vector<Box3> &boxes, const Vec3 *v, bool *covers)
{
	std::vector<std::tuple<bool, double, double, size_t>> score;
	for (size_t i = 0; i < boxes.size(); i++)
	{
		bool c = v == nullptr || brute_covers(boxes[i], *v);
		score.emplace_back(!c, c ? 0.0 : brute_growth(boxes[i], *v), brute_margin(boxes[i]), i);
	}
	if (score.empty())
		return -1;
	auto best = *std::min_element(score.begin(), score.end());
	*covers = !std::get<0>(best);
	return static_cast<int>(std::get<3>(best));
}

Vec3
random_unit(std::mt19937_64 &rng)
{
	std::normal_distribution<double> g(0.0, 1.0);
	for (;;)
	{
		Vec3 v{g(rng), g(rng), g(rng)};
		double n = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
		if (n > 1e-6)
			return Vec3{v.x / n, v.y / n, v.z / n};
	}
}

Vec3
near(std::mt19937_64 &rng, const Vec3 &c, double spread)
{
	std::uniform_real_distribution<double> u(-spread, spread);
	Vec3 v{c.x + u(rng), c.y + u(rng), c.z + u(rng)};
	double n = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
	return Vec3{v.x / n, v.y / n, v.z / n};
}

/* A random page of entry boxes, with the awkward kinds mixed in. */
std::vector<Box3>
random_boxes(std::mt19937_64 &rng, size_t n, const Vec3 &centre, double spread)
{
	std::vector<Box3> boxes;
	for (size_t i = 0; i < n; i++)
	{
		Box3 b = box_of(near(rng, centre, spread));
		switch (rng() % 8)
		{
			case 0: /* a point: a degenerate box */
				break;
			case 1: /* a page of NULL or EMPTY rows */
				b = box_empty();
				break;
			case 2: /* a duplicate: ties on margin and growth */
				if (!boxes.empty())
					b = boxes[rng() % boxes.size()];
				break;
			case 3: /* flat in one axis */
			{
				Vec3 w = near(rng, centre, spread);
				w.z = b.lo[2];
				box_extend(&b, w);
				break;
			}
			default:
				for (int k = 0, m = 1 + rng() % 4; k < m; k++)
					box_extend(&b, near(rng, centre, spread));
		}
		boxes.push_back(b);
	}
	return boxes;
}

int
run_choose(const std::vector<Box3> &boxes, const Vec3 *v, bool *covers)
{
	/* read in place from entries shaped as a page holds them */
	std::vector<FakeEntry> entries(boxes.size() + 1);
	for (size_t i = 0; i < boxes.size(); i++)
		entries[i] = FakeEntry{static_cast<unsigned>(i), 0xdeadbeef, boxes[i]};
	return choose_entry(&entries[0].box, sizeof(FakeEntry), boxes.size(), v, covers);
}

} // namespace

TEST(ChooseEntry, EqualsBruteForceOnRandomPages)
{
	std::mt19937_64 rng(2026);
	std::uniform_real_distribution<double> spread(1e-7, 0.5);
	long cases = 0, covered = 0;
	for (int iter = 0; iter < 20000; iter++)
	{
		size_t n = 1 + rng() % 144;
		Vec3 centre = random_unit(rng);
		double s = spread(rng);
		std::vector<Box3> boxes = random_boxes(rng, n, centre, s);
		Vec3 v = near(rng, centre, s * (rng() % 2 ? 1.0 : 3.0));
		if (rng() % 5 == 0) /* a point exactly on a box's corner or an existing point */
		{
			const Box3 &b = boxes[rng() % n];
			if (!box_is_empty(b))
				v = Vec3{b.lo[0], b.hi[1], b.lo[2]};
		}
		const Vec3 *pv = rng() % 10 == 0 ? nullptr : &v; /* a NULL or EMPTY row */
		bool want_covers = false, got_covers = true;
		int want = brute_choose(boxes, pv, &want_covers);
		int got = run_choose(boxes, pv, &got_covers);
		ASSERT_EQ(got, want) << "iteration " << iter << ", n = " << n;
		ASSERT_EQ(got_covers, want_covers) << "iteration " << iter;
		covered += want_covers;
		cases++;
	}
	/* both branches were exercised in earnest */
	EXPECT_GT(covered, cases / 10);
	EXPECT_LT(covered, cases - cases / 10);
	RecordProperty("cases", std::to_string(cases));
}

TEST(ChooseEntry, TiesGoToTheFirstEntry)
{
	Vec3 v{0.0, 0.0, 1.0};
	Box3 b = box_of(Vec3{0.0, 0.1, 0.99});
	box_extend(&b, Vec3{0.1, 0.0, 0.995});
	std::vector<Box3> same(7, b);
	bool covers = true;
	EXPECT_EQ(run_choose(same, &v, &covers), 0);
	EXPECT_FALSE(covers);
	/* covering beats any growth, then the smallest margin */
	Box3 big = box_of(Vec3{-0.2, -0.2, 0.9});
	box_extend(&big, Vec3{0.2, 0.2, 1.0});
	Box3 small = box_of(Vec3{-0.01, -0.01, 0.99});
	box_extend(&small, Vec3{0.01, 0.01, 1.0});
	std::vector<Box3> boxes = {b, big, small, big};
	EXPECT_EQ(run_choose(boxes, &v, &covers), 2);
	EXPECT_TRUE(covers);
	/* a row with no point: every entry covers it; the empty box has margin 0 */
	boxes.push_back(box_empty());
	EXPECT_EQ(run_choose(boxes, nullptr, &covers), 4);
	EXPECT_TRUE(covers);
}

TEST(ChooseEntry, NoEntries)
{
	Vec3 v{1.0, 0.0, 0.0};
	bool covers = true;
	EXPECT_EQ(run_choose({}, &v, &covers), -1);
	EXPECT_FALSE(covers);
}

namespace
{

/* The byte counts of this build's 8 kB leaf (geoidx.h): entries and payloads, and the largest. */
constexpr size_t kLeafSpace = 7832;
constexpr size_t kLeafEntry = 24;
constexpr size_t kMaxEntryBytes = kLeafEntry + 2000;

/* The fitting cut nearest to preferred, from sums made afresh for every cut. */
size_t
brute_cut(const std::vector<size_t> &bytes, size_t capacity, size_t preferred)
{
	size_t n = bytes.size();
	auto fits = [&](size_t k)
	{
		size_t l = 0, r = 0;
		for (size_t i = 0; i < n; i++)
			(i < k ? l : r) += bytes[i];
		return l <= capacity && r <= capacity;
	};
	if (preferred <= n && fits(preferred))
		return preferred;
	std::vector<std::pair<size_t, size_t>> fitting; /* (distance, cut) */
	for (size_t k = 1; k < n; k++)
		if (fits(k))
			fitting.emplace_back(k > preferred ? k - preferred : preferred - k, k);
	if (fitting.empty())
		return 0;
	return std::min_element(fitting.begin(), fitting.end())->second;
}

size_t
entry_bytes(std::mt19937_64 &rng)
{
	switch (rng() % 4)
	{
		case 0:
			return kMaxEntryBytes; /* at the limit */
		case 1:
			return kLeafEntry + 8; /* the smallest payload */
		default:
			return kLeafEntry + 8 * (1 + rng() % 250);
	}
}

} // namespace

TEST(FittingCut, EqualsBruteForce)
{
	std::mt19937_64 rng(7);
	long cases = 0, moved = 0, none = 0;
	for (int iter = 0; iter < 20000; iter++)
	{
		size_t n = 2 + rng() % 40;
		std::vector<size_t> bytes(n);
		for (auto &b : bytes)
			b = entry_bytes(rng);
		size_t capacity = rng() % 3 == 0 ? kLeafSpace : 1 + rng() % (kLeafSpace * 2);
		size_t preferred = rng() % 8 == 0 ? rng() % (n + 1) : 1 + rng() % (n - 1);
		size_t want = brute_cut(bytes, capacity, preferred);
		size_t got = fitting_cut(bytes.data(), n, capacity, preferred);
		ASSERT_EQ(got, want) << "iteration " << iter << ", n = " << n << ", capacity " << capacity;
		moved += (got != preferred && got != 0);
		none += (got == 0);
		cases++;
	}
	EXPECT_GT(moved, cases / 20);
	EXPECT_GT(none, cases / 50);
	RecordProperty("cases", std::to_string(cases));
}

TEST(FittingCut, AlwaysFoundWithinTheBound)
{
	/* entries of at most m bytes, together at most 2 * capacity - m: a cut always fits */
	std::mt19937_64 rng(11);
	for (int iter = 0; iter < 5000; iter++)
	{
		std::vector<size_t> bytes;
		size_t total = 0;
		for (;;)
		{
			size_t b = entry_bytes(rng);
			if (total + b > 2 * kLeafSpace - kMaxEntryBytes)
				break;
			bytes.push_back(b);
			total += b;
		}
		ASSERT_GE(bytes.size(), 2u);
		/* a preferred cut that overfills the left side */
		size_t got = fitting_cut(bytes.data(), bytes.size(), kLeafSpace, bytes.size() - 1);
		ASSERT_GE(got, 1u) << "iteration " << iter << ": no cut of " << total << " bytes";
		ASSERT_LT(got, bytes.size());
		ASSERT_EQ(got, brute_cut(bytes, kLeafSpace, bytes.size() - 1));
	}
}

TEST(FittingCut, EdgeCases)
{
	std::vector<size_t> two = {kMaxEntryBytes, kMaxEntryBytes};
	EXPECT_EQ(fitting_cut(two.data(), 2, kMaxEntryBytes, 1), 1u);
	EXPECT_EQ(fitting_cut(two.data(), 2, kMaxEntryBytes - 1, 1), 0u); /* no side can hold one */
	/* the cuts that fit form an interval: the nearest end of it is taken */
	std::vector<size_t> sym = {10, 10, 100, 10, 10};
	EXPECT_EQ(fitting_cut(sym.data(), 5, 30, 2), 0u); /* 100 fits nowhere with anything */
	EXPECT_EQ(fitting_cut(sym.data(), 5, 120, 0), 2u);
	EXPECT_EQ(fitting_cut(sym.data(), 5, 120, 5), 3u);
	std::vector<size_t> tie = {50, 50, 50, 50};
	EXPECT_EQ(fitting_cut(tie.data(), 4, 150, 2), 2u);
	EXPECT_EQ(fitting_cut(tie.data(), 4, 100, 3), 2u);
}
