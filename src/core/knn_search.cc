#include "knn_search.h"

#include "chord_batch.h"
#include "chord_model.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>

namespace geoidx
{

namespace
{

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kRadPerDeg = M_PI / 180.0;

/* Metres never more than the distance from the centre to v (the chord's bound). */
double
chord_bound(const KnnSearch *s, const Vec3 &v)
{
	return metres_lower_bound(chord2_to_angle(chord2(v, s->q)), s->use_spheroid);
}

/* A chunk's point as a frontier item of that kind and key. */
SearchItem
point_item(const ChunkEntry &e, double dist, ItemKind kind, bool in_region)
{
	SearchItem c{};
	c.dist = dist;
	c.kind = kind;
	c.row_kind = kRowPoint;
	c.in_region = in_region;
	c.payload = e.payload;
	c.row = e.row;
	c.x = e.x;
	c.y = e.y;
	return c;
}

/* A planar search's chunk: each point tested against the keys and pushed at its distance. */
void
push_planar_points(KnnSearch *s, const SearchChunk &chunk)
{
	for (int i = 0; i < chunk.n; i++)
	{
		const ChunkEntry &e = chunk.e[i];
		if (!chunk.in_region && s->keys.n > 0 &&
			!spatial_point_matches(s->keys, stored_lonlat(e.x, e.y)))
			continue;
		heap_push(&s->heap,
				  point_item(e, planar_point_distance(s->target, e.x, e.y), ItemKind::exact, true));
	}
}

/* Bracket a point's spheroid distance; false when its chord is too long for one. */
bool
bracket(const KnnSearch *s, const Vec3 &v, SearchItem *item)
{
	Bracket b;
	if (!geodesic_bracket(ecef_of(v), s->centre_ecef, &b))
		return false;
	item->dist = std::max(item->dist, b.lo);
	double gap = std::max(0.0, b.hi - item->dist);
	float f = (float) gap;
	if ((double) f < gap)
		f = std::nextafter(f, std::numeric_limits<float>::infinity());
	item->gap = f;
	item->kind = ItemKind::bracketed;
	return true;
}

/*
 * Key a point that passed the keys by its unit vector: the low end of its
 * distance's bracket, far tighter than the chord bound (which allows for the
 * spheroid's ~0.5 %), so that a point which is not among the next rows goes
 * back to the frontier without its geodesic; the chord bound where there is no
 * bracket (the sphere, chords beyond 1,000 km).
 */
void
key_point(const KnnSearch *s, SearchItem *item, const Vec3 &v)
{
	if (s->use_spheroid && bracket(s, v, item))
		return;
	item->dist = std::max(item->dist, chord_bound(s, v));
	item->kind = ItemKind::candidate;
}

/* A chunk's points' extent in stored degrees: {lon, lat} lanes. */
struct LonLatExtent
{
	double lo[2];
	double hi[2];
};

/*
 * The stored lon/lat of a chunk's points (stored_lonlat), by coordinate as the
 * batch loads them, and their extent, in one pass over {x, y} pairs: two
 * points' pairs at a time become a pair of longitudes and one of latitudes,
 * stored as such and folded into minima and maxima by coordinate (no value
 * round trips through memory), with the range tested once, on the extent
 * (v - v catches NaN and infinities; the minimum and maximum pass a NaN over
 * and leave it to that test). A point out of range (one the cast wraps, or a
 * corrupt one) is rare: then the points are mapped one by one.
 */
LonLatExtent
chunk_lonlats(const SearchChunk &chunk, ChordPoints *p)
{
	typedef double V2 __attribute__((vector_size(16)));
	static_assert(offsetof(ChunkEntry, y) == offsetof(ChunkEntry, x) + sizeof(double),
				  "an entry's x and y are a pair");
	const double inf = std::numeric_limits<double>::infinity();
	V2 lon_lo{inf, inf}, lat_lo{inf, inf}, lon_hi{-inf, -inf}, lat_hi{-inf, -inf};
	V2 finite{0.0, 0.0}; /* stays zero unless some coordinate is NaN or infinite */
	int n = chunk.n;
	for (int i = 0; i < n; i += 2)
	{
		/* two points' {x, y} pairs become a pair of longitudes and one of latitudes */
		V2 a, b;
		memcpy(&a, &chunk.e[i].x, sizeof a);
		memcpy(&b, &chunk.e[i + 1 < n ? i + 1 : i].x, sizeof b);
		V2 lon = __builtin_shufflevector(a, b, 0, 2);
		V2 lat = __builtin_shufflevector(a, b, 1, 3);
		memcpy(&p->lon[i], &lon, sizeof lon);
		memcpy(&p->lat[i], &lat, sizeof lat);
		finite += (lon - lon) + (lat - lat);
		/* minpd and maxpd: the NaN lane keeps the other operand */
		lon_lo = lon < lon_lo ? lon : lon_lo;
		lat_lo = lat < lat_lo ? lat : lat_lo;
		lon_hi = lon > lon_hi ? lon : lon_hi;
		lat_hi = lat > lat_hi ? lat : lat_hi;
	}
	V2 l{std::min(lon_lo[0], lon_lo[1]), std::min(lat_lo[0], lat_lo[1])};
	V2 h{std::max(lon_hi[0], lon_hi[1]), std::max(lat_hi[0], lat_hi[1])};
	bool ok = finite[0] == 0.0 && finite[1] == 0.0 && l[0] >= -180.0 && l[1] >= -90.0 &&
			  h[0] <= 180.0 && h[1] <= 90.0;
	if (!ok)
	{
		l = V2{inf, inf};
		h = V2{-inf, -inf};
		for (int i = 0; i < n; i++)
		{
			LonLat ll = stored_lonlat(chunk.e[i].x, chunk.e[i].y);
			p->lon[i] = ll.lon;
			p->lat[i] = ll.lat;
			l = V2{std::min(l[0], ll.lon), std::min(l[1], ll.lat)};
			h = V2{std::max(h[0], ll.lon), std::max(h[1], ll.lat)};
		}
	}
	chord_points_pad(p, n);
	return LonLatExtent{{l[0], l[1]}, {h[0], h[1]}};
}

/*
 * The chord model of a chunk's points (chord_model.h; e: the extent of their
 * stored lon/lat), false when they spread too far for it to decide much, or
 * are too few to pay for its trigonometry.
 */
bool
chunk_chord_model(const KnnSearch *s, const LonLatExtent &e, int n, ChordModel *m)
{
	if (n < 3)
		return false;
	constexpr double kMaxSpanDeg = kChordModelMaxSpan * 180.0 / M_PI;
	if (e.hi[0] - e.lo[0] > kMaxSpanDeg || e.hi[1] - e.lo[1] > kMaxSpanDeg)
		return false;
	double lon0 = 0.5 * (e.lo[0] + e.hi[0]) * kRadPerDeg;
	double lat0 = 0.5 * (e.lo[1] + e.hi[1]) * kRadPerDeg;
	/*
	 * About the grid point nearest the middle (no trigonometry) where that
	 * moves the middle by at most a quarter of the points' reach from it, so
	 * the remainder grows at most 1.25^3-fold: a chunk of the world's ~400 km
	 * pages spans ~0.02 rad; one of 5 km searches in dense data far less than
	 * the grid's step, and keeps its exact middle.
	 */
	double reach = 0.5 * ((e.hi[0] - e.lo[0]) + (e.hi[1] - e.lo[1])) * kRadPerDeg;
	double snap =
		std::fabs(chord_grid_angle(lon0) - lon0) + std::fabs(chord_grid_angle(lat0) - lat0);
	*m = 4.0 * snap <= reach ? chord_model_near(s->q, lon0, lat0) : chord_model(s->q, lon0, lat0);
	return true;
}

/*
 * A squared chord that orders the metre bounds of the points whose squared
 * chords are at least r.lo: r.lo itself, 0 where the bound might not grow with
 * the chord (which then gives no bound).
 */
double
chord_range_key(const Chord2Range &r)
{
	return (r.lo > 0.0 && r.hi < kMonotoneChord2) ? r.lo : 0.0;
}

/* The index of the nearest of kp's points. */
int
nearest_point(const SearchChunk *kp)
{
	int best = 0;
	for (int i = 1; i < kp->n; i++)
		if (kp->key[i] < kp->key[best])
			best = i;
	return best;
}

/*
 * Metres never more than the distance of point i: the chunk's bound, or the
 * bound of the shortest chord it may have (a chord is never longer than its
 * arc) when that is larger.
 */
double
point_bound(const KnnSearch *s, const SearchChunk *kp, int i)
{
	if (!(kp->key[i] > 0.0))
		return kp->floor;
	return std::max(kp->floor, metres_lower_bound(std::sqrt(kp->key[i]), s->use_spheroid));
}

/* Put kp on the frontier keyed by its nearest point. */
void
push_points_item(KnnSearch *s, SearchChunk *kp)
{
	SearchItem c{};
	c.dist = point_bound(s, kp, nearest_point(kp));
	c.kind = ItemKind::points;
	c.row_kind = kRowPoint;
	c.points = kp;
	heap_push(&s->heap, c);
}

/* The chord tests of no key: a chunk wholly in the region, whose points all pass. */
constexpr ChordKeys kNoChordKeys = {0, false, true, false, {}};

/* A whole chunk buffer the frontier is done with: the spare, or freed. */
void
recycle_chunk(KnnSearch *s, SearchChunk *c)
{
	if (s->spare == nullptr)
		s->spare = c;
	else if (s->cb.release)
		s->cb.release(s->cb.ctx, c);
}

/*
 * Put the n points that passed the keys, gathered at the front of the whole
 * chunk buffer c with their keys, on the frontier: one by one if few, else
 * as one item that keeps c. True when c was kept.
 */
bool
push_keyed_points(KnnSearch *s, SearchChunk *c, int n, double floor)
{
	c->n = n;
	c->floor = floor;
	if (n <= kSmallChunk)
	{
		for (int i = 0; i < n; i++)
			heap_push(&s->heap, point_item(c->e[i], point_bound(s, c, i), ItemKind::coarse, true));
		return false;
	}
	push_points_item(s, c);
	return true;
}

/* Hand a points item's nearest point to the frontier, and the item after it keyed by the next. */
void
advance_points(KnnSearch *s, SearchChunk *kp)
{
	int i = nearest_point(kp);
	heap_push(&s->heap, point_item(kp->e[i], point_bound(s, kp, i), ItemKind::coarse, true));
	kp->n--;
	kp->key[i] = kp->key[kp->n];
	kp->e[i] = kp->e[kp->n];
	if (kp->n > 0)
		push_points_item(s, kp);
	else
		recycle_chunk(s, kp);
}

/*
 * A point that a key keeping the near side out leaves to the exact test, with
 * the unit vector v of its stored lon/lat ll (geographic point g): pushed,
 * keyed by the larger of the chunk's bound, its latitude bound and its
 * vector's bound, if it passes.
 */
void
push_tested_point_at(KnnSearch *s, const ChunkEntry &e, LonLat ll, GeoPoint g, const Vec3 &v,
					 double chunk_bound)
{
	if (!spatial_point_matches_at(s->keys, ll, g, v))
		return;
	SearchItem c = point_item(
		e,
		std::max(chunk_bound, metres_lower_bound_dlat(ll.lat, s->center_lat_deg, s->use_spheroid)),
		ItemKind::coarse, true);
	key_point(s, &c, v);
	heap_push(&s->heap, c);
}

/*
 * A point of a chunk that the chord model did not decide (or that had none):
 * keyed by the larger of the chunk's bound and its latitude bound, and tested
 * exactly now where a key keeps the near side out.
 */
void
push_tested_point(KnnSearch *s, const ChunkEntry &e, LonLat ll, double chunk_bound, bool in_region)
{
	if (!in_region && s->keys.near_side_keys)
	{
		/* the vector the test needs also gives the point's key */
		GeoPoint g = geographic_point(ll);
		Vec3 v = unit_vector(g);
		s->vectors++;
		push_tested_point_at(s, e, ll, g, v, chunk_bound);
		return;
	}
	heap_push(&s->heap,
			  point_item(e,
						 std::max(chunk_bound, metres_lower_bound_dlat(ll.lat, s->center_lat_deg,
																	   s->use_spheroid)),
						 ItemKind::coarse, in_region));
}

/*
 * The points of a chunk too spread for a chord model (near a pole its
 * longitudes fan out) under a key that keeps the near side out: each is
 * tested now anyway, and its unit vector's squared chord decides it as a
 * model's range would (chord_keys_match), so that the points that pass wait
 * as one item keyed by their chords and those dropped cost nothing more; only
 * those in the spheroid's band between the chord tests take the exact test
 * one by one. As push_chunk_points, true when the whole buffer chunk is kept.
 */
bool
push_vector_points(KnnSearch *s, SearchChunk *chunk, const ChordPoints &pts, double chunk_bound)
{
	int passed = 0;
	for (int i = 0; i < chunk->n; i++)
	{
		LonLat ll{pts.lon[i], pts.lat[i]};
		GeoPoint g = geographic_point(ll);
		Vec3 v = unit_vector(g);
		s->vectors++;
		double c2 = chord2(v, s->q);
		int verdict = chord_keys_match(s->chord_keys, ll.lat, c2, c2);
		if (verdict == 1)
		{
			chunk->key[passed] = chord_range_key(Chord2Range{c2, c2});
			chunk->e[passed++] = chunk->e[i];
		}
		else if (verdict < 0)
			push_tested_point_at(s, chunk->e[i], ll, g, v, chunk_bound);
	}
	return push_keyed_points(s, chunk, passed, chunk_bound);
}

/*
 * Push the points of a chunk, a whole buffer: true when it was kept, as the
 * item of the points its model passed. The chunk's chord model keys each by
 * its chord range, without the point's unit vector, and decides most of them
 * against the keys: those it rejects are dropped, those it accepts (every
 * point of a chunk wholly in the region) wait, gathered in place, as one item
 * that hands its points over nearest first, and only the points near a key's
 * circle go on one by one, keyed by the larger of the chunk's bound and their
 * latitude bound. A key that keeps the near side out (paging beyond a
 * distance, a ring's hole) rejects exactly the points that would surface
 * first: those are tested now, and a chunk too spread for a model is decided
 * by its points' vectors (push_vector_points). Otherwise, without the model
 * (a chunk too spread or too small, keys it cannot test), every point goes on
 * one by one.
 */
bool
push_chunk_points(KnnSearch *s, SearchChunk *chunk, double chunk_bound)
{
	if (s->planar)
	{
		push_planar_points(s, *chunk);
		return false;
	}
	ChordPoints pts;
	LonLatExtent extent = chunk_lonlats(*chunk, &pts);
	const ChordKeys &ck = chunk->in_region ? kNoChordKeys : s->chord_keys;
	ChordModel model;
	/* keys it cannot test (around another centre) would leave every point undecided */
	bool modelled =
		(ck.n > 0 || ck.never || ck.complete) && chunk_chord_model(s, extent, chunk->n, &model);
	if (!modelled && !chunk->in_region && s->keys.near_side_keys)
		return push_vector_points(s, chunk, pts, chunk_bound);
	if (!modelled)
	{
		for (int i = 0; i < chunk->n; i++)
			push_tested_point(s, chunk->e[i], LonLat{pts.lon[i], pts.lat[i]}, chunk_bound,
							  chunk->in_region);
		return false;
	}
	static_assert(kSearchChunk <= kChordBatchMax, "a chunk is decided in one batch");
	ChordBatch batch;
	chord_model_match_batch(ck, model, pts, chunk->n, &batch);
	ChordModel ellipsoid;
	bool have_ellipsoid = false;
	uint64_t undecided = 0;
	int passed = 0;
	/* in the chunk's order, as the frontier breaks its ties by arrival */
	for (uint32_t todo = batch.accept | batch.undecided; todo != 0; todo &= todo - 1)
	{
		int i = __builtin_ctz(todo);
		Chord2Range r{batch.lo[i], batch.hi[i]};
		int v = (batch.accept >> i) & 1u ? 1 : -1;
		if (v < 0 && ck.ellipsoid)
		{
			/* the band between the sphere's tests: the chord bracket's tests, on the model */
			if (!have_ellipsoid)
			{
				ellipsoid = ellipsoid_chord_model(s->centre_ecef_over_a, model);
				have_ellipsoid = true;
			}
			Chord2Range er = chord_model_range(ellipsoid, pts.lon[i] * (M_PI / 180.0),
											   pts.lat[i] * (M_PI / 180.0));
			v = chord_keys_match_ellipsoid(ck, pts.lat[i], r, er);
		}
		undecided += v < 0;
		if (v == 0)
			continue;
		if (v == 1)
		{
			chunk->key[passed] = chord_range_key(r);
			chunk->e[passed++] = chunk->e[i];
			continue;
		}
		push_tested_point(s, chunk->e[i], LonLat{pts.lon[i], pts.lat[i]}, chunk_bound, false);
	}
	s->models_left += undecided;
	return push_keyed_points(s, chunk, passed, chunk_bound);
}

/*
 * Whether an item on top of the frontier is the next answer as it is: an
 * exact one that nothing left comes before, or a bracketed one (order_only)
 * whose bracket ends before anything left can begin, within limit.
 */
bool
settled(const KnnSearch *s, const SearchItem &item, double limit)
{
	if (item.kind == ItemKind::exact)
	{
		const SearchItem *top = heap_min(&s->heap);
		return top == nullptr || !(*top < item);
	}
	if (item.kind != ItemKind::bracketed || !s->order_only)
		return false;
	double hi = item.dist + (double) item.gap;
	const SearchItem *top = heap_min(&s->heap);
	return !(hi > limit) && (top == nullptr || top->dist >= hi);
}

/*
 * Refine a point item one step: coarse -> tested against the keys and keyed
 * (bracketed, or a candidate keyed by the chord bound) -> exact distance.
 * False when the point fails a key (it is dropped).
 */
bool
refine_step(KnnSearch *s, SearchItem *item)
{
	LonLat ll = stored_lonlat(item->x, item->y);
	GeoPoint g = geographic_point(ll);
	if (item->kind == ItemKind::coarse)
	{
		/* one unit vector for both the keys and the key */
		Vec3 v = unit_vector(g);
		s->vectors++;
		if (!item->in_region && !spatial_point_matches_at(s->keys, ll, g, v))
			return false;
		key_point(s, item, v);
		return true;
	}
	/* point first, as ORDER BY col <~> centre computes it (distance_memo.cc) */
	item->dist =
		s->use_spheroid ? st_distance(g, s->center, true) : sphere_knn_distance(g, s->center);
	item->kind = ItemKind::exact;
	s->refined++;
	return true;
}

/*
 * Refine a coarse or candidate point while nothing on the frontier comes
 * before it, up to bracketed or exact. False when it fails a key.
 */
bool
refine(KnnSearch *s, SearchItem *item)
{
	while (item->kind == ItemKind::coarse || item->kind == ItemKind::candidate)
	{
		if (!refine_step(s, item))
			return false;
		const SearchItem *top = heap_min(&s->heap);
		if (top != nullptr && *top < *item)
			break;
	}
	return true;
}

} // namespace

/* Start a search around centre with the given keys and callbacks. */
void
knn_init(KnnSearch *s, const KnnCallbacks &cb, const SpatialKeys &keys, LonLat centre)
{
	heap_init(&s->heap, cb.grow, cb.ctx);
	s->cb = cb;
	s->keys = keys;
	s->center = geographic_point(centre);
	s->q = unit_vector(s->center);
	s->center_lat_deg = s->center.lat * (180.0 / M_PI);
	s->refined = 0;
	s->vectors = 0;
	s->children_judged = 0;
	s->models_left = 0;
	s->use_spheroid = true;
	s->order_only = false;
	s->centre_ecef = ecef_of(s->q);
	s->chord_keys = chord_keys(keys, s->q);
	s->centre_ecef_over_a =
		Ecef{s->centre_ecef.x / kWgs84A, s->centre_ecef.y / kWgs84A, s->centre_ecef.z / kWgs84A};
	s->spare = nullptr;
	s->planar = false;
	s->target = PlanarTarget{0.0, 0.0, 0.0, 0.0, true};
}

void
knn_init_planar(KnnSearch *s, const KnnCallbacks &cb, const SpatialKeys &keys,
				const PlanarTarget &target)
{
	knn_init(s, cb, keys, LonLat{0.0, 0.0});
	s->planar = true;
	s->target = target;
}

/* Put the root page on the frontier. */
void
knn_push_root(KnnSearch *s, uint32_t blk)
{
	SearchItem root{};
	root.dist = 0.0;
	root.kind = ItemKind::page;
	root.row_kind = kRowPoint;
	root.level = kAnyLevel;
	root.blk = blk;
	root.parent_lsn = 0;
	heap_push(&s->heap, root);
}

/* Return the lower bound of the distance to anything in box. */
double
knn_box_bound(const KnnSearch *s, const Box3 &box)
{
	if (box_is_empty(box))
		return kInf;
	if (s->planar)
		return planar_box_bound(s->target, box);
	return metres_lower_bound(chord2_to_angle(min_chord2(box, s->q)), s->use_spheroid);
}

/*
 * The children of one internal page not yet on the frontier. A child is kept
 * by its raw key: the squared chord to its box (whose metre bound grows with
 * it), or the planar bound itself; only the nearest is turned into metres.
 * The keys are an array of their own, which the search for the nearest reads
 * two at a time.
 */
struct ChildRef
{
	uint32_t blk;
	uint32_t box; /* its box in ChildPages::boxes, when it is judged as it comes up */
};

struct ChildPages
{
	int n;
	int next; /* the nearest of c */
	int16_t level;
	bool in_region; /* the parent lies wholly in the keys' region: no child is judged */
	uint64_t parent_lsn;
	double *raw; /* n raw keys, in the same allocation, unordered */
	ChildRef *c; /* their children, in the same allocation and order */
	Box3 *boxes; /* the children's boxes, in the same allocation, when judged late; else null */
};

namespace
{

double
raw_box_key(const KnnSearch *s, const Box3 &box)
{
	/* a page of NULL and EMPTY rows only has an empty box: visited after every point */
	if (box_is_empty(box))
		return kInf;
	return s->planar ? planar_box_bound(s->target, box) : min_chord2(box, s->q);
}

double
raw_to_bound(const KnnSearch *s, double raw)
{
	if (s->planar || raw == kInf)
		return raw;
	return metres_lower_bound(chord2_to_angle(raw), s->use_spheroid);
}

} // namespace

double
knn_raw_box_key(const KnnSearch *s, const Box3 &box)
{
	return raw_box_key(s, box);
}

void
knn_push_rest(KnnSearch *s, uint32_t blk, void *rest, double raw_key, const SearchItem &page)
{
	SearchItem r{};
	r.dist = std::max(page.dist, raw_to_bound(s, raw_key));
	r.kind = ItemKind::leaf_rest;
	r.row_kind = kRowPoint;
	r.level = 0;
	r.blk = blk;
	r.rest = rest;
	heap_push(&s->heap, r);
}

namespace
{

void
push_child(KnnSearch *s, const ChildPages &c, double raw, const ChildRef &r)
{
	SearchItem p{};
	p.dist = raw_to_bound(s, raw);
	p.kind = ItemKind::page;
	p.row_kind = kRowPoint;
	p.level = c.level;
	p.blk = r.blk;
	p.parent_lsn = c.parent_lsn;
	heap_push(&s->heap, p);
}

/*
 * The index of c's nearest child: the first whose key is the least (a NaN
 * key is never the least, and a NaN first key is the least). Most children of
 * a page never surface, so they are not kept in order: a scan finds the next
 * when one leaves (a heap's sifts cost more than the scans of the few
 * children a search takes from a page). The least key comes from two chains
 * of minima, two lanes each, that start at the first key (minpd: a NaN never
 * replaces one), and then its first index, where a scan that kept the index
 * beside the minimum was one chain of dependent blends.
 */
int
nearest_child(const ChildPages *c)
{
	typedef double V2 __attribute__((vector_size(16)));
	const double *raw = c->raw;
	int n = c->n;
	V2 a = {raw[0], raw[0]}, b = a;
	int i = 0;
	for (; i + 4 <= n; i += 4)
	{
		V2 x, y;
		memcpy(&x, &raw[i], sizeof x);
		memcpy(&y, &raw[i + 2], sizeof y);
		a = x < a ? x : a;
		b = y < b ? y : b;
	}
	a = b < a ? b : a;
	double least = a[1] < a[0] ? a[1] : a[0];
	for (; i < n; i++)
		least = raw[i] < least ? raw[i] : least;
	for (int j = 0; j < n; j++)
		if (raw[j] == least)
			return j;
	return 0; /* the first key is NaN */
}

/* A child judged as it comes up: a page wholly outside the keys' region is not read. */
bool
child_outside(KnnSearch *s, const Box3 &box)
{
	s->children_judged++;
	return spatial_classify(s->keys, box) == Verdict::outside;
}

/*
 * Put c's nearest child on the frontier, and c after it keyed by the next
 * nearest; c is released when it is empty. Past the monotone range the rest
 * go on the frontier one by one, as does the next of a child judged outside.
 */
void
advance_children(KnnSearch *s, ChildPages *c)
{
	while (c->n > 0)
	{
		ChildRef r = c->c[c->next];
		double r_raw = c->raw[c->next];
		c->n--;
		c->c[c->next] = c->c[c->n];
		c->raw[c->next] = c->raw[c->n];
		bool dropped = c->boxes != nullptr && child_outside(s, c->boxes[r.box]);
		if (!dropped)
			push_child(s, *c, r_raw, r);
		if (c->n == 0)
			break;
		c->next = nearest_child(c);
		if (dropped)
			continue;
		double raw = c->raw[c->next];
		if (s->planar || raw == kInf || raw < kMonotoneChord2)
		{
			SearchItem b{};
			b.dist = raw_to_bound(s, raw);
			b.kind = ItemKind::children;
			b.row_kind = kRowPoint;
			b.children = c;
			heap_push(&s->heap, b);
			return;
		}
	}
	if (s->cb.release)
		s->cb.release(s->cb.ctx, c);
}

} // namespace

ChildPages *
knn_begin_children(KnnSearch *s, int max_children, int16_t level, uint64_t parent_lsn,
				   bool in_region)
{
	static_assert(alignof(Box3) <= alignof(double) && alignof(ChildRef) <= alignof(double),
				  "the keys, boxes and refs follow each other unpadded");
	size_t head = (sizeof(ChildPages) + alignof(double) - 1) / alignof(double) * alignof(double);
	size_t cap = (size_t) std::max(max_children, 1);
	bool late = !in_region && s->keys.near_side_keys;
	ChildPages *c =
		(ChildPages *) s->cb.alloc(s->cb.ctx, head + (sizeof(double) + sizeof(ChildRef)) * cap +
												  (late ? sizeof(Box3) * cap : 0));
	c->n = 0;
	c->next = 0;
	c->level = level;
	c->in_region = in_region;
	c->parent_lsn = parent_lsn;
	c->raw = (double *) ((char *) c + head);
	c->boxes = late ? (Box3 *) (c->raw + cap) : nullptr;
	c->c = (ChildRef *) (late ? (char *) (c->boxes + cap) : (char *) (c->raw + cap));
	return c;
}

/*
 * A key that keeps the near side out (a keyset page beyond ~400 km) is
 * outside only of the few children wholly within its circle, and those are
 * the nearest: judging every child as it arrives (~450 boxes a page 100) cost
 * more than judging the dozen that come up.
 */
void
knn_add_child(KnnSearch *s, ChildPages *c, const Box3 &box, uint32_t blk)
{
	if (c->boxes != nullptr)
	{
		c->boxes[c->n] = box;
		c->raw[c->n] = raw_box_key(s, box);
		c->c[c->n] = ChildRef{blk, (uint32_t) c->n};
		c->n++;
		return;
	}
	if (!c->in_region && child_outside(s, box))
		return;
	c->raw[c->n] = raw_box_key(s, box);
	c->c[c->n++] = ChildRef{blk, 0};
}

void
knn_end_children(KnnSearch *s, ChildPages *c)
{
	if (c->n == 0)
	{
		if (s->cb.release)
			s->cb.release(s->cb.ctx, c);
		return;
	}
	c->next = nearest_child(c);
	/* the nearest goes on the frontier at once: it is usually the next page read */
	advance_children(s, c);
}

void
knn_release_item(KnnSearch *s, const SearchItem &item)
{
	if (s->cb.release == nullptr)
		return;
	if (item.kind == ItemKind::chunk)
		s->cb.release(s->cb.ctx, item.chunk);
	else if (item.kind == ItemKind::children)
		s->cb.release(s->cb.ctx, item.children);
	else if (item.kind == ItemKind::points)
		s->cb.release(s->cb.ctx, item.points);
	else if (item.kind == ItemKind::leaf_rest)
		s->cb.release(s->cb.ctx, item.rest);
}

void
knn_finish(KnnSearch *s)
{
	heap_settle(&s->heap);
	for (size_t i = 0; i < s->heap.size; i++)
		knn_release_item(s, s->heap.items[i]);
	if (s->spare != nullptr && s->cb.release)
		s->cb.release(s->cb.ctx, s->spare);
	s->spare = nullptr;
}

uint32_t
knn_page_ahead(const KnnSearch *s)
{
	const SearchItem *top = heap_min(&s->heap);
	if (top == nullptr)
		return kNoPageAhead;
	if (top->kind == ItemKind::page)
		return top->blk;
	if (top->kind == ItemKind::children && top->children->n > 0)
		return top->children->c[top->children->next].blk;
	return kNoPageAhead;
}

/* Put the right sibling of a page that split under the scan on the frontier. */
void
knn_push_right(KnnSearch *s, const SearchItem &page, uint32_t rightlink, int16_t level)
{
	/* the sibling holds part of what the parent's entry covered: the same bound holds */
	SearchItem r = page;
	r.blk = rightlink;
	r.level = level;
	heap_push(&s->heap, r);
}

/* Take a chunk buffer: the spare one, else a new one. */
SearchChunk *
knn_chunk_buffer(KnnSearch *s)
{
	SearchChunk *c = s->spare;
	s->spare = nullptr;
	if (c == nullptr)
		c = (SearchChunk *) s->cb.alloc(s->cb.ctx, sizeof(SearchChunk));
	return c;
}

namespace
{

/* A chunk item of n entries keeps the whole buffer it was filled in, else a copy of its size. */
bool
keeps_whole_buffer(int n)
{
	return n > kSearchChunk / 2;
}

} // namespace

/* Put a leaf chunk's matching entries on the frontier (small chunks as points). */
void
knn_add_chunk(KnnSearch *s, SearchChunk *chunk, const Box3 &chunk_box, const SearchItem &page)
{
	if (chunk->n == 0)
	{
		recycle_chunk(s, chunk);
		return;
	}
	/*
	 * A chunk a near-side key's circle cuts lies partly in its hole, nearer
	 * than any answer: it would surface before the first one anyway. Its
	 * points are keyed by their chords (or their exact test), which reach
	 * beyond the hole, so the page's bound is floor enough for them: the
	 * box's (an arcsine) is not computed.
	 */
	if (!chunk->in_region && s->keys.near_side_keys)
	{
		if (!push_chunk_points(s, chunk, page.dist))
			recycle_chunk(s, chunk);
		return;
	}
	double bound =
		box_is_empty(chunk_box) ? page.dist : std::max(page.dist, knn_box_bound(s, chunk_box));
	if (chunk->n <= kSmallChunk)
	{
		if (!push_chunk_points(s, chunk, bound))
			recycle_chunk(s, chunk);
		return;
	}
	/* a chunk a filter thinned waits in a copy of its size, not in a whole buffer */
	SearchChunk *kept = chunk;
	if (!keeps_whole_buffer(chunk->n))
	{
		size_t bytes = offsetof(SearchChunk, e) + sizeof(ChunkEntry) * (size_t) chunk->n;
		kept = (SearchChunk *) s->cb.alloc(s->cb.ctx, bytes);
		memcpy(kept, chunk, bytes);
		recycle_chunk(s, chunk);
	}
	SearchItem c{};
	c.dist = bound;
	c.kind = ItemKind::chunk;
	c.row_kind = kRowPoint;
	c.chunk = kept;
	heap_push(&s->heap, c);
}

/* Put a row with no point on the frontier, after every point. */
void
knn_push_last(KnnSearch *s, uint64_t row, const void *payload, uint8_t row_kind)
{
	knn_push_bound(s, row, payload, row_kind, kInf, false);
}

namespace
{

/* An exact item: a row at its distance (or a bound of it) with its verdict. */
void
push_row(KnnSearch *s, uint64_t row, const void *payload, uint8_t row_kind, double dist,
		 bool in_region, double x, double y)
{
	SearchItem c{};
	c.dist = dist;
	c.kind = ItemKind::exact;
	c.row_kind = row_kind;
	c.in_region = in_region;
	c.payload = payload;
	c.row = row;
	c.x = x;
	c.y = y;
	heap_push(&s->heap, c);
}

} // namespace

void
knn_push_bound(KnnSearch *s, uint64_t row, const void *payload, uint8_t row_kind, double bound,
			   bool in_region)
{
	push_row(s, row, payload, row_kind, bound, in_region, 0.0, 0.0);
}

void
knn_push_point(KnnSearch *s, uint64_t row, const void *payload, double x, double y, double dist,
			   bool in_region)
{
	push_row(s, row, payload, kRowPoint, dist, in_region, x, y);
}

namespace
{

/* Expand a page, children or chunk item taken off the frontier. */
void
expand(KnnSearch *s, const SearchItem &item)
{
	switch (item.kind)
	{
		case ItemKind::page:
			s->cb.visit_page(s->cb.ctx, s, item);
			break;
		case ItemKind::children:
			advance_children(s, item.children);
			break;
		case ItemKind::chunk:
		{
			SearchChunk *c = item.chunk;
			if (!keeps_whole_buffer(c->n))
			{
				/* a copy of its size has no room for keys: its points gather in a whole buffer */
				SearchChunk *whole = knn_chunk_buffer(s);
				memcpy(whole, c, offsetof(SearchChunk, e) + sizeof(ChunkEntry) * (size_t) c->n);
				if (s->cb.release)
					s->cb.release(s->cb.ctx, c);
				c = whole;
			}
			if (!push_chunk_points(s, c, item.dist))
				recycle_chunk(s, c);
			break;
		}
		case ItemKind::points:
			advance_points(s, item.points);
			break;
		case ItemKind::leaf_rest:
			s->cb.visit_rest(s->cb.ctx, s, item);
			if (s->cb.release)
				s->cb.release(s->cb.ctx, item.rest);
			break;
		default:
			break;
	}
}

/*
 * A bracketed item taken off the frontier and not the next answer yet. When
 * something comes before it, it goes back as it is (the caller pushes it);
 * else its distance is computed, unless (order_only) the item whose key
 * falls inside its bracket is only a bound (a page, a chunk, a point not
 * bracketed yet): sharpening that is cheaper than a geodesic, so it is
 * expanded or refined one step and the bracket tried again. Against an exact
 * or a bracketed point, or a limit inside the bracket, the geodesic decides.
 */
void
settle_bracketed(KnnSearch *s, SearchItem *item, double limit)
{
	while (item->kind == ItemKind::bracketed && !settled(s, *item, limit))
	{
		/* something comes first: the item goes back to the frontier as it is */
		const SearchItem *top = heap_min(&s->heap);
		if (top != nullptr && *top < *item)
			return;
		/* order_only cleared, or a limit inside the bracket: only the distance can tell */
		if (!s->order_only || top == nullptr || item->dist + (double) item->gap > limit)
		{
			(void) refine_step(s, item);
			return;
		}
		if (top->kind == ItemKind::exact || top->kind == ItemKind::bracketed)
		{
			(void) refine_step(s, item);
			return;
		}
		SearchItem next = heap_take(&s->heap);
		if (next.kind == ItemKind::coarse || next.kind == ItemKind::candidate)
		{
			if (refine_step(s, &next))
				heap_push(&s->heap, next);
		}
		else
			expand(s, next);
	}
}

} // namespace

/* Return the next row in distance order within limit, refining lazily. */
bool
knn_next(KnnSearch *s, double limit, SearchItem *out)
{
	for (const SearchItem *top; (top = heap_min(&s->heap)) != nullptr && !(top->dist > limit);)
	{
		SearchItem item = heap_take(&s->heap);
		switch (item.kind)
		{
			case ItemKind::page:
			case ItemKind::children:
			case ItemKind::chunk:
			case ItemKind::points:
			case ItemKind::leaf_rest:
				expand(s, item);
				continue;
			case ItemKind::coarse:
			case ItemKind::candidate:
			case ItemKind::bracketed:
				if (!refine(s, &item))
					continue;
				if (item.kind == ItemKind::bracketed)
					settle_bracketed(s, &item, limit);
				if (!settled(s, item, limit))
				{
					heap_push(&s->heap, item);
					continue;
				}
				/* nothing left can come before it: no round trip through the heap */
				break;
			case ItemKind::exact:
				break;
		}
		if (item.dist > limit)
		{
			heap_push(&s->heap, item);
			return false;
		}
		*out = item;
		return true;
	}
	return false;
}

} // namespace geoidx
