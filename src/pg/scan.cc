/*
 * Scans.
 *
 * Radius (and full) scans walk the tree depth-first with a stack of pages;
 * nearest-neighbour scans are best-first with one min-heap that holds pages
 * (keyed by a provable lower bound of the distance to anything below them),
 * candidate points (keyed by a lower bound from the chord) and exact points
 * (keyed by their exact ST_Distance). A point is returned when it is on top as
 * exact: nothing left can be nearer. So the spheroid distance is computed only
 * for points that reach the top as candidates, which is the frontier of the
 * search, and the distance handed to the executor is exact
 * (xs_recheckorderby = false).
 *
 * A page is read under a share lock that is released before its children are
 * visited, so a scan never holds two locks. A page split between reading a
 * parent and reading the child is detected the GiST way: the child's NSN is
 * not older than the parent's LSN we saw (or the child still has
 * FOLLOW_RIGHT), and then its right sibling is visited too, under the same
 * parent LSN and the same bound.
 */
#include <limits>

#include "min_heap.h"

#include "geoidx.h"

extern "C"
{
#include "access/stratnum.h"
#include "catalog/pg_type_d.h"
#include "nodes/tidbitmap.h"
}

namespace
{

enum ItemKind : uint8
{
	kExact = 0,     /* ties: exact points first, so that a tie never costs a page read */
	kCandidate = 1, /* keyed by the chord bound */
	kCoarse = 2,    /* keyed by the latitude bound: not yet tested against the circles */
	kChunk = 3,     /* the matching entries of one chunk of a leaf, keyed by the chunk's box */
	kPage = 4,
};

/* the level a page must be on; the root's is not known in advance */
constexpr int kAnyLevel = -1;

struct KnnItem
{
	double dist;
	uint8 kind;
	int16 level;      /* of the page blk */
	uint8 entry_kind; /* GEOIDX_KIND_*: NULL and EMPTY rows come last, at +Infinity */
	bool in_region;   /* a point already known to satisfy the region keys */
	BlockNumber blk;
	union
	{
		XLogRecPtr parent_lsn;   /* a page */
		IndexTuple payload;      /* a point, when an index-only scan needs its other columns */
		struct ChunkCopy *chunk; /* a chunk */
	};
	ItemPointerData tid;
	double x;
	double y;

	bool
	operator<(const KnnItem &o) const
	{
		return dist < o.dist || (dist == o.dist && kind < o.kind);
	}
};

/* A chunk's entries that passed the filters, copied out of the leaf until the chunk surfaces. */
struct ChunkCopy
{
	int n;
	bool in_region; /* the chunk's box lies in every region key */
	GeoidxLeafEntry e[GEOIDX_CHUNK];
	IndexTuple payload[GEOIDX_CHUNK]; /* for index-only scans */
};

/* Chunks with at most this many matching entries push them at once. */
constexpr int kSmallChunk = 4;

struct PageRef
{
	BlockNumber blk;
	XLogRecPtr parent_lsn;
	int level; /* the level the page must be on */
};

struct ScanOpaque
{
	MemoryContext cxt; /* everything of one rescan */
	bool no_match;
	int ncircles;
	geoidx::RegionTest *circles; /* the scan keys: all must hold */
	bool empty_matches;          /* EMPTY rows satisfy every key: no box may rule a page out */
	bool near_side_keys;         /* a key excludes points near its centre (outside, >, >=) */
	int nscalar;                 /* keys on the columns after the point, tested on the payload */
	ScanKey *scalar;
	GeoidxInList **inlist; /* of scalar[k] when it is col <@ array, else NULL */
	int8 *fast;            /* of scalar[k]: a comparison of integers done inline, or 0 */
	int64 *fast_arg;
	TupleDesc payload_desc;  /* NULL: the index has only the point */
	bool keep_payloads;      /* an index-only scan of an index with payloads */
	MemoryContext batch_cxt; /* payload copies of one page's matches (unordered scans) */
	IndexTuple *payloads;    /* payloads[i] of tids[i], when keep_payloads */
	bool ordered;            /* best-first by distance to order_center */
	bool order_nulls;        /* ORDER BY distance to NULL or EMPTY: every distance is NULL */
	geoidx::GeoPoint order_center;
	geoidx::Vec3 order_q;

	/*
	 * ORDER BY d0, d1, ...: the heap orders by the first key whose point is not
	 * NULL or EMPTY (the primary; the keys before it are NULL for every row).
	 * The keys after it break its ties: the rows of one primary distance are
	 * gathered into a run and sorted by them (see gather_run).
	 */
	int primary;                  /* -1: no key, or every key NULL */
	bool *key_ok;                 /* the key's point is neither NULL nor EMPTY */
	geoidx::GeoPoint *key_center; /* where key_ok */
	bool tie_keys;                /* some key after the primary is key_ok */
	KnnItem *run;
	int nrun;
	int caprun;
	int runpos;
	bool started;

	PageRef *stack;
	int nstack;
	int capstack;
	ItemPointerData *tids;
	double *xy;   /* the coordinates of tids[i] at xy[2i], xy[2i+1]: for index-only scans */
	uint8 *kinds; /* and its entry's kind */
	int ntids;
	int captids;
	int pos;

	geoidx::MinHeap<KnnItem> heap;

	uint64 pages_visited;
	uint64 page_limit;

	bool can_return;         /* the column's type modifier promises Point, SRID 4326, 2-D */
	bool return_geography;   /* ... of geography: rebuilt with the geodetic flag */
	MemoryContext tuple_cxt; /* the index tuple of an index-only scan, one at a time */
};

KnnItem *
grow_heap(void *ctx, KnnItem *old, size_t cap)
{
	MemoryContext cxt = (MemoryContext) ctx;
	Size bytes = sizeof(KnnItem) * cap;
	if (old == NULL)
		return (KnnItem *) MemoryContextAllocHuge(cxt, bytes);
	return (KnnItem *) repalloc_huge(old, bytes);
}

void
push_page(ScanOpaque *so, BlockNumber blk, XLogRecPtr parent_lsn, int level)
{
	if (so->nstack == so->capstack)
	{
		so->capstack *= 2;
		so->stack = (PageRef *) repalloc_huge(so->stack, sizeof(PageRef) * so->capstack);
	}
	so->stack[so->nstack].blk = blk;
	so->stack[so->nstack].parent_lsn = parent_lsn;
	so->stack[so->nstack].level = level;
	so->nstack++;
}

void
emit(ScanOpaque *so, const GeoidxLeafEntry &e, IndexTuple payload)
{
	if (so->ntids == so->captids)
	{
		so->captids *= 2;
		so->tids =
			(ItemPointerData *) repalloc_huge(so->tids, sizeof(ItemPointerData) * so->captids);
		so->xy = (double *) repalloc_huge(so->xy, sizeof(double) * 2 * so->captids);
		so->kinds = (uint8 *) repalloc_huge(so->kinds, so->captids);
		so->payloads = (IndexTuple *) repalloc_huge(so->payloads, sizeof(IndexTuple) * so->captids);
	}
	so->kinds[so->ntids] = (uint8) GeoidxEntryKind(&e);
	so->tids[so->ntids] = e.tid;
	so->payloads[so->ntids] = payload;
	so->xy[2 * so->ntids] = e.x;
	so->xy[2 * so->ntids + 1] = e.y;
	so->ntids++;
}

/* Guards against right-link cycles and other loops in a corrupted index. */
void
count_page(IndexScanDesc scan, ScanOpaque *so, BlockNumber blk)
{
	if (++so->pages_visited <= so->page_limit)
		return;
	so->page_limit = 2 * (uint64) RelationGetNumberOfBlocks(scan->indexRelation) + 1000;
	if (so->pages_visited > so->page_limit)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains corrupted page at block %u",
						RelationGetRelationName(scan->indexRelation), blk),
				 errdetail("a scan visited more pages than the index has: the links form a loop")));
}

bool
follows_right(Page page, XLogRecPtr parent_lsn, BlockNumber blk)
{
	GeoidxPageOpaque op = GeoidxPageGetOpaque(page);
	if (op->rightlink == InvalidBlockNumber || blk == GEOIDX_ROOT_BLKNO)
		return false;
	if (op->flags & GEOIDX_F_FOLLOW_RIGHT)
		return true;
	return op->nsn != InvalidXLogRecPtr && parent_lsn <= op->nsn;
}

geoidx::Verdict
classify(const ScanOpaque *so, const geoidx::Box3 &box)
{
	geoidx::Verdict all = geoidx::Verdict::inside;
	for (int i = 0; i < so->ncircles; i++)
	{
		geoidx::Verdict v = geoidx::classify_region(so->circles[i], box);
		if (v == geoidx::Verdict::outside)
			return so->empty_matches ? geoidx::Verdict::maybe : v;
		if (v == geoidx::Verdict::maybe)
			all = v;
	}
	return all;
}

bool
point_matches(const ScanOpaque *so, double x, double y)
{
	if (so->ncircles == 0)
		return true;
	geoidx::LonLat ll = geoidx_entry_lonlat(x, y);
	for (int i = 0; i < so->ncircles; i++)
		if (!geoidx::point_in_region(so->circles[i], ll))
			return false;
	return true;
}

/* The same, for a point whose radians and unit vector the caller needs anyway. */
bool
point_matches_at(const ScanOpaque *so, geoidx::LonLat ll, geoidx::GeoPoint g, const geoidx::Vec3 &v)
{
	for (int i = 0; i < so->ncircles; i++)
		if (!geoidx::point_in_region_at(so->circles[i], ll, g, v))
			return false;
	return true;
}

/* Metres that are never more than the point's distance to the ORDER BY centre (the chord's). */
double
chord_lower_bound(const ScanOpaque *so, const geoidx::Vec3 &v)
{
	return geoidx::metres_lower_bound(geoidx::chord2_to_angle(geoidx::chord2(v, so->order_q)),
									  true);
}

/*
 * A NULL row matches when there is no condition (every condition is strict);
 * an EMPTY one when every condition is one it satisfies (outside a disc).
 */
bool
entry_matches(const ScanOpaque *so, const GeoidxLeafEntry &e)
{
	int kind = GeoidxEntryKind(&e);
	if (kind == GEOIDX_KIND_POINT)
		return point_matches(so, e.x, e.y);
	if (kind == GEOIDX_KIND_NULL)
		return so->ncircles == 0;
	for (int i = 0; i < so->ncircles; i++)
		if (!geoidx::empty_in_region(so->circles[i]))
			return false;
	return true;
}

/*
 * Integer and boolean comparisons of one type with itself (the usual filter:
 * category = 7) are done inline: fast[k] holds the strategy and the type's
 * width. Every other condition calls its operator's function.
 */
constexpr int8 kFastOpMask = 0x0F;
constexpr int8 kFast2 = 0x10, kFast4 = 0x20, kFast8 = 0x40, kFastBool = 0x30;

inline int64
fast_value(int8 fast, Datum d)
{
	switch (fast & ~kFastOpMask)
	{
		case kFast2:
			return DatumGetInt16(d);
		case kFast4:
			return DatumGetInt32(d);
		case kFastBool:
			return DatumGetBool(d) ? 1 : 0;
		default:
			return DatumGetInt64(d);
	}
}

int8
fast_kind(ScanKey key, TupleDesc payload_desc)
{
	if (key->sk_strategy < BTLessStrategyNumber || key->sk_strategy > BTGreaterStrategyNumber ||
		(key->sk_flags & (SK_ISNULL | SK_SEARCHARRAY)))
		return 0;
	Oid type = TupleDescAttr(payload_desc, key->sk_attno - 2)->atttypid;
	if (key->sk_subtype != type && key->sk_subtype != InvalidOid)
		return 0;
	switch (type)
	{
		case INT2OID:
			return (int8) (kFast2 | key->sk_strategy);
		case INT4OID:
			return (int8) (kFast4 | key->sk_strategy);
		case INT8OID:
			return (int8) (kFast8 | key->sk_strategy);
		case BOOLOID:
			return (int8) (kFastBool | key->sk_strategy);
		default:
			return 0;
	}
}

/* The keys on the columns after the point, on an entry's payload (NULL fails every key). */
bool
scalar_matches(const ScanOpaque *so, IndexTuple payload)
{
	if (so->nscalar == 0)
		return true;
	if (payload == NULL)
		return false;
	for (int k = 0; k < so->nscalar; k++)
	{
		ScanKey key = so->scalar[k];
		bool isnull;
		Datum v = index_getattr(payload, key->sk_attno - 1, so->payload_desc, &isnull);
		if (isnull)
			return false;
		if (so->fast[k] != 0)
		{
			/* the same answer as the operator's function, without the call */
			int64 a = fast_value(so->fast[k], v), b = so->fast_arg[k];
			bool ok;
			switch (so->fast[k] & kFastOpMask)
			{
				case BTLessStrategyNumber:
					ok = a < b;
					break;
				case BTLessEqualStrategyNumber:
					ok = a <= b;
					break;
				case BTEqualStrategyNumber:
					ok = a == b;
					break;
				case BTGreaterEqualStrategyNumber:
					ok = a >= b;
					break;
				default:
					ok = a > b;
					break;
			}
			if (!ok)
				return false;
		}
		else if (so->inlist[k] != NULL)
		{
			if (geoidx_in_list_test(so->inlist[k], v) <= 0)
				return false;
		}
		else if (!DatumGetBool(
					 FunctionCall2Coll(&key->sk_func, key->sk_collation, v, key->sk_argument)))
			return false;
	}
	return true;
}

/* A copy of a payload that outlives the page's lock, in cxt; NULL if not needed. */
IndexTuple
keep_payload(const ScanOpaque *so, IndexTuple payload, MemoryContext cxt)
{
	if (!so->keep_payloads || payload == NULL)
		return NULL;
	Size sz = IndexTupleSize(payload);
	IndexTuple copy = (IndexTuple) MemoryContextAlloc(cxt, sz);
	memcpy(copy, payload, sz);
	return copy;
}

/*
 * The verdict on the chunk of a leaf's entries that starts at entry first:
 * the page's when that is already decided, else its chunk box's.
 */
geoidx::Verdict
chunk_verdict(const ScanOpaque *so, Page page, int first, geoidx::Verdict page_verdict)
{
	if (page_verdict != geoidx::Verdict::maybe)
		return page_verdict;
	return classify(so, geoidx_chunk_box(&GeoidxChunkBoxes(page)[first / GEOIDX_CHUNK]));
}

/*
 * Reads and share-locks page blk, which a link said is on the given level.
 * A link to block 0xFFFFFFFF would make ReadBuffer extend the index
 * (P_NEW), and a level that does not follow its parent's means the links are
 * corrupted (a downlink to an ancestor, a right-link to another level): errors.
 */
Buffer
read_page(IndexScanDesc scan, BlockNumber blk, int level, Page *page_out)
{
	Relation index = scan->indexRelation;
	if (blk == InvalidBlockNumber)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains corrupted page", RelationGetRelationName(index)),
				 errdetail("a link points to block %u", blk)));
	Buffer buf = ReadBuffer(index, blk);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	Page page = BufferGetPage(buf);
	geoidx_check_page(index, buf, page);
	GeoidxPageOpaque op = GeoidxPageGetOpaque(page);
	if (op->flags & GEOIDX_F_META)
		ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
						errmsg("index \"%s\" contains corrupted page at block %u",
							   RelationGetRelationName(index), blk),
						errdetail("a downlink points to the metapage")));
	if (level != kAnyLevel && op->level != level)
		ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
						errmsg("index \"%s\" contains corrupted page at block %u",
							   RelationGetRelationName(index), blk),
						errdetail("the page is on level %u, the link to it expects level %d",
								  op->level, level)));
	*page_out = page;
	return buf;
}

/* Unordered: reads one page of the stack; leaves add their matching TIDs to so->tids. */
void
visit_page_unordered(IndexScanDesc scan, ScanOpaque *so, PageRef ref)
{
	CHECK_FOR_INTERRUPTS();
	count_page(scan, so, ref.blk);
	Page page;
	Buffer buf = read_page(scan, ref.blk, ref.level, &page);
	XLogRecPtr lsn = geoidx_page_lsn(scan->indexRelation, buf);
	int level = GeoidxPageGetOpaque(page)->level;

	if (follows_right(page, ref.parent_lsn, ref.blk))
		push_page(so, GeoidxPageGetOpaque(page)->rightlink, ref.parent_lsn, level);

	geoidx::Verdict page_verdict = classify(so, *GeoidxPageGetBox(page));
	int n = GeoidxPageCount(page);
	if (page_verdict != geoidx::Verdict::outside)
	{
		if (GeoidxPageIsLeaf(page))
		{
			GeoidxLeafEntry *e = GeoidxLeafEntries(page);
			for (int first = 0; first < n; first += GEOIDX_CHUNK)
			{
				geoidx::Verdict v = chunk_verdict(so, page, first, page_verdict);
				if (v == geoidx::Verdict::outside)
					continue;
				for (int i = first; i < Min(n, first + GEOIDX_CHUNK); i++)
				{
					IndexTuple payload =
						so->payload_desc
							? geoidx_entry_payload(scan->indexRelation, ref.blk, page, &e[i])
							: NULL;
					if (!scalar_matches(so, payload))
						continue;
					if ((GeoidxEntryIsPoint(&e[i]) && v == geoidx::Verdict::inside) ||
						entry_matches(so, e[i]))
						emit(so, e[i], keep_payload(so, payload, so->batch_cxt));
				}
			}
		}
		else
		{
			GeoidxInternalEntry *e = GeoidxInternalEntries(page);
			/* pushed backwards so that children are read in index order (CLUSTER follows it) */
			for (int i = n - 1; i >= 0; i--)
				if (page_verdict == geoidx::Verdict::inside ||
					classify(so, e[i].box) != geoidx::Verdict::outside)
					push_page(so, e[i].child, lsn, level - 1);
		}
	}
	UnlockReleaseBuffer(buf);
}

/*
 * The points of a chunk into the heap, each keyed by the larger of the
 * chunk's distance and its latitude bound. A key that keeps the near side out
 * (paging beyond a distance, a ring's hole) rejects exactly the points that
 * would surface first: they are tested now, not one by one as they surface;
 * a chunk wholly in the region needs no test.
 */
void
push_chunk_points(ScanOpaque *so, const ChunkCopy &chunk, double chunk_lb)
{
	double center_lat = so->order_center.lat * (180.0 / M_PI);
	for (int i = 0; i < chunk.n; i++)
	{
		const GeoidxLeafEntry &e = chunk.e[i];
		KnnItem c{};
		c.in_region = chunk.in_region;
		geoidx::LonLat ll = geoidx_entry_lonlat(e.x, e.y);
		c.dist = Max(chunk_lb, geoidx::metres_lower_bound_dlat(ll.lat, center_lat, true));
		c.kind = kCoarse;
		if (!c.in_region && so->near_side_keys)
		{
			/* the vector the test needs also gives the chord bound: straight to candidate */
			geoidx::GeoPoint g = geoidx::geographic_point(ll);
			geoidx::Vec3 v = geoidx::unit_vector(g);
			if (!point_matches_at(so, ll, g, v))
				continue;
			c.in_region = true;
			c.dist = Max(c.dist, chord_lower_bound(so, v));
			c.kind = kCandidate;
		}
		c.entry_kind = GEOIDX_KIND_POINT;
		c.blk = InvalidBlockNumber;
		c.payload = chunk.payload[i];
		c.tid = e.tid;
		c.x = e.x;
		c.y = e.y;
		geoidx::heap_push(&so->heap, c);
	}
}

/* Ordered: a chunk popped from the heap gives its points. */
void
expand_chunk(ScanOpaque *so, const KnnItem &item)
{
	push_chunk_points(so, *item.chunk, item.dist);
	pfree(item.chunk);
}

/* Ordered: expands one page popped from the heap. */
void
visit_page_ordered(IndexScanDesc scan, ScanOpaque *so, const KnnItem &item)
{
	CHECK_FOR_INTERRUPTS();
	count_page(scan, so, item.blk);
	Page page;
	Buffer buf = read_page(scan, item.blk, item.level, &page);
	XLogRecPtr lsn = geoidx_page_lsn(scan->indexRelation, buf);
	int level = GeoidxPageGetOpaque(page)->level;

	if (follows_right(page, item.parent_lsn, item.blk))
	{
		/* the sibling holds part of what the parent's entry covered: the same bound holds */
		KnnItem r = item;
		r.blk = GeoidxPageGetOpaque(page)->rightlink;
		r.level = (int16) level;
		geoidx::heap_push(&so->heap, r);
	}

	int n = GeoidxPageCount(page);
	geoidx::Verdict page_verdict = classify(so, *GeoidxPageGetBox(page));
	if (page_verdict != geoidx::Verdict::outside)
	{
		if (GeoidxPageIsLeaf(page))
		{
			/*
			 * A leaf's chunks go into the heap keyed by their boxes' distance,
			 * with the entries that pass the filters on the other columns; a
			 * chunk's points go in (keyed by the chunk's distance or their
			 * latitude bound, no trigonometry) only when the chunk surfaces,
			 * and each point is tested against the circles and refined only
			 * when it surfaces: most of a leaf is further than the k-th.
			 */
			GeoidxLeafEntry *e = GeoidxLeafEntries(page);
			for (int first = 0; first < n; first += GEOIDX_CHUNK)
			{
				geoidx::Verdict v = chunk_verdict(so, page, first, page_verdict);
				if (v == geoidx::Verdict::outside)
					continue;
				geoidx::Box3 cb = geoidx_chunk_box(&GeoidxChunkBoxes(page)[first / GEOIDX_CHUNK]);
				double chunk_lb =
					geoidx::box_is_empty(cb)
						? item.dist
						: Max(item.dist,
							  geoidx::metres_lower_bound(
								  geoidx::chord2_to_angle(geoidx::min_chord2(cb, so->order_q)),
								  true));
				ChunkCopy local;
				local.n = 0;
				local.in_region = (v == geoidx::Verdict::inside);
				for (int i = first; i < Min(n, first + GEOIDX_CHUNK); i++)
				{
					IndexTuple payload =
						so->payload_desc
							? geoidx_entry_payload(scan->indexRelation, item.blk, page, &e[i])
							: NULL;
					if (!scalar_matches(so, payload))
						continue;
					if (!GeoidxEntryIsPoint(&e[i]))
					{
						/* NULL and EMPTY rows come after every point */
						if (!entry_matches(so, e[i]))
							continue;
						KnnItem c{};
						c.entry_kind = (uint8) GeoidxEntryKind(&e[i]);
						c.dist = std::numeric_limits<double>::infinity();
						c.kind = kExact;
						c.blk = InvalidBlockNumber;
						c.payload = keep_payload(so, payload, so->cxt);
						c.tid = e[i].tid;
						geoidx::heap_push(&so->heap, c);
						continue;
					}
					local.e[local.n] = e[i];
					local.payload[local.n] = keep_payload(so, payload, so->cxt);
					local.n++;
				}
				if (local.n == 0)
					continue;
				if (local.n <= kSmallChunk)
				{
					push_chunk_points(so, local, chunk_lb);
					continue;
				}
				KnnItem c{};
				c.dist = chunk_lb;
				c.kind = kChunk;
				c.entry_kind = GEOIDX_KIND_POINT;
				c.blk = InvalidBlockNumber;
				c.chunk = (ChunkCopy *) MemoryContextAlloc(so->cxt, sizeof(ChunkCopy));
				memcpy(c.chunk, &local, offsetof(ChunkCopy, e) + sizeof(GeoidxLeafEntry) * local.n);
				memcpy(c.chunk->payload, local.payload, sizeof(IndexTuple) * local.n);
				geoidx::heap_push(&so->heap, c);
			}
		}
		else
		{
			GeoidxInternalEntry *e = GeoidxInternalEntries(page);
			for (int i = 0; i < n; i++)
			{
				if (classify(so, e[i].box) == geoidx::Verdict::outside)
					continue;
				KnnItem c{};
				/* a page of NULL and EMPTY rows only has an empty box: visited after every point */
				c.dist =
					geoidx::box_is_empty(e[i].box)
						? std::numeric_limits<double>::infinity()
						: geoidx::metres_lower_bound(
							  geoidx::chord2_to_angle(geoidx::min_chord2(e[i].box, so->order_q)),
							  true);
				c.kind = kPage;
				c.entry_kind = GEOIDX_KIND_POINT;
				c.level = (int16) (level - 1);
				c.blk = e[i].child;
				c.parent_lsn = lsn;
				ItemPointerSetInvalid(&c.tid);
				c.x = c.y = 0.0;
				geoidx::heap_push(&so->heap, c);
			}
		}
	}
	UnlockReleaseBuffer(buf);
}

void
start_scan(IndexScanDesc scan, ScanOpaque *so)
{
	/* pg_stat_user_indexes.idx_scan: one per scan, as the built-in AMs count */
	pgstat_count_index_scan(scan->indexRelation);
	so->started = true;
	if (so->ordered)
	{
		KnnItem root{};
		root.dist = 0.0;
		root.kind = kPage;
		root.entry_kind = GEOIDX_KIND_POINT;
		root.level = kAnyLevel;
		root.blk = GEOIDX_ROOT_BLKNO;
		root.parent_lsn = InvalidXLogRecPtr;
		ItemPointerSetInvalid(&root.tid);
		root.x = root.y = 0.0;
		geoidx::heap_push(&so->heap, root);
	}
	else
		push_page(so, GEOIDX_ROOT_BLKNO, InvalidXLogRecPtr, kAnyLevel);
}

/*
 * One step of a point item towards exact: coarse -> tested against the
 * circles and keyed by the chord bound -> exact distance. Returns false when
 * the point is outside a circle (it is dropped). With to_exact it goes all the
 * way; else it stops as soon as something in the heap comes before it.
 */
bool
refine(ScanOpaque *so, KnnItem *item, bool to_exact)
{
	while (item->kind != kExact)
	{
		geoidx::LonLat ll = geoidx_entry_lonlat(item->x, item->y);
		geoidx::GeoPoint g = geoidx::geographic_point(ll);
		if (item->kind == kCoarse)
		{
			/* one unit vector for both the circles and the chord bound */
			geoidx::Vec3 v = geoidx::unit_vector(g);
			if (!item->in_region && !point_matches_at(so, ll, g, v))
				return false;
			item->dist = Max(item->dist, chord_lower_bound(so, v));
			item->kind = kCandidate;
		}
		else
		{
			item->dist = geoidx::st_distance(so->order_center, g, true);
			item->kind = kExact;
		}
		if (!to_exact && so->heap.size > 0 && geoidx::heap_top(&so->heap) < *item)
			break;
	}
	return true;
}

double
entry_distance(const geoidx::GeoPoint &center, double x, double y)
{
	geoidx::LonLat ll = geoidx_entry_lonlat(x, y);
	return geoidx::st_distance(center, geoidx::geographic_point(ll), true);
}

struct RunSortArg
{
	int nkeys;
	const double *keys; /* nkeys per run item */
};

int
run_cmp(const void *a, const void *b, void *arg)
{
	const RunSortArg *r = (const RunSortArg *) arg;
	const double *ka = r->keys + (size_t) * (const int *) a * r->nkeys;
	const double *kb = r->keys + (size_t) * (const int *) b * r->nkeys;
	for (int k = 0; k < r->nkeys; k++)
		if (ka[k] != kb[k])
			return ka[k] < kb[k] ? -1 : 1;
	return 0;
}

void
run_push(ScanOpaque *so, const KnnItem &item)
{
	if (so->nrun == so->caprun)
	{
		so->caprun = so->caprun ? 2 * so->caprun : 64;
		so->run =
			(KnnItem *) (so->run ? repalloc_huge(so->run, sizeof(KnnItem) * so->caprun)
								 : MemoryContextAllocHuge(so->cxt, sizeof(KnnItem) * so->caprun));
	}
	so->run[so->nrun++] = item;
}

/*
 * first, an exact point, is on top of the heap: gathers every point at the same
 * distance (reading the pages and computing the candidates whose lower bound
 * does not exceed it) and sorts them by the ORDER BY keys after the primary.
 */
void
gather_run(IndexScanDesc scan, ScanOpaque *so, const KnnItem &first)
{
	so->nrun = so->runpos = 0;
	run_push(so, first);
	while (so->heap.size > 0 && geoidx::heap_top(&so->heap).dist <= first.dist)
	{
		KnnItem t = geoidx::heap_pop(&so->heap);
		if (t.kind == kPage)
		{
			visit_page_ordered(scan, so, t);
			continue;
		}
		if (t.kind == kChunk)
		{
			expand_chunk(so, t);
			continue;
		}
		if (t.kind == kCandidate || t.kind == kCoarse)
		{
			if (!refine(so, &t, true))
				continue;
			if (t.dist > first.dist)
			{
				geoidx::heap_push(&so->heap, t);
				continue;
			}
		}
		run_push(so, t);
	}
	if (so->nrun < 2)
		return;

	int nkeys = scan->numberOfOrderBys - so->primary - 1;
	double *keys = (double *) palloc_extended(sizeof(double) * so->nrun * nkeys, MCXT_ALLOC_HUGE);
	int *order = (int *) palloc_extended(sizeof(int) * so->nrun, MCXT_ALLOC_HUGE);
	for (int i = 0; i < so->nrun; i++)
	{
		order[i] = i;
		for (int k = 0; k < nkeys; k++)
		{
			int key = so->primary + 1 + k;
			keys[(size_t) i * nkeys + k] =
				so->key_ok[key] && so->run[i].entry_kind == GEOIDX_KIND_POINT
					? entry_distance(so->key_center[key], so->run[i].x, so->run[i].y)
					: 0.0;
		}
	}
	RunSortArg arg = {nkeys, keys};
	qsort_arg(order, so->nrun, sizeof(int), run_cmp, &arg);
	KnnItem *sorted = (KnnItem *) palloc_extended(sizeof(KnnItem) * so->caprun, MCXT_ALLOC_HUGE);
	for (int i = 0; i < so->nrun; i++)
		sorted[i] = so->run[order[i]];
	pfree(so->run);
	pfree(keys);
	pfree(order);
	so->run = sorted;
}

/*
 * The point as a PostGIS geometry (GSERIALIZED v2: header, SRID, flags, type
 * POINT, one point, x, y), for index-only scans of geometry(Point, 4326); as a
 * geography (the same with the geodetic flag, 0x08) for geography(Point, 4326).
 * POINT EMPTY is the same with no point and no coordinates.
 */
Datum
point_datum(double x, double y, bool empty, bool geography)
{
	const Size size = VARHDRSZ + 4 + 8 + (empty ? 0 : 16);
	char *p = (char *) palloc0(size);
	SET_VARSIZE(p, size);
	uint8 *d = (uint8 *) VARDATA(p);
	d[0] = (4326 >> 16) & 0xFF;
	d[1] = (4326 >> 8) & 0xFF;
	d[2] = 4326 & 0xFF;
	d[3] = 0x40; /* version 2, no Z, M, box */
	if (geography)
		d[3] |= 0x08;
	uint32 type = 1, npoints = empty ? 0 : 1;
	memcpy(d + 4, &type, 4);
	memcpy(d + 8, &npoints, 4);
	if (!empty)
	{
		memcpy(d + 12, &x, 8);
		memcpy(d + 20, &y, 8);
	}
	return PointerGetDatum(p);
}

/*
 * A returned row; kind is its entry's (a NULL or EMPTY row has NULL
 * distances), payload its other columns (kept for index-only scans only).
 */
void
set_result(IndexScanDesc scan, ItemPointer tid, int kind, double x, double y, double dist,
		   IndexTuple payload)
{
	ScanOpaque *so = (ScanOpaque *) scan->opaque;
	scan->xs_heaptid = *tid;
	if (scan->xs_want_itup)
	{
		/*
		 * The planner also asks for index-only scans that need no column at all
		 * (count(*)); then the value is NULL, as nothing reads it.
		 */
		MemoryContextReset(so->tuple_cxt);
		MemoryContext old = MemoryContextSwitchTo(so->tuple_cxt);
		TupleDesc desc = RelationGetDescr(scan->indexRelation);
		Datum values[INDEX_MAX_KEYS];
		bool isnull[INDEX_MAX_KEYS];
		isnull[0] = !so->can_return || kind == GEOIDX_KIND_NULL;
		values[0] = isnull[0] ? (Datum) 0
							  : point_datum(x, y, kind == GEOIDX_KIND_EMPTY, so->return_geography);
		if (so->payload_desc != NULL)
		{
			if (payload == NULL)
				elog(ERROR, "geoidx: index-only scan of \"%s\" lost a payload",
					 RelationGetRelationName(scan->indexRelation));
			index_deform_tuple(payload, so->payload_desc, values + 1, isnull + 1);
		}
		scan->xs_itup = index_form_tuple(desc, values, isnull);
		MemoryContextSwitchTo(old);
	}
	scan->xs_recheck = false;
	if (scan->numberOfOrderBys > 0)
	{
		/* exact: the keys before the primary are NULL, the primary is dist, the rest computed */
		scan->xs_recheckorderby = false;
		for (int k = 0; k < scan->numberOfOrderBys; k++)
		{
			bool null =
				so->primary < 0 || k < so->primary || !so->key_ok[k] || kind != GEOIDX_KIND_POINT;
			scan->xs_orderbynulls[k] = null;
			scan->xs_orderbyvals[k] =
				null ? Float8GetDatum(0.0)
					 : Float8GetDatum(k == so->primary ? dist
													   : entry_distance(so->key_center[k], x, y));
		}
	}
}

} // namespace

IndexScanDesc
geoidx_beginscan(Relation index, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);
	ScanOpaque *so = (ScanOpaque *) palloc0(sizeof(ScanOpaque));
	so->cxt = AllocSetContextCreate(CurrentMemoryContext, "geoidx scan", ALLOCSET_DEFAULT_SIZES);
	so->tuple_cxt =
		AllocSetContextCreate(CurrentMemoryContext, "geoidx scan tuple", ALLOCSET_SMALL_SIZES);
	so->can_return = geoidx_canreturn(index, 1);
	so->payload_desc = geoidx_rel_info(index)->payload_desc;
	so->return_geography = so->can_return && geoidx_index_is_geography(index);
	scan->opaque = so;
	scan->xs_itupdesc = RelationGetDescr(index);
	if (norderbys > 0)
	{
		scan->xs_orderbyvals = (Datum *) palloc0(sizeof(Datum) * norderbys);
		scan->xs_orderbynulls = (bool *) palloc(sizeof(bool) * norderbys);
		memset(scan->xs_orderbynulls, true, sizeof(bool) * norderbys);
	}
	geoidx_check_metapage(index);
	return scan;
}

void
geoidx_rescan(IndexScanDesc scan, ScanKey keys, int nkeys, ScanKey orderbys, int norderbys)
{
	ScanOpaque *so = (ScanOpaque *) scan->opaque;

	if (keys && scan->numberOfKeys > 0)
		memmove(scan->keyData, keys, scan->numberOfKeys * sizeof(ScanKeyData));
	if (orderbys && scan->numberOfOrderBys > 0)
		memmove(scan->orderByData, orderbys, scan->numberOfOrderBys * sizeof(ScanKeyData));

	MemoryContextReset(so->cxt);
	MemoryContext old = MemoryContextSwitchTo(so->cxt);

	so->no_match = false;
	so->ncircles = 0;
	so->circles =
		(geoidx::RegionTest *) palloc(sizeof(geoidx::RegionTest) * Max(1, scan->numberOfKeys));
	so->nscalar = 0;
	so->scalar = (ScanKey *) palloc(sizeof(ScanKey) * Max(1, scan->numberOfKeys));
	so->inlist = (GeoidxInList **) palloc(sizeof(GeoidxInList *) * Max(1, scan->numberOfKeys));
	so->fast = (int8 *) palloc(sizeof(int8) * Max(1, scan->numberOfKeys));
	so->fast_arg = (int64 *) palloc(sizeof(int64) * Max(1, scan->numberOfKeys));
	for (int i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey key = &scan->keyData[i];
		if (key->sk_flags & SK_ISNULL)
		{
			so->no_match = true;
			continue;
		}
		if (key->sk_attno > 1)
		{
			/* a filter on another column: its operator's function, on the payload */
			so->inlist[so->nscalar] =
				key->sk_strategy == GEOIDX_SCALAR_IN
					? geoidx_in_list_make(DatumGetArrayTypeP(key->sk_argument), key->sk_collation,
										  so->cxt)
					: NULL;
			/* an empty list, or one of NULLs only, matches nothing: no need to look */
			if (so->inlist[so->nscalar] != NULL && so->inlist[so->nscalar]->nvalues == 0)
				so->no_match = true;
			so->fast[so->nscalar] = so->inlist[so->nscalar] ? 0 : fast_kind(key, so->payload_desc);
			so->fast_arg[so->nscalar] =
				so->fast[so->nscalar] ? fast_value(so->fast[so->nscalar], key->sk_argument) : 0;
			so->scalar[so->nscalar++] = key;
			continue;
		}
		if (key->sk_strategy != GEOIDX_STRATEGY_WITHIN)
			elog(ERROR, "geoidx: unexpected strategy %d in a scan key", key->sk_strategy);
		so->circles[so->ncircles] =
			geoidx_circle_region((GeoidxCircle *) DatumGetPointer(key->sk_argument));
		so->ncircles++;
	}

	so->empty_matches = so->ncircles > 0;
	so->near_side_keys = false;
	for (int i = 0; i < so->ncircles; i++)
	{
		so->empty_matches &= geoidx::empty_in_region(so->circles[i]);
		geoidx::RegionMode m = so->circles[i].mode;
		so->near_side_keys |=
			(m == geoidx::RegionMode::outside || m == geoidx::RegionMode::dist_gt ||
			 m == geoidx::RegionMode::dist_ge);
	}

	so->ordered = false;
	so->order_nulls = scan->numberOfOrderBys > 0;
	so->primary = -1;
	so->tie_keys = false;
	so->key_ok = (bool *) palloc0(sizeof(bool) * Max(1, scan->numberOfOrderBys));
	so->key_center =
		(geoidx::GeoPoint *) palloc0(sizeof(geoidx::GeoPoint) * Max(1, scan->numberOfOrderBys));
	for (int k = 0; k < scan->numberOfOrderBys; k++)
	{
		ScanKey key = &scan->orderByData[k];
		if (key->sk_strategy != GEOIDX_STRATEGY_DISTANCE)
			elog(ERROR, "geoidx: unexpected strategy %d in an ORDER BY key", key->sk_strategy);
		if (key->sk_flags & SK_ISNULL)
			continue;
		GeoidxPoint p;
		geoidx_decode_point(key->sk_argument, "the point to order by distance to", &p);
		if (p.empty)
			continue;
		geoidx::LonLat ll;
		geoidx::Vec3 q;
		geoidx_point_unit(&p, "the point to order by distance to", &ll, &q);
		so->key_ok[k] = true;
		so->key_center[k] = geoidx::geographic_point(ll);
		if (so->primary < 0)
		{
			so->primary = k;
			so->order_q = q;
			so->order_center = so->key_center[k];
			so->ordered = true;
			so->order_nulls = false;
		}
		else
			so->tie_keys = true;
	}
	so->run = NULL;
	so->nrun = so->caprun = so->runpos = 0;

	so->capstack = 64;
	so->stack = (PageRef *) palloc(sizeof(PageRef) * so->capstack);
	so->nstack = 0;
	so->captids = 512;
	so->tids = (ItemPointerData *) palloc(sizeof(ItemPointerData) * so->captids);
	so->xy = (double *) palloc(sizeof(double) * 2 * so->captids);
	so->kinds = (uint8 *) palloc(so->captids);
	so->payloads = (IndexTuple *) palloc(sizeof(IndexTuple) * so->captids);
	so->keep_payloads = scan->xs_want_itup && so->payload_desc != NULL;
	so->batch_cxt = AllocSetContextCreate(so->cxt, "geoidx scan payloads", ALLOCSET_DEFAULT_SIZES);
	so->ntids = 0;
	so->pos = 0;
	geoidx::heap_init(&so->heap, grow_heap, so->cxt);
	so->started = false;
	so->pages_visited = 0;
	so->page_limit = 2 * (uint64) RelationGetNumberOfBlocks(scan->indexRelation) + 1000;

	MemoryContextSwitchTo(old);
}

bool
geoidx_gettuple(IndexScanDesc scan, ScanDirection dir)
{
	ScanOpaque *so = (ScanOpaque *) scan->opaque;
	if (so->no_match)
		return false;
	MemoryContext old = MemoryContextSwitchTo(so->cxt);
	if (!so->started)
		start_scan(scan, so);

	bool found = false;
	if (!so->ordered)
	{
		while (so->pos >= so->ntids && so->nstack > 0)
		{
			so->ntids = so->pos = 0;
			MemoryContextReset(so->batch_cxt);
			PageRef ref = so->stack[--so->nstack];
			visit_page_unordered(scan, so, ref);
		}
		if (so->pos < so->ntids)
		{
			set_result(scan, &so->tids[so->pos], so->kinds[so->pos], so->xy[2 * so->pos],
					   so->xy[2 * so->pos + 1], 0.0, so->payloads[so->pos]);
			so->pos++;
			found = true;
		}
	}
	else
	{
		while (so->runpos >= so->nrun && so->heap.size > 0)
		{
			KnnItem item = geoidx::heap_pop(&so->heap);
			if (item.kind == kPage)
			{
				visit_page_ordered(scan, so, item);
				continue;
			}
			if (item.kind == kChunk)
			{
				expand_chunk(so, item);
				continue;
			}
			if (item.kind == kCandidate || item.kind == kCoarse)
			{
				if (!refine(so, &item, false))
					continue;
				if (item.kind != kExact ||
					(so->heap.size > 0 && geoidx::heap_top(&so->heap) < item))
				{
					geoidx::heap_push(&so->heap, item);
					continue;
				}
				/* nothing left can come before it: no round trip through the heap */
			}
			if (!so->tie_keys)
			{
				set_result(scan, &item.tid, item.entry_kind, item.x, item.y, item.dist,
						   item.payload);
				found = true;
				break;
			}
			gather_run(scan, so, item);
		}
		if (!found && so->runpos < so->nrun)
		{
			const KnnItem &item = so->run[so->runpos++];
			set_result(scan, (ItemPointer) &item.tid, item.entry_kind, item.x, item.y, item.dist,
					   item.payload);
			found = true;
		}
	}
	MemoryContextSwitchTo(old);
	return found;
}

int64
geoidx_getbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	ScanOpaque *so = (ScanOpaque *) scan->opaque;
	if (so->no_match)
		return 0;
	MemoryContext old = MemoryContextSwitchTo(so->cxt);
	int64 total = 0;
	so->ordered = false; /* a bitmap has no order */
	if (!so->started)
		start_scan(scan, so);
	while (so->nstack > 0)
	{
		so->ntids = so->pos = 0;
		PageRef ref = so->stack[--so->nstack];
		visit_page_unordered(scan, so, ref);
		if (so->ntids > 0)
		{
			tbm_add_tuples(tbm, so->tids, so->ntids, false);
			total += so->ntids;
		}
	}
	MemoryContextSwitchTo(old);
	return total;
}

void
geoidx_endscan(IndexScanDesc scan)
{
	ScanOpaque *so = (ScanOpaque *) scan->opaque;
	MemoryContextDelete(so->cxt);
	MemoryContextDelete(so->tuple_cxt);
	pfree(so);
	scan->opaque = NULL;
}
