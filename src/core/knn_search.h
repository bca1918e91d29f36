/*
 * Best-first nearest-neighbour search over a geoidx tree, with no PostgreSQL
 * in it: the glue reads pages through a callback, as MinHeap takes its
 * allocator, and the search decides everything else.
 *
 * One min-heap (the frontier) holds nine kinds of item, each keyed by a
 * provable lower bound of the distance to the ORDER BY centre:
 *
 *   children   the children of an internal page that are not on the frontier
 *              yet, keyed by the nearest of them: each child leaves it for
 *              the frontier when its turn comes, so an internal page of 150
 *              children costs one frontier item and a handful of metre
 *              bounds, not 150 of each (the others are compared as chords)
 *   page       a page not read yet: the bound of its parent's box for it
 *   chunk      up to kSearchChunk entries of a leaf that passed the filters,
 *              copied out of the page, keyed by the chunk box's bound
 *   leaf_rest  chunks of a leaf the glue left on the page (the glue's record
 *              of them), keyed by the nearest of their boxes: a keyset page's
 *              leaves straddle its bound, and the chunks wholly beyond it
 *              seldom surface, so they are copied only if they do
 *   coarse     a point keyed by the larger of its chunk's bound and its
 *              latitude bound (no trigonometry), not yet tested against the keys;
 *              or one that passed them by its chunk's chord model, keyed by its chord
 *   points     the points of a chunk that its chord model passed, each with
 *              its chord's key, keyed by the nearest: one frontier item for a
 *              chunk beyond a keyset page's bound, where most never surface
 *   bracketed  a point that passed the keys, keyed by the low end of its spheroid
 *              distance's bracket (geodesic_bracket.h), the high end beside it
 *   candidate  the same without a bracket (the sphere, chords beyond 1,000 km),
 *              keyed by its chord's bound
 *   exact      a point keyed by its exact ST_Distance (rounded as PostGIS
 *              rounds it), or a row with no point (NULL, EMPTY) at +Infinity
 *
 * A point item is refined one step when it reaches the top (lazy refinement),
 * so the spheroid distance is computed only for the points at the frontier of
 * the search, and an exact item on top is the next answer: nothing left in the
 * heap can be nearer. Ties of distance put exact items first, so a tie never
 * costs a page read.
 *
 * When the caller needs the rows in order but not their distances
 * (order_only), a bracketed item on top whose high end is no more than the
 * next item's key is the next answer as it is: the geodesic is computed only
 * for a point whose bracket overlaps what follows it, so a search returns most
 * rows with no geodesic at all.
 *
 * A search on the sphere (use_spheroid false: geography's <->) bounds and
 * measures metres on PostGIS's sphere instead of the spheroid.
 *
 * A planar search (ORDER BY geometry <-> g, degrees) keys pages and chunks by
 * planar_box_bound and pushes each point at its planar distance at once: no
 * lazy refinement, the distance is a subtraction and a square root.
 *
 * Memory: the heap and the chunk copies come from the caller's allocator, and
 * the search has no destructor, so the glue may ereport out of a callback.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "geodesic_bracket.h"
#include "min_heap.h"
#include "pg_free.h"
#include "planar_distance.h"
#include "search_keys.h"

namespace geoidx
{

/* The entries of a leaf chunk (what a chunk box covers); the glue's GEOIDX_CHUNK. */
constexpr int kSearchChunk = 32;

/* Chunks with at most this many matching entries push their points at once. */
constexpr int kSmallChunk = 4;

enum class ItemKind : uint8_t
{
	exact = 0,
	bracketed = 1,
	candidate = 2,
	coarse = 3,
	points = 4,
	chunk = 5,
	leaf_rest = 6,
	page = 7,
	children = 8,
};

/* The level a page must be on, when the link to it does not say (the root). */
constexpr int16_t kAnyLevel = -1;

/* Kind of row an item refers to: a point, or (any other value, the glue's) a row with no point. */
constexpr uint8_t kRowPoint = 0;

struct SearchChunk;
struct ChildPages;

struct SearchItem
{
	double dist;
	ItemKind kind;
	uint8_t row_kind; /* kRowPoint, or the glue's kind of a row with no point */
	bool in_region;   /* a point already known to satisfy every key */
	int16_t level;    /* of a page: the level its link expects */
	uint32_t blk;     /* of a page */
	float gap;        /* of a bracketed point: its bracket's high end less dist, rounded up */
	union
	{
		uint64_t parent_lsn; /* a page: its parent's LSN when the link was read */
		const void *payload; /* a row: the glue's copy of its other columns, or null */
		SearchChunk *chunk;  /* a chunk */
		ChildPages *children;
		SearchChunk *points; /* a points item: a chunk buffer holding what its model passed */
		void *rest;          /* a leaf_rest: the glue's record of the chunks it left */
	};
	uint64_t row; /* a row: the glue's reference to it (a heap TID) */
	double x;     /* a point: the stored coordinates */
	double y;

	bool
	operator<(const SearchItem &o) const
	{
		return dist < o.dist || (dist == o.dist && kind < o.kind);
	}
};

struct ChunkEntry
{
	uint64_t row;
	const void *payload;
	double x;
	double y;
};

/*
 * A chunk's entries, and (knn_search.cc) the buffer that the points its chord
 * model passes are gathered into, in place, with their keys: a points item.
 * A chunk kept whole in a smaller copy ends at e[n].
 */
struct SearchChunk
{
	int n;
	bool in_region; /* the chunk's box lies in every key's region */
	ChunkEntry e[kSearchChunk];
	double floor;             /* a points item: the chunk's bound */
	double key[kSearchChunk]; /* a points item: chord_range_key; metres for the nearest only */
};

struct KnnSearch;

/*
 * The glue's side. visit_page reads the page of item (a page item just popped)
 * and hands its contents back with knn_begin_children / knn_push_right /
 * knn_add_chunk / knn_push_last; it may raise an error (longjmp) at any time.
 */
struct KnnCallbacks
{
	void (*visit_page)(void *ctx, KnnSearch *s, const SearchItem &page);
	/* read the chunks a leaf_rest item (just popped) left on its page; may be null if none is
	 * pushed */
	void (*visit_rest)(void *ctx, KnnSearch *s, const SearchItem &rest);
	SearchItem *(*grow)(void *ctx, SearchItem *old, size_t new_capacity);
	void *(*alloc)(void *ctx, size_t bytes);
	void (*release)(void *ctx, void *p);
	void *ctx;
};

struct KnnSearch
{
	MinHeap<SearchItem> heap;
	KnnCallbacks cb;
	SpatialKeys keys;
	GeoPoint center; /* ORDER BY point, radians as PostGIS has it */
	Vec3 q;          /* its unit vector */
	double center_lat_deg;
	uint64_t refined; /* exact distances computed: what EXPLAIN-level tests can count */
	uint64_t vectors; /* points' unit vectors computed (their trigonometry), for the tests */
	uint64_t children_judged; /* child boxes classified against the keys, for the tests */
	uint64_t models_left;     /* points of modelled chunks left to the exact test, for the tests */
	bool use_spheroid; /* metres on WGS84 (<~>), else geography's <-> (sphere_knn_distance) */
	/*
	 * The caller reads the rows' order, not their distances: a point may come
	 * back bracketed (dist a lower bound of its distance). Off by default; the
	 * caller may clear it between calls. It takes effect with use_spheroid only.
	 */
	bool order_only;
	Ecef centre_ecef;
	Ecef centre_ecef_over_a; /* for the ellipsoid chord model */
	ChordKeys chord_keys;    /* the keys' chord tests around the centre, for the chord model */
	SearchChunk *spare;      /* a whole chunk buffer done with, for the next leaf chunk */
	bool planar;             /* ordered by the planar distance to target, not by metres */
	PlanarTarget target;     /* of a planar search */
};

/* Start a search for the points nearest centre (degrees, as the cast leaves them). */
void knn_init(KnnSearch *s, const KnnCallbacks &cb, const SpatialKeys &keys, LonLat centre);

/* Start a search for the points nearest g in planar degrees (geometry's <->). */
void knn_init_planar(KnnSearch *s, const KnnCallbacks &cb, const SpatialKeys &keys,
					 const PlanarTarget &target);

/* Put the root page (block blk, level unknown) on the frontier. */
void knn_push_root(KnnSearch *s, uint32_t blk);

/* The bound of everything below box; an empty box (NULL and EMPTY rows only) is +Infinity. */
double knn_box_bound(const KnnSearch *s, const Box3 &box);

/*
 * Hand over the children of an internal page (at most max_children, each on
 * the given level, read at parent_lsn): begin, one add per child, end. The
 * frontier receives them lazily, each keyed by the bound of its box. Every
 * child is handed over; the search drops those wholly outside the keys' region
 * (none when in_region: the page itself lies wholly in it). With a key that
 * keeps the near side out, a child is judged only when it comes up: most never
 * do, and those that do are the nearest, wholly inside the near side.
 */
ChildPages *knn_begin_children(KnnSearch *s, int max_children, int16_t level, uint64_t parent_lsn,
							   bool in_region);
void knn_add_child(KnnSearch *s, ChildPages *c, const Box3 &box, uint32_t blk);
void knn_end_children(KnnSearch *s, ChildPages *c);

/* Free what a frontier item owns (a chunk copy, children), for a search dropped midway. */
void knn_release_item(KnnSearch *s, const SearchItem &item);

/* Free everything the search owns but its heap array: the items' memory and the spare chunk. */
void knn_finish(KnnSearch *s);

/* No page ahead (knn_page_ahead). */
constexpr uint32_t kNoPageAhead = 0xFFFFFFFFu;

/*
 * The page the frontier reads next if nothing nearer turns up first: the top
 * item's, or the nearest unread child of the top item's internal page;
 * kNoPageAhead when the top is neither. A hint for the glue to ask the CPU for
 * that page while the current one is worked on.
 */
uint32_t knn_page_ahead(const KnnSearch *s);

/* Put the right sibling of a page that split under us on the frontier, with the page's bound. */
void knn_push_right(KnnSearch *s, const SearchItem &page, uint32_t rightlink, int16_t level);

/*
 * A buffer for the entries of one leaf chunk, for the glue to fill straight
 * from the page and hand back to knn_add_chunk: the frontier keeps it as the
 * chunk's item, so a chunk is copied out of the page once.
 */
SearchChunk *knn_chunk_buffer(KnnSearch *s);

/*
 * Hand over the entries of one chunk of a leaf that passed the filters, in a
 * knn_chunk_buffer (the search owns it again): chunk_box is the chunk's box,
 * page the page item being visited (its bound holds for the chunk too). Small
 * chunks push their points at once, others wait on the frontier.
 */
void knn_add_chunk(KnnSearch *s, SearchChunk *chunk, const Box3 &chunk_box, const SearchItem &page);

/*
 * The raw key of a box (a squared chord, or the planar bound): it orders
 * boxes as their bounds do, with no trigonometry. +Infinity for an empty box.
 */
double knn_raw_box_key(const KnnSearch *s, const Box3 &box);

/*
 * Leave chunks of leaf blk on the page: rest is the glue's record of them
 * (from the search's allocator, released with the item), raw_key the least
 * knn_raw_box_key of their boxes, page the leaf's own item. When the item
 * surfaces, visit_rest reads them.
 */
void knn_push_rest(KnnSearch *s, uint32_t blk, void *rest, double raw_key, const SearchItem &page);

/* A row with no point (row_kind != kRowPoint): it comes after every point, at +Infinity. */
void knn_push_last(KnnSearch *s, uint64_t row, const void *payload, uint8_t row_kind);

/*
 * A row whose distance the index cannot compute (a shape, row_kind the glue's):
 * it surfaces at bound, a lower bound of its distance, and the glue hands that
 * bound to the executor for it to compute the distance and reorder (PostgreSQL's
 * recheck of ORDER BY). in_region: it is known to satisfy every key.
 */
void knn_push_bound(KnnSearch *s, uint64_t row, const void *payload, uint8_t row_kind, double bound,
					bool in_region);

/*
 * A point at its exact distance dist, decided by the glue itself (in_region:
 * it satisfies every key; else the executor rechecks the row).
 */
void knn_push_point(KnnSearch *s, uint64_t row, const void *payload, double x, double y,
					double dist, bool in_region);

/*
 * The next row in distance order whose distance is at most limit, as an exact
 * item (or, with order_only, a bracketed one); false when the frontier is exhausted or what is left
 * is farther than limit (then it stays on the frontier for the next call).
 */
bool knn_next(KnnSearch *s, double limit, SearchItem *out);

} // namespace geoidx
