/*
 * The best-first search against brute force. Random trees are built in memory
 * the way the bulk build lays them out (Hilbert order, leaves cut into chunks
 * with their own boxes, internal pages of boxes, some pages split with only a
 * right-link to their sibling), and every search must return exactly the rows
 * that satisfy its keys, in the order of their exact ST_Distance computed
 * directly from PostGIS's formulas, rows with no point last. Ties (duplicate
 * points), the poles, the antimeridian and k up to the whole set included.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

#include "hilbert.h"
#include "knn_search.h"

namespace
{

using namespace geoidx;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint8_t kRowNull = 1;
constexpr uint8_t kRowEmpty = 2;

struct Row
{
	uint8_t kind; /* kRowPoint, kRowNull, kRowEmpty */
	double x;
	double y;
};

struct Page
{
	int level;
	Box3 box;
	std::vector<int> items;      /* leaf: rows; internal: pages */
	std::vector<Box3> chunk_box; /* leaf: one per kSearchChunk items */
	int rightlink = -1;          /* a split whose downlink the parent lacks */
};

struct Tree
{
	std::vector<Row> rows;
	std::vector<Page> pages;
	int root = -1;
	int visits = 0;
	long live_chunks = 0;
	int outside_visits = 0;   /* pages read through a downlink though wholly outside the keys */
	long children_handed = 0; /* children of pages not wholly in the keys' region */
};

Vec3
row_vector(const Row &r)
{
	return unit_vector(geographic_point(stored_lonlat(r.x, r.y)));
}

/* A tree over the rows: Hilbert-sorted leaves of leaf_cap rows, internal pages of fanout. */
void
build_tree(Tree *t, std::mt19937_64 &rng, int leaf_cap, int fanout)
{
	std::vector<int> order(t->rows.size());
	for (size_t i = 0; i < order.size(); i++)
		order[i] = (int) i;
	std::vector<uint64_t> key(t->rows.size());
	for (size_t i = 0; i < key.size(); i++)
		key[i] = t->rows[i].kind == kRowPoint ? hilbert_key(row_vector(t->rows[i])) : UINT64_MAX;
	std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key[a] < key[b]; });

	std::vector<int> level;
	for (size_t first = 0; first < order.size() || level.empty(); first += leaf_cap)
	{
		Page p;
		p.level = 0;
		p.box = box_empty();
		for (size_t i = first; i < std::min(order.size(), first + leaf_cap); i++)
		{
			if ((i - first) % kSearchChunk == 0)
				p.chunk_box.push_back(box_empty());
			p.items.push_back(order[i]);
			if (t->rows[order[i]].kind == kRowPoint)
			{
				box_extend(&p.box, row_vector(t->rows[order[i]]));
				box_extend(&p.chunk_box.back(), row_vector(t->rows[order[i]]));
			}
		}
		t->pages.push_back(p);
		level.push_back((int) t->pages.size() - 1);
		if (order.empty())
			break;
	}
	/* some leaves split "under the scan": the parent will point to the left page only */
	std::vector<int> with_siblings;
	std::uniform_int_distribution<int> coin(0, 5);
	for (size_t i = 0; i < level.size(); i++)
	{
		with_siblings.push_back(level[i]);
		if (i + 1 < level.size() && coin(rng) == 0)
		{
			t->pages[level[i]].rightlink = level[i + 1];
			/* the parent's entry for the pair covers both, as it did before the split */
			box_extend(&t->pages[level[i]].box, t->pages[level[i + 1]].box);
			i++;
		}
	}
	level = with_siblings;
	int lvl = 0;
	while (level.size() > 1)
	{
		lvl++;
		std::vector<int> up;
		for (size_t first = 0; first < level.size(); first += fanout)
		{
			Page p;
			p.level = lvl;
			p.box = box_empty();
			for (size_t i = first; i < std::min(level.size(), first + fanout); i++)
			{
				p.items.push_back(level[i]);
				box_extend(&p.box, t->pages[level[i]].box);
			}
			t->pages.push_back(p);
			up.push_back((int) t->pages.size() - 1);
		}
		level = up;
	}
	t->root = level[0];
}

/* The page's own box: its entries', without a sibling's share. */
Box3
own_box(const Tree *t, const Page &p)
{
	Box3 b = box_empty();
	if (p.level == 0)
	{
		for (int r : p.items)
			if (t->rows[r].kind == kRowPoint)
				box_extend(&b, row_vector(t->rows[r]));
	}
	else
		for (int c : p.items)
			box_extend(&b, t->pages[c].box);
	return b;
}

/* What the glue's page visitor does, on the in-memory tree. */
void
visit(void *ctx, KnnSearch *s, const SearchItem &item)
{
	Tree *t = (Tree *) ctx;
	t->visits++;
	const Page &p = t->pages[item.blk];
	EXPECT_TRUE(item.level == kAnyLevel || item.level == p.level);
	if (p.rightlink >= 0)
		knn_push_right(s, item, (uint32_t) p.rightlink, (int16_t) p.level);
	Verdict pv = spatial_classify(s->keys, own_box(t, p));
	if (pv == Verdict::outside)
	{
		/*
		 * A downlink's box (p.box, the parent's entry) wholly outside should
		 * not have been followed; a right sibling is read unjudged, with its
		 * left page's bound.
		 */
		bool sibling = false;
		for (const Page &o : t->pages)
			sibling |= o.rightlink == (int) item.blk;
		if (item.level != kAnyLevel && !sibling &&
			spatial_classify(s->keys, p.box) == Verdict::outside)
			t->outside_visits++;
		return;
	}
	if (p.level > 0)
	{
		if (pv != Verdict::inside)
			t->children_handed += (long) p.items.size();
		ChildPages *children = knn_begin_children(s, (int) p.items.size(), (int16_t) (p.level - 1),
												  0, pv == Verdict::inside);
		for (int c : p.items)
			knn_add_child(s, children, t->pages[c].box, (uint32_t) c);
		knn_end_children(s, children);
		return;
	}
	for (size_t first = 0; first < p.items.size(); first += kSearchChunk)
	{
		const Box3 &cb = p.chunk_box[first / kSearchChunk];
		Verdict v = pv == Verdict::maybe ? spatial_classify(s->keys, cb) : pv;
		if (v == Verdict::outside)
			continue;
		SearchChunk &chunk = *knn_chunk_buffer(s);
		chunk.n = 0;
		chunk.in_region = v == Verdict::inside;
		for (size_t i = first; i < std::min(p.items.size(), first + kSearchChunk); i++)
		{
			int r = p.items[i];
			const Row &row = t->rows[r];
			if (row.kind != kRowPoint)
			{
				bool ok = row.kind == kRowNull ? spatial_null_matches(s->keys)
											   : spatial_empty_matches(s->keys);
				if (ok)
					knn_push_last(s, (uint64_t) r, nullptr, row.kind);
				continue;
			}
			chunk.e[chunk.n++] = ChunkEntry{(uint64_t) r, &t->rows[r], row.x, row.y};
		}
		knn_add_chunk(s, &chunk, cb, item);
	}
}

SearchItem *
grow(void *, SearchItem *old, size_t cap)
{
	return (SearchItem *) realloc(old, sizeof(SearchItem) * cap);
}

void *
alloc(void *ctx, size_t bytes)
{
	((Tree *) ctx)->live_chunks++;
	return malloc(bytes);
}

void
release(void *ctx, void *p)
{
	((Tree *) ctx)->live_chunks--;
	free(p);
}

struct Key
{
	RegionMode mode;
	LonLat centre;
	double radius;
	bool point_first;
};

/* PostgreSQL's answer for one key and one point, from PostGIS's formulas. */
bool
reference_match(const Key &k, GeoPoint p)
{
	GeoPoint c = geographic_point(k.centre);
	switch (k.mode)
	{
		case RegionMode::within:
			return k.point_first ? st_dwithin(p, c, k.radius, true)
								 : st_dwithin(c, p, k.radius, true);
		case RegionMode::outside:
			return !(k.point_first ? st_dwithin(p, c, k.radius, true)
								   : st_dwithin(c, p, k.radius, true));
		case RegionMode::dist_gt:
			return st_distance(c, p, true) > k.radius;
		case RegionMode::dist_ge:
			return st_distance(c, p, true) >= k.radius;
		case RegionMode::dist_lt:
			return st_distance(c, p, true) < k.radius;
		case RegionMode::dist_le:
			return st_distance(c, p, true) <= k.radius;
		case RegionMode::box_meets:
			break; /* lossy: the planar box key decides points (planar_box_test.cc) */
	}
	return false;
}

struct Hit
{
	double dist;
	int row;
	bool
	operator<(const Hit &o) const
	{
		return dist < o.dist || (dist == o.dist && row < o.row);
	}
	bool
	operator==(const Hit &o) const
	{
		return dist == o.dist && row == o.row;
	}
};

/*
 * What the search orders by: metres on the spheroid (<~>), on PostGIS's sphere
 * (geography's <->), or planar degrees from the raw coordinates (geometry's <->).
 */
enum class Metric
{
	spheroid,
	sphere,
	planar,
};
Metric metric = Metric::spheroid;
/* Searches run with KnnSearch::order_only: rows may come back bracketed. */
bool order_only = false;

/* Every row that satisfies the keys, with its distance from centre, in (distance, row) order. */
std::vector<Hit>
brute_force(const Tree &t, LonLat centre, const std::vector<Key> &keys)
{
	std::vector<Hit> out;
	GeoPoint c = geographic_point(centre);
	for (size_t i = 0; i < t.rows.size(); i++)
	{
		const Row &r = t.rows[i];
		if (r.kind == kRowNull)
		{
			if (keys.empty())
				out.push_back(Hit{kInf, (int) i});
			continue;
		}
		if (r.kind == kRowEmpty)
		{
			bool ok = true;
			for (const Key &k : keys)
				ok &= k.mode == RegionMode::outside; /* NOT ST_DWithin(EMPTY, c) is true */
			if (ok)
				out.push_back(Hit{kInf, (int) i});
			continue;
		}
		LonLat ll;
		if (r.x >= -180 && r.x <= 180 && r.y >= -90 && r.y <= 90)
			ll = LonLat{r.x, r.y};
		else
			normalize_like_geography(r.x, r.y, &ll);
		GeoPoint p = geographic_point(ll);
		bool ok = true;
		for (const Key &k : keys)
			ok = ok && reference_match(k, p);
		if (!ok)
			continue;
		if (metric == Metric::planar)
			out.push_back(Hit{
				planar_point_distance(
					PlanarTarget{centre.lon, centre.lon, centre.lat, centre.lat, true}, r.x, r.y),
				(int) i});
		else if (metric == Metric::sphere)
			out.push_back(Hit{sphere_knn_distance(p, c), (int) i});
		else
			out.push_back(Hit{st_distance(p, c, true), (int) i});
	}
	std::sort(out.begin(), out.end());
	return out;
}

struct Search
{
	KnnSearch s;
	std::vector<RegionTest> regions;
};

/* Free what a stopped search leaves on its frontier (the glue's memory context does this). */
void
finish(Search *x)
{
	knn_finish(&x->s);
	free(x->s.heap.items);
}

void
start(Search *x, Tree *t, LonLat centre, const std::vector<Key> &keys)
{
	x->regions.clear();
	for (const Key &k : keys)
		x->regions.push_back(
			region_test(geographic_point(k.centre), k.radius, true, k.mode, k.point_first));
	KnnCallbacks cb{visit, nullptr, grow, alloc, release, t};
	SpatialKeys sk = spatial_keys(x->regions.data(), (int) x->regions.size());
	if (metric == Metric::planar)
		knn_init_planar(&x->s, cb, sk,
						PlanarTarget{centre.lon, centre.lon, centre.lat, centre.lat, true});
	else
	{
		knn_init(&x->s, cb, sk, centre);
		x->s.use_spheroid = metric == Metric::spheroid;
		x->s.order_only = order_only;
	}
	knn_push_root(&x->s, (uint32_t) t->root);
}

/* Drain up to k rows (all if k < 0) and check them against brute force. */
void
check_search(Tree *t, LonLat centre, const std::vector<Key> &keys, int k, const char *what)
{
	SCOPED_TRACE(what);
	std::vector<Hit> want = brute_force(*t, centre, keys);
	Search x;
	start(&x, t, centre, keys);
	std::vector<Hit> got;
	SearchItem item;
	while ((k < 0 || (int) got.size() < k) && knn_next(&x.s, kInf, &item))
	{
		const Row &r = t->rows[item.row];
		if (item.kind == ItemKind::bracketed)
		{
			/* the test computes the distance the search did not need */
			ASSERT_TRUE(order_only);
			ASSERT_EQ(r.kind, kRowPoint);
			LonLat ll;
			if (r.x >= -180 && r.x <= 180 && r.y >= -90 && r.y <= 90)
				ll = LonLat{r.x, r.y};
			else
				normalize_like_geography(r.x, r.y, &ll);
			double d = st_distance(geographic_point(ll), geographic_point(centre), true);
			ASSERT_LE(item.dist, d) << "a bracket's low end above the distance";
			ASSERT_GE(item.dist + (double) item.gap, d) << "a bracket's high end below it";
			item.dist = d;
		}
		else
			ASSERT_EQ(item.kind, ItemKind::exact);
		ASSERT_EQ(item.row_kind, r.kind);
		if (r.kind == kRowPoint)
		{
			ASSERT_EQ(item.payload, &t->rows[item.row]) << "a point lost its payload";
			ASSERT_EQ(item.x, r.x);
			ASSERT_EQ(item.y, r.y);
		}
		got.push_back(Hit{item.dist, (int) item.row});
	}
	size_t n = k < 0 ? want.size() : std::min(want.size(), (size_t) k);
	ASSERT_EQ(got.size(), n);
	for (size_t i = 0; i < n; i++)
		ASSERT_EQ(got[i].dist, want[i].dist) << "position " << i << " of " << n;
	/* the same rows: all of them strictly nearer than the last distance returned */
	std::vector<Hit> g = got;
	std::sort(g.begin(), g.end());
	if (k < 0 || n == want.size())
		EXPECT_TRUE(std::equal(g.begin(), g.end(), want.begin()));
	else
	{
		double last = got.back().dist;
		std::vector<Hit> gn, wn;
		for (const Hit &h : g)
			if (h.dist < last)
				gn.push_back(h);
		for (size_t i = 0; i < n; i++)
			if (want[i].dist < last)
				wn.push_back(want[i]);
		EXPECT_EQ(gn.size(), wn.size());
		EXPECT_TRUE(std::equal(gn.begin(), gn.end(), wn.begin()));
	}
	if (k < 0)
	{
		EXPECT_FALSE(knn_next(&x.s, kInf, &item));
		/* the spare buffer waits for a next chunk that will not come */
		EXPECT_EQ(t->live_chunks, x.s.spare != nullptr ? 1 : 0)
			<< "a chunk copy was never released";
	}
	finish(&x);
	EXPECT_EQ(t->live_chunks, 0);
}

LonLat
random_lonlat(std::mt19937_64 &rng)
{
	std::uniform_real_distribution<double> u(-1.0, 1.0), lon(-180.0, 180.0);
	return LonLat{lon(rng), std::asin(u(rng)) * 180.0 / M_PI};
}

/* Uniform points, clusters with duplicates, the poles, the antimeridian, wrapped values, no-point
 * rows. */
void
fill_rows(Tree *t, std::mt19937_64 &rng, int n)
{
	std::uniform_real_distribution<double> u(0.0, 1.0);
	std::vector<LonLat> seeds;
	for (int i = 0; i < 8; i++)
		seeds.push_back(random_lonlat(rng));
	for (int i = 0; i < n; i++)
	{
		double w = u(rng);
		Row r{kRowPoint, 0, 0};
		if (w < 0.45)
		{
			LonLat p = random_lonlat(rng);
			r.x = p.lon;
			r.y = p.lat;
		}
		else if (w < 0.65)
		{
			LonLat s = seeds[i % seeds.size()];
			r.x = s.lon + (u(rng) - 0.5) * 0.01;
			r.y = std::max(-90.0, std::min(90.0, s.lat + (u(rng) - 0.5) * 0.01));
		}
		else if (w < 0.75 && !t->rows.empty())
			r = t->rows[(size_t) (u(rng) * (double) t->rows.size())]; /* a duplicate: ties */
		else if (w < 0.82)
		{
			r.x = (u(rng) < 0.5 ? -180.0 : 180.0) - (u(rng) < 0.5 ? 0.0 : (u(rng) - 0.5) * 1e-3);
			r.y = (u(rng) - 0.5) * 120.0;
		}
		else if (w < 0.89)
		{
			r.x = (u(rng) - 0.5) * 360.0;
			r.y = u(rng) < 0.3 ? 90.0 : (u(rng) < 0.5 ? -90.0 : 89.9999 * (u(rng) < 0.5 ? 1 : -1));
		}
		else if (w < 0.93)
		{
			r.x = 180.0 + u(rng) * 20.0; /* the cast wraps these */
			r.y = (u(rng) - 0.5) * 170.0;
		}
		else if (w < 0.965)
			r.kind = kRowNull;
		else
			r.kind = kRowEmpty;
		t->rows.push_back(r);
	}
}

TEST(KnnSearch, EveryRowInDistanceOrderWithoutKeys)
{
	std::mt19937_64 rng(11);
	for (int trial = 0; trial < 12; trial++)
	{
		Tree t;
		fill_rows(&t, rng, 200 + trial * 150);
		build_tree(&t, rng, 3 + trial * 29, 2 + trial * 7);
		for (int q = 0; q < 6; q++)
		{
			LonLat c = q == 0   ? LonLat{180.0, 0.0}
					   : q == 1 ? LonLat{0.0, 90.0}
					   : q == 2 ? LonLat{t.rows[q].x, t.rows[q].y}
								: random_lonlat(rng);
			if (t.rows[q].kind != kRowPoint && q == 2)
				c = LonLat{-179.9999, -89.99};
			check_search(&t, c, {}, -1, "all rows");
			check_search(&t, c, {}, 1 + q * 17, "first k");
		}
	}
}

/* The same trees on PostGIS's sphere (geography's <->) and in planar degrees (geometry's <->). */
TEST(KnnSearch, SphereAndPlanarOrdersEqualBruteForce)
{
	std::mt19937_64 rng(13);
	for (Metric m : {Metric::sphere, Metric::planar})
	{
		metric = m;
		for (int trial = 0; trial < 8; trial++)
		{
			Tree t;
			fill_rows(&t, rng, 200 + trial * 150);
			build_tree(&t, rng, 3 + trial * 29, 2 + trial * 7);
			for (int q = 0; q < 6; q++)
			{
				LonLat c = q == 0   ? LonLat{180.0, 0.0}
						   : q == 1 ? LonLat{0.0, 90.0}
						   : q == 2 ? LonLat{190.0, 10.0} /* planar: raw, a point beyond 180 */
									: random_lonlat(rng);
				check_search(&t, c, {}, -1, m == Metric::sphere ? "sphere: all" : "planar: all");
				check_search(&t, c, {}, 1 + q * 17,
							 m == Metric::sphere ? "sphere: k" : "planar: k");
				std::vector<Key> keys{Key{RegionMode::within, c, 3.0e6, false}};
				check_search(&t, c, keys, 10, "with a key");
			}
		}
	}
	metric = Metric::spheroid;
}

TEST(KnnSearch, KeysFilterExactlyAsPostgisWould)
{
	std::mt19937_64 rng(12);
	std::uniform_real_distribution<double> u(0.0, 1.0);
	for (int trial = 0; trial < 10; trial++)
	{
		Tree t;
		fill_rows(&t, rng, 1500);
		build_tree(&t, rng, 40 + trial * 30, 4 + trial * 3);
		for (int q = 0; q < 8; q++)
		{
			LonLat c = random_lonlat(rng);
			if (q == 0)
				c = LonLat{t.rows[7].x, t.rows[7].y};
			double d1 = 1e5 + u(rng) * 5e6, d2 = d1 * (1.5 + u(rng));
			/* a distance some row has exactly: the boundary is in or out as PostGIS says */
			std::vector<Hit> all = brute_force(t, c, {});
			double exact = all[all.size() / 3].dist;
			std::vector<std::vector<Key>> cases = {
				{{RegionMode::within, c, d2, false}},
				{{RegionMode::within, c, exact, q % 2 == 0}},
				{{RegionMode::outside, c, d1, false}},
				{{RegionMode::outside, c, d1, false}, {RegionMode::within, c, d2, true}},
				{{RegionMode::dist_gt, c, exact, false}},
				{{RegionMode::dist_ge, c, exact, false}},
				{{RegionMode::dist_le, c, exact, false}},
				{{RegionMode::within, random_lonlat(rng), 8e6, false}},
				{{RegionMode::within, c, 0.0, false}},
				{{RegionMode::dist_gt, c, kInf, false}},
			};
			for (const auto &keys : cases)
			{
				check_search(&t, c, keys, -1, "keys, every row");
				check_search(&t, c, keys, 10, "keys, k = 10");
			}
		}
	}
}

/*
 * order_only: the same rows in the same order of exact distance, every
 * bracket holding its row's distance, with or without keys; and a dense
 * neighbourhood returns most of its rows with no geodesic.
 */
TEST(KnnSearch, OrderOnlyKeepsTheOrderWithFewerGeodesics)
{
	std::mt19937_64 rng(17);
	order_only = true;
	for (int trial = 0; trial < 8; trial++)
	{
		Tree t;
		fill_rows(&t, rng, 300 + trial * 200);
		build_tree(&t, rng, 3 + trial * 29, 2 + trial * 7);
		for (int q = 0; q < 5; q++)
		{
			LonLat c = q == 0   ? LonLat{180.0, 0.0}
					   : q == 1 ? LonLat{0.0, 90.0}
					   : q == 2 ? LonLat{t.rows[7].x, t.rows[7].y}
								: random_lonlat(rng);
			if (t.rows[7].kind != kRowPoint && q == 2)
				c = LonLat{12.0, 41.0};
			check_search(&t, c, {}, -1, "order only: all rows");
			check_search(&t, c, {}, 1 + q * 23, "order only: first k");
			std::vector<Key> keys{Key{RegionMode::within, c, 2.0e6, false},
								  Key{RegionMode::dist_gt, c, 1.0e3, false}};
			check_search(&t, c, keys, 25, "order only: keys");
		}
	}
	/* 3,000 points within ~5 km: 100 nearest, in order, almost all bracketed */
	Tree t;
	std::uniform_real_distribution<double> u(-0.03, 0.03);
	for (int i = 0; i < 3000; i++)
		t.rows.push_back(Row{kRowPoint, 12.0 + u(rng), 41.0 + u(rng)});
	build_tree(&t, rng, 100, 40);
	check_search(&t, LonLat{12.0, 41.0}, {}, 100, "order only: dense");
	Search x;
	start(&x, &t, LonLat{12.0, 41.0}, {});
	SearchItem item;
	int bracketed = 0;
	for (int i = 0; i < 100; i++)
	{
		ASSERT_TRUE(knn_next(&x.s, kInf, &item));
		bracketed += item.kind == ItemKind::bracketed;
	}
	EXPECT_GT(bracketed, 90);
	EXPECT_LT(x.s.refined, 20u);
	finish(&x);
	order_only = false;
}

TEST(KnnSearch, LimitGathersEveryTieAndLeavesTheRest)
{
	std::mt19937_64 rng(13);
	Tree t;
	fill_rows(&t, rng, 800);
	for (int i = 0; i < 60; i++) /* one point repeated: a long run of equal distances */
		t.rows.push_back(Row{kRowPoint, 12.5, 41.25});
	build_tree(&t, rng, 20, 5);
	LonLat c{12.0, 41.0};
	std::vector<Hit> want = brute_force(t, c, {});
	Search x;
	start(&x, &t, c, {});
	size_t pos = 0;
	SearchItem first, item;
	while (knn_next(&x.s, kInf, &first))
	{
		size_t run = 1;
		while (knn_next(&x.s, first.dist, &item))
		{
			ASSERT_EQ(item.dist, first.dist);
			run++;
		}
		size_t want_run = 0;
		while (pos + want_run < want.size() && want[pos + want_run].dist == first.dist)
			want_run++;
		ASSERT_EQ(run, want_run) << "distance " << first.dist;
		pos += run;
	}
	EXPECT_EQ(pos, want.size());
	finish(&x);
}

TEST(KnnSearch, ReadsFewPagesForTheFirstRows)
{
	std::mt19937_64 rng(14);
	Tree t;
	/* uniform points: clusters far away would all sit within the bounds' 0.6 % slack */
	for (int i = 0; i < 20000; i++)
	{
		LonLat p = random_lonlat(rng);
		t.rows.push_back(Row{kRowPoint, p.lon, p.lat});
	}
	build_tree(&t, rng, 300, 100);
	Search x;
	start(&x, &t, LonLat{2.35, 48.85}, {});
	SearchItem item;
	for (int i = 0; i < 10; i++)
		ASSERT_TRUE(knn_next(&x.s, kInf, &item));
	/* 10 nearest of 20,000 read a handful of the ~70 leaves, not most of them */
	EXPECT_LT(t.visits, 12);
	EXPECT_LT(x.s.refined, 400u);
	finish(&x);
}

/*
 * Keyset paging on dense data: page 100 of 10 rows (beyond the 990th
 * distance), rings and >=, in clusters in the open, at the antimeridian and at
 * a pole, against brute force. The chunks that straddle the paging circle hold
 * hundreds of points; the chord model decides most of them without their unit
 * vectors.
 */
TEST(KnnSearch, PagingDecidesStraddlingChunksWithoutTrigonometry)
{
	std::mt19937_64 rng(18);
	std::uniform_real_distribution<double> u(-1.0, 1.0);
	const LonLat centres[] = {{12.0, 41.0}, {179.95, -10.0}, {40.0, 89.5}};
	for (const LonLat &c : centres)
	{
		Tree t;
		for (int i = 0; i < 20000; i++)
		{
			double lon = c.lon + 4.0 * u(rng), lat = std::min(90.0, c.lat + 4.0 * u(rng));
			t.rows.push_back(Row{kRowPoint, lon > 180.0 ? lon - 360.0 : lon, lat});
		}
		build_tree(&t, rng, 300, 100);
		std::vector<Hit> all = brute_force(t, c, {});
		double bound = all[989].dist;
		std::vector<Key> page100{Key{RegionMode::dist_gt, c, bound, false}};
		check_search(&t, c, page100, 10, "page 100");
		check_search(&t, c, {Key{RegionMode::dist_ge, c, all[5000].dist, false}}, 50, ">=");
		check_search(&t, c,
					 {Key{RegionMode::outside, c, bound, false},
					  Key{RegionMode::within, c, all[3000].dist, true}},
					 -1, "a ring");
		/* the points tested at once are those of the chunks the circle cuts: mostly decided */
		Search x;
		t.children_handed = 0;
		start(&x, &t, c, page100);
		SearchItem item;
		for (int i = 0; i < 10; i++)
			ASSERT_TRUE(knn_next(&x.s, kInf, &item));
		/*
		 * ~1,000 without the model, ~150 with the sphere's tests alone (the
		 * spheroid's band around the circle needs the ellipsoid's). At the
		 * pole a chunk's longitudes spread too far for a model, and the
		 * antimeridian cuts some chunks in two.
		 */
		if (c.lat < 80.0)
		{
			EXPECT_LT(x.s.vectors, 80u) << "centre " << c.lon << " " << c.lat;
		}
		/*
		 * Children are judged as they come up, not as their parent is read:
		 * the pages wholly inside the circle are still never read, and most
		 * children are never judged at all.
		 */
		EXPECT_EQ(t.outside_visits, 0) << "centre " << c.lon << " " << c.lat;
		EXPECT_GT(t.children_handed, 0);
		EXPECT_LT((long) x.s.children_judged * 3, t.children_handed)
			<< "centre " << c.lon << " " << c.lat;
		finish(&x);
	}
}

/*
 * Page 100 of sparse data, ~400 km out: the chunks its circle cuts are wide,
 * and the spheroid's band around the circle (~0.5 % of the radius each way)
 * holds a good part of their points. The ellipsoid chord model decides them
 * to within the chord bracket's width, without their unit vectors.
 */
TEST(KnnSearch, PagingFarOutDecidesTheSpheroidsBand)
{
	std::mt19937_64 rng(19);
	std::uniform_real_distribution<double> u(-1.0, 1.0);
	const LonLat c{13.4, 52.5};
	Tree t;
	for (int i = 0; i < 20000; i++)
		t.rows.push_back(Row{kRowPoint, c.lon + 12.0 * u(rng), c.lat + 8.0 * u(rng)});
	build_tree(&t, rng, 300, 100);
	std::vector<Key> page{Key{RegionMode::dist_gt, c, 400000.0, false}};
	check_search(&t, c, page, 10, "400 km out");
	Search x;
	start(&x, &t, c, page);
	SearchItem item;
	for (int i = 0; i < 10; i++)
		ASSERT_TRUE(knn_next(&x.s, kInf, &item));
	/* the sphere's tests alone leave 84 of the cut chunks' points; the bracket's width, 1 */
	EXPECT_LT(x.s.models_left, 10u);
	finish(&x);
}

TEST(KnnSearch, EmptyTree)
{
	std::mt19937_64 rng(15);
	Tree t;
	build_tree(&t, rng, 10, 4);
	Search x;
	start(&x, &t, LonLat{0, 0}, {});
	SearchItem item;
	EXPECT_FALSE(knn_next(&x.s, kInf, &item));
	EXPECT_EQ(t.visits, 1);
	finish(&x);
}

} // namespace
