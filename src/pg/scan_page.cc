/*
 * The one page visitor of every scan, as gistScanPage is GiST's: it reads a
 * page, follows a right-link the scan could otherwise miss, judges the page
 * box, the chunk boxes and the entries against the region keys, tests the
 * payload filters, and hands what matches to the scan's sink: the TIDs of an
 * unordered or bitmap scan, or the frontier of the best-first search.
 *
 * A page is read under a share lock that is released before its children are
 * visited, so a scan never holds two locks. A page split between reading a
 * parent and reading the child is detected the GiST way: the child's NSN is
 * not older than the parent's LSN we saw (or the child still has
 * FOLLOW_RIGHT), and then its right sibling is visited too, under the same
 * parent LSN and the same bound.
 */
#include <limits>

#include "chord_model.h"

#include "scan_filter.h"

namespace
{

/* Count a page read, and stop a scan that reads more pages than the index has (a link loop). */
void
count_page(IndexScanDesc scan, GeoidxScanOpaque so, BlockNumber blk)
{
	if (++so->pages_visited <= so->page_limit)
		return;
	so->page_limit = 2 * (uint64) RelationGetNumberOfBlocks(scan->indexRelation) + 1000;
	if (so->pages_visited > so->page_limit)
		geoidx_corrupted(scan->indexRelation, blk,
						 "a scan visited more pages than the index has: the links form a loop");
}

/* Tell whether the page split after its parent was read, so its right sibling must be read too. */
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

/*
 * Check a link read from page blk before anyone follows it: a link to block
 * 0xFFFFFFFF would make ReadBuffer extend the index (P_NEW). The error names
 * the page that holds the bad link.
 */
inline void
check_link(Relation index, BlockNumber blk, BlockNumber target, const char *what)
{
	if (unlikely(target == InvalidBlockNumber))
		geoidx_corrupted(index, blk, "a %s points to block %u", what, target);
}

/*
 * The tail of a page a visit reads: the chunk boxes (and tags, for a scan
 * that reads them) and the special space.
 */
inline int
page_tail(GeoidxScanOpaque so)
{
	constexpr int kTail = GEOIDX_CHUNK_AREA + MAXALIGN(sizeof(GeoidxPageOpaqueData));
	return kTail + (so->tag_filter ? GEOIDX_TAG_AREA : 0);
}

/*
 * Read and share-lock page blk, which a link said is on the given level. A
 * level that does not follow its parent's means the links are corrupted (a
 * downlink to an ancestor, a right-link to another level).
 */
Buffer
read_page(IndexScanDesc scan, BlockNumber blk, int level, Page *page_out)
{
	Relation index = scan->indexRelation;
	Buffer buf = geoidx_read_page_buffer(index, blk);
	Page page = BufferGetPage(buf);
	/*
	 * the header and the box, the chunk boxes (and tags, for a scan that
	 * reads them) and the special space, while the lock is taken
	 */
	geoidx_prefetch_page_lines(page, page_tail((GeoidxScanOpaque) scan->opaque));
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	geoidx_check_page(index, buf, page);
	GeoidxPageOpaque op = GeoidxPageGetOpaque(page);
	if (op->flags & GEOIDX_F_META)
		geoidx_corrupted(index, blk, "a downlink points to the metapage");
	if (level != geoidx::kAnyLevel && op->level != level)
		geoidx_corrupted(index, blk, "the page is on level %u, the link to it expects level %d",
						 op->level, level);
	*page_out = page;
	return buf;
}

/*
 * Ask for the cache lines of entries first .. end-1 of a leaf: a scan reads
 * the entries of several chunks of a page that is seldom in the CPU's cache,
 * and each chunk's misses otherwise come one after the other
 * (bench/PROFILES.md, page 100).
 */
inline void
prefetch_entries(Page page, int first, int end)
{
	const char *lo = (const char *) &GeoidxLeafEntries(page)[first];
	const char *hi = (const char *) &GeoidxLeafEntries(page)[end];
	for (const char *p = lo; p < hi; p += 64)
		__builtin_prefetch(p);
}

/* Queue a page for an unordered scan (depth first). */
void
push_ref(GeoidxScanOpaque so, BlockNumber blk, XLogRecPtr parent_lsn, int level)
{
	if (so->nstack == so->capstack)
	{
		so->capstack *= 2;
		so->stack =
			(GeoidxPageRef *) repalloc_huge(so->stack, sizeof(GeoidxPageRef) * so->capstack);
	}
	so->stack[so->nstack].blk = blk;
	so->stack[so->nstack].parent_lsn = parent_lsn;
	so->stack[so->nstack].level = level;
	so->nstack++;
}

/* Copy a payload so that it outlives the page's lock, in cxt; NULL if nothing will read it. */
IndexTuple
keep_payload(GeoidxScanOpaque so, IndexTuple payload, MemoryContext cxt)
{
	if (!so->keep_payloads || payload == NULL)
		return NULL;
	Size sz = IndexTupleSize(payload);
	IndexTuple copy = (IndexTuple) MemoryContextAlloc(cxt, sz);
	memcpy(copy, payload, sz);
	return copy;
}

/* Append a TID to one of a bitmap scan's two arrays (exact, and to recheck). */
void
bitmap_push(GeoidxScanOpaque so, ItemPointerData **tids, int *n, int *cap, ItemPointerData tid)
{
	if (*n == *cap)
	{
		*cap = *cap ? 2 * *cap : 512;
		Size bytes = sizeof(ItemPointerData) * *cap;
		*tids = (ItemPointerData *) (*tids ? repalloc_huge(*tids, bytes)
										   : MemoryContextAllocHuge(so->cxt, bytes));
	}
	(*tids)[(*n)++] = tid;
}

/* Add a matching row to an unordered scan's result, or to a bitmap scan's TIDs. */
void
emit(GeoidxScanOpaque so, const GeoidxLeafEntry &e, IndexTuple payload, bool recheck = false)
{
	if (so->sink == GEOIDX_SINK_BITMAP && recheck)
	{
		bitmap_push(so, &so->bitmap_recheck, &so->nrecheck, &so->caprecheck, e.tid);
		return;
	}
	if (so->sink == GEOIDX_SINK_BITMAP)
	{
		if (so->nbitmap == so->capbitmap)
		{
			so->capbitmap = so->capbitmap ? 2 * so->capbitmap : 512;
			Size bytes = sizeof(ItemPointerData) * so->capbitmap;
			so->bitmap_tids =
				(ItemPointerData *) (so->bitmap_tids ? repalloc_huge(so->bitmap_tids, bytes)
													 : MemoryContextAllocHuge(so->cxt, bytes));
		}
		so->bitmap_tids[so->nbitmap++] = e.tid;
		return;
	}
	if (so->nhits == so->caphits)
	{
		so->caphits = so->caphits ? 2 * so->caphits : 512;
		so->hits = (GeoidxScanHit *) geoidx_scan_array(so, GEOIDX_SCAN_HITS,
													   sizeof(GeoidxScanHit) * so->caphits);
	}
	GeoidxScanHit *h = &so->hits[so->nhits++];
	h->tid = e.tid;
	h->kind = (uint8) GeoidxEntryRowKind(&e);
	h->recheck = recheck;
	h->x = e.x;
	h->y = e.y;
	h->payload = keep_payload(so, payload, so->batch_cxt);
}

/* Tell whether an entry satisfies the region keys: a point exactly, NULL and EMPTY by the rules. */
bool
entry_matches(GeoidxScanOpaque so, const GeoidxLeafEntry &e)
{
	switch (GeoidxEntryKind(&e))
	{
		case GEOIDX_KIND_POINT:
			return so->nregions == 0 ||
				   geoidx::spatial_point_matches(so->keys, geoidx::stored_lonlat(e.x, e.y));
		case GEOIDX_KIND_NULL:
			return geoidx::spatial_null_matches(so->keys);
		default:
			return geoidx::spatial_empty_matches(so->keys);
	}
}

/*
 * Hand on an entry of a scan with a shape operator's key, which every entry
 * goes through (scan_probe.cc decides it): an ordered scan pushes a point at
 * its exact distance and a shape at its box's bound, each knowing whether the
 * executor must recheck it.
 */
void
visit_probed(GeoidxScanOpaque so, Page page, const GeoidxLeafEntry &e, IndexTuple payload,
			 bool ordered)
{
	bool by_box;
	GeoidxEntryVerdict v = geoidx_probe_entry(so, page, &e, &by_box);
	bool shape = GeoidxEntryIsShape(&e);
	geoidx_count_decision(v, shape, by_box);
	if (v == GEOIDX_ENTRY_REJECT)
		return;
	bool recheck = v == GEOIDX_ENTRY_RECHECK;
	if (!ordered)
	{
		emit(so, e, payload, recheck);
		return;
	}
	uint64 row = geoidx_tid_to_row(&e.tid);
	const void *kept = keep_payload(so, payload, so->cxt);
	if (shape)
		geoidx::knn_push_bound(&so->knn, row, kept, (uint8) GEOIDX_KIND_SHAPE,
							   geoidx_shape_knn_bound(so, page, &e), !recheck);
	else if (GeoidxEntryIsPoint(&e))
		geoidx::knn_push_point(&so->knn, row, kept, e.x, e.y,
							   geoidx_key_distance(so, so->primary, e.x, e.y), !recheck);
	else
		geoidx::knn_push_last(&so->knn, row, kept, (uint8) GeoidxEntryKind(&e));
}

/*
 * Hand on an entry that is not visit_point's: any entry of a scan with a shape
 * operator's probe, a shape, or a NULL or EMPTY row (decided now; an ordered
 * scan returns them after every point).
 */
void
visit_entry(GeoidxScanOpaque so, Page page, const GeoidxLeafEntry &e, IndexTuple payload,
			geoidx::Verdict v, const geoidx::SearchItem *knn_page)
{
	if (so->nprobes > 0)
	{
		visit_probed(so, page, e, payload, knn_page != NULL);
		return;
	}
	Assert(!GeoidxEntryIsPoint(&e));
	if (GeoidxEntryIsShape(&e))
	{
		/* a shape is decided by its box (or pieces) where they decide, else rechecked */
		bool by_box = true;
		geoidx::Verdict sv = (v == geoidx::Verdict::inside || so->nregions == 0)
								 ? geoidx::Verdict::inside
								 : geoidx_shape_verdict(so, page, &e, &by_box);
		if (sv == geoidx::Verdict::outside)
		{
			geoidx_count_decision(GEOIDX_ENTRY_REJECT, true, by_box);
			return;
		}
		bool recheck = (sv != geoidx::Verdict::inside) && !so->shapes_exact;
		geoidx_count_decision(recheck ? GEOIDX_ENTRY_RECHECK : GEOIDX_ENTRY_MATCH, true, false);
		if (knn_page == NULL)
			emit(so, e, payload, recheck);
		else
			geoidx::knn_push_bound(&so->knn, geoidx_tid_to_row(&e.tid),
								   keep_payload(so, payload, so->cxt), (uint8) GEOIDX_KIND_SHAPE,
								   geoidx_shape_knn_bound(so, page, &e), !recheck);
		return;
	}
	if (!entry_matches(so, e))
		return;
	if (knn_page == NULL)
		emit(so, e, payload);
	else
		geoidx::knn_push_last(&so->knn, geoidx_tid_to_row(&e.tid),
							  keep_payload(so, payload, so->cxt), (uint8) GeoidxEntryKind(&e));
}

/*
 * Hand on a point in a scan without a shape operator's probe: an unordered
 * scan tests it now, an ordered one copies it into chunk for the frontier,
 * which tests it only if it surfaces. False for any other entry (visit_entry's).
 */
inline bool
visit_point(GeoidxScanOpaque so, const GeoidxLeafEntry &e, IndexTuple payload, geoidx::Verdict v,
			const geoidx::SearchItem *knn_page, geoidx::SearchChunk *chunk)
{
	if (!GeoidxEntryIsPoint(&e) || so->nprobes > 0)
		return false;
	if (knn_page != NULL)
		chunk->e[chunk->n++] = geoidx::ChunkEntry{geoidx_tid_to_row(&e.tid),
												  keep_payload(so, payload, so->cxt), e.x, e.y};
	else if (v == geoidx::Verdict::inside || entry_matches(so, e))
		emit(so, e, payload);
	return true;
}

/*
 * An unordered scan's verdict on a point of a chunk its circle cuts, from the
 * chunk's chord model: 1 or 0 as the exact test would answer, -1 where only
 * the exact test can tell (a point near the circle).
 */
inline int
chord_verdict(GeoidxScanOpaque so, const geoidx::ChordModel &model, const GeoidxLeafEntry &e)
{
	geoidx::Chord2Range r;
	return geoidx::chord_model_match(so->chord_keys, model, geoidx::stored_lonlat(e.x, e.y), &r);
}

/*
 * Hand on an entry whose payload passed the filters: a point of an unordered
 * scan decided by the chunk's chord model (model, or NULL) where it decides,
 * else by visit_point or visit_entry.
 */
inline void
hand_on(GeoidxScanOpaque so, Page page, const GeoidxLeafEntry &e, IndexTuple payload,
		geoidx::Verdict v, const geoidx::SearchItem *knn_page, geoidx::SearchChunk *chunk,
		const geoidx::ChordModel *model)
{
	if (model != NULL && GeoidxEntryIsPoint(&e))
	{
		int d = chord_verdict(so, *model, e);
		if (d == 1)
			emit(so, e, payload);
		if (d >= 0)
			return;
	}
	if (!visit_point(so, e, payload, v, knn_page, chunk))
		visit_entry(so, page, e, payload, v, knn_page);
}

/* Whether a scan tests a leaf's payloads before reading its entries, where the payloads allow. */
inline bool
payloads_first(GeoidxScanOpaque so)
{
	return so->fixed_filter && so->point_null_test == 0 && so->payload_desc != NULL;
}

/*
 * Where the payloads of a leaf of n entries end, when they all have the size
 * GeoidxLeafPayloadSize says: then entry i's lies (i + 1) sizes below, and a
 * filter can test it without reading the entry. NULL when the page does not
 * say so, or its payload area disagrees (it is read the general way).
 */
inline const char *
uniform_payloads(Page page, int n)
{
	int size = GeoidxLeafPayloadSize(page);
	if (size == 0 || ((PageHeader) page)->pd_upper != GeoidxLeafTop(page) - n * size)
		return NULL;
	return (const char *) page + GeoidxLeafTop(page);
}

/* Where a leaf's payloads end, when this scan tests them before the entries and they allow it. */
inline const char *
payloads_first_top(GeoidxScanOpaque so, Page page, int n)
{
	return payloads_first(so) ? uniform_payloads(page, n) : NULL;
}

static_assert(GEOIDX_CHUNK == 32, "a chunk's entries are the bits of a uint32");

/* The bits of a chunk's entries first .. end-1, from first. */
inline uint32
chunk_bits(int first, int end)
{
	return end - first >= 32 ? ~UINT32_C(0) : (UINT32_C(1) << (end - first)) - 1;
}

/*
 * The entries first .. end-1 of a leaf that may pass the scan's filters, as
 * bits from first: those whose tag is one the filter asks for, on a leaf with
 * tags, and all of them otherwise.
 */
inline uint32
tag_candidates(GeoidxScanOpaque so, Page page, int first, int end)
{
	if (!so->tag_filter || !GeoidxLeafHasTags(page))
		return chunk_bits(first, end);
	const uint8 *tags = GeoidxLeafTags(page) + first;
	uint32 match = so->tag_one >= 0 ? geoidx::tags_equal(tags, (uint8) so->tag_one)
									: geoidx::tags_in_set(tags, so->tag_set);
	return match & chunk_bits(first, end);
}

/* Whether a leaf's tags decide the scan's filters, so that no payload need be read. */
inline bool
tags_decide(GeoidxScanOpaque so, Page page)
{
	return so->tags_decide && GeoidxLeafHasTags(page);
}

/*
 * Of the candidate entries of a chunk (bits from first), those whose uniform
 * payloads (below top, size bytes each) pass the filters, each entry asked
 * for as it passes: a leaf's chunks are all tested before the first is
 * visited, so that the misses of the entries to read overlap the tests of the
 * payloads after them (bench/PROFILES.md, KF). Where the tags decide, the
 * candidates pass with no payload read.
 */
inline uint32
passing_payloads(GeoidxScanOpaque so, Page page, const char *top, int size, int first,
				 uint32 candidates)
{
	uint32 passing = 0;
	bool decided = tags_decide(so, page);
	for (uint32 m = candidates; m != 0; m &= m - 1)
	{
		int i = first + pg_rightmost_one_pos32(m);
		if (decided || geoidx_payload_passes(so, (IndexTuple) (top - (i + 1) * size)))
		{
			__builtin_prefetch(&GeoidxLeafEntries(page)[i]);
			passing |= UINT32_C(1) << (i - first);
		}
	}
	return passing;
}

/*
 * Hand the matching entries of one leaf chunk (entries first .. first+31) to
 * the sink. Only the candidates are considered: the entries whose tags the
 * filter asks for (tag_candidates, as bits from first), all of them on a leaf
 * without tags. Where every filter reads a fixed place of a payload and the
 * leaf's payloads have one size, the payloads are tested first (or not at
 * all, where the tags decide) and only the entries of those that pass are
 * read: a rare category reads the chunk's tags and not its entries
 * (bench/PROFILES.md, KF): top is then the leaf's payloads_first_top (NULL
 * otherwise), and passing what passing_payloads found, or NULL to test them
 * here. box is the chunk's, unpacked by the caller; it is read only by an
 * ordered scan or for a verdict of maybe.
 */
void
visit_chunk(IndexScanDesc scan, GeoidxScanOpaque so, BlockNumber blk, Page page, int first,
			geoidx::Verdict v, const geoidx::Box3 &box, const geoidx::SearchItem *knn_page,
			const char *top, const uint32 *passing, uint32 candidates)
{
	GeoidxLeafEntry *e = GeoidxLeafEntries(page);
	int n = GeoidxPageCount(page);
	int end = Min(n, first + GEOIDX_CHUNK);
	/* an ordered scan copies the chunk's points once, into the buffer the frontier keeps */
	geoidx::SearchChunk *chunk = NULL;
	if (knn_page != NULL)
	{
		chunk = geoidx::knn_chunk_buffer(&so->knn);
		chunk->n = 0;
		chunk->in_region = (v == geoidx::Verdict::inside);
	}
	/* an unordered scan decides most points of a chunk its circle cuts without trigonometry */
	geoidx::ChordModel model;
	bool modelled = knn_page == NULL && v == geoidx::Verdict::maybe && so->nprobes == 0 &&
					so->chord_keys.n > 0 &&
					geoidx::chord_model_of_box(so->chord_centre, box, &model);
	if (chunk != NULL && so->payload_desc == NULL && so->point_null_test == 0 && so->nprobes == 0)
	{
		/* no payloads, filters or probes: every point goes to the frontier as it is */
		int m = 0;
		for (int i = first; i < end; i++)
		{
			if (likely(GeoidxEntryIsPoint(&e[i])))
				chunk->e[m++] =
					geoidx::ChunkEntry{geoidx_tid_to_row(&e[i].tid), NULL, e[i].x, e[i].y};
			else
				visit_entry(so, page, e[i], NULL, v, knn_page);
		}
		chunk->n = m;
	}
	else if (top != NULL)
	{
		int size = GeoidxLeafPayloadSize(page);
		uint32 pass = passing ? *passing : passing_payloads(so, page, top, size, first, candidates);
		for (; pass != 0; pass &= pass - 1)
		{
			int i = first + pg_rightmost_one_pos32(pass);
			IndexTuple payload = (IndexTuple) (top - (i + 1) * size);
			if (unlikely(GeoidxEntryPayloadOffset(&e[i]) != (char *) payload - (char *) page))
				geoidx_corrupted(
					scan->indexRelation, blk,
					"entry %d's payload is not where its page's uniform payloads put it", i);
			hand_on(so, page, e[i], payload, v, knn_page, chunk, modelled ? &model : NULL);
		}
	}
	else
		for (uint32 m = candidates; m != 0; m &= m - 1)
		{
			int i = first + pg_rightmost_one_pos32(m);
			/* pos IS NULL keeps the NULL rows only, pos IS NOT NULL all others (EMPTY too) */
			if (so->point_null_test != 0 && (GeoidxEntryKind(&e[i]) == GEOIDX_KIND_NULL) !=
												(so->point_null_test == GEOIDX_IS_NULL))
				continue;
			IndexTuple payload = so->payload_desc
									 ? geoidx_entry_payload(scan->indexRelation, blk, page, &e[i])
									 : NULL;
			if (!geoidx_payload_passes(so, payload))
				continue;
			hand_on(so, page, e[i], payload, v, knn_page, chunk, modelled ? &model : NULL);
		}
	if (chunk != NULL)
		geoidx::knn_add_chunk(&so->knn, chunk, box, *knn_page);
}

/*
 * A leaf_rest's record: which chunks of the leaf were left on it, and how the
 * leaf stood when read. While its LSN is unchanged the chunks are where they
 * were; after a change (an insert, a split, VACUUM) its rows may have moved,
 * within the leaf or to the pages split off it, which lie between it and its
 * right-link of then.
 */
static_assert(GEOIDX_LEAF_CHUNKS <= 64, "a leaf's chunks are bits of a uint64");

struct LeafRest
{
	XLogRecPtr lsn;
	BlockNumber rightlink;
	uint64 chunks; /* bit c: chunk c (entries 32c .. 32c+31) was left */
	int nhanded;
	uint64 handed[FLEXIBLE_ARRAY_MEMBER]; /* the rows the visit handed on: never again */
};

/* Put a leaf's chunks left on it on the frontier, as one leaf_rest item. */
void
leave_rest(GeoidxScanOpaque so, BlockNumber blk, Page page, XLogRecPtr lsn, uint64 chunks,
		   double raw_key, const uint64 *handed, int nhanded, const geoidx::SearchItem &leaf)
{
	LeafRest *rest = (LeafRest *) MemoryContextAlloc(so->cxt, offsetof(LeafRest, handed) +
																  sizeof(uint64) * (Size) nhanded);
	rest->lsn = lsn;
	rest->rightlink = GeoidxPageGetOpaque(page)->rightlink;
	rest->chunks = chunks;
	rest->nhanded = nhanded;
	memcpy(rest->handed, handed, sizeof(uint64) * (Size) nhanded);
	geoidx::knn_push_rest(&so->knn, blk, rest, raw_key, leaf);
}

bool
was_handed(const LeafRest *rest, uint64 row)
{
	for (int i = 0; i < rest->nhanded; i++)
		if (rest->handed[i] == row)
			return true;
	return false;
}

/*
 * Hand on every entry of a page that holds rows of a changed leaf (the leaf,
 * or a page split off it since) but those its visit handed on: the rows of
 * the chunks it left, wherever they went, each chunk keyed by its box now
 * and no nearer than the item (their boxes then). What else is there failed
 * the keys then (chunks outside), or came after the scan's snapshot.
 */
void
hand_on_moved(IndexScanDesc scan, GeoidxScanOpaque so, Page page, const LeafRest *rest,
			  const geoidx::SearchItem &item)
{
	GeoidxLeafEntry *e = GeoidxLeafEntries(page);
	int n = GeoidxPageCount(page);
	for (int first = 0; first < n; first += GEOIDX_CHUNK)
	{
		geoidx::Box3 box = geoidx_chunk_box(&GeoidxChunkBoxes(page)[first / GEOIDX_CHUNK]);
		geoidx::Verdict v = geoidx::spatial_classify(so->keys, box);
		if (v == geoidx::Verdict::outside)
			continue;
		geoidx::SearchChunk *chunk = geoidx::knn_chunk_buffer(&so->knn);
		chunk->n = 0;
		chunk->in_region = (v == geoidx::Verdict::inside);
		for (int i = first; i < Min(n, first + GEOIDX_CHUNK); i++)
		{
			uint64 row = geoidx_tid_to_row(&e[i].tid);
			if (was_handed(rest, row))
				continue;
			if (GeoidxEntryIsPoint(&e[i]))
				chunk->e[chunk->n++] = geoidx::ChunkEntry{row, NULL, e[i].x, e[i].y};
			else
				visit_entry(so, page, e[i], NULL, v, &item);
		}
		geoidx::knn_add_chunk(&so->knn, chunk, box, item);
	}
}

/*
 * The frontier's reader of a leaf_rest item: the chunks left on the leaf,
 * read from it again. If the leaf changed since, its rows are found again on
 * it and on the pages split off it (hand_on_moved).
 */
void
knn_visit_rest(void *ctx, geoidx::KnnSearch *, const geoidx::SearchItem &item)
{
	IndexScanDesc scan = (IndexScanDesc) ctx;
	GeoidxScanOpaque so = (GeoidxScanOpaque) scan->opaque;
	const LeafRest *rest = (const LeafRest *) item.rest;
	BlockNumber blk = item.blk;
	CHECK_FOR_INTERRUPTS();
	count_page(scan, so, blk);
	Page page;
	Buffer buf = read_page(scan, blk, 0, &page);
	if (geoidx_page_lsn(scan->indexRelation, buf) == rest->lsn)
	{
		const char *top = payloads_first_top(so, page, GeoidxPageCount(page));
		for (uint64 m = rest->chunks; m != 0; m &= m - 1)
		{
			int c = pg_rightmost_one_pos64(m);
			int first = c * GEOIDX_CHUNK;
			visit_chunk(
				scan, so, blk, page, first, geoidx::Verdict::inside,
				geoidx_chunk_box(&GeoidxChunkBoxes(page)[c]), &item, top, NULL,
				tag_candidates(so, page, first, Min(GeoidxPageCount(page), first + GEOIDX_CHUNK)));
		}
		UnlockReleaseBuffer(buf);
		return;
	}
	for (;;)
	{
		hand_on_moved(scan, so, page, rest, item);
		BlockNumber right = GeoidxPageGetOpaque(page)->rightlink;
		UnlockReleaseBuffer(buf);
		if (right == rest->rightlink || right == InvalidBlockNumber)
			return;
		check_link(scan->indexRelation, blk, right, "right-link");
		blk = right;
		CHECK_FOR_INTERRUPTS();
		count_page(scan, so, blk);
		buf = read_page(scan, blk, 0, &page);
	}
}

/* The frontier's page reader: visit the page of a popped page item. */
void
knn_visit(void *ctx, geoidx::KnnSearch *s, const geoidx::SearchItem &page)
{
	IndexScanDesc scan = (IndexScanDesc) ctx;
	geoidx_scan_page(scan, page.blk, page.level, (XLogRecPtr) page.parent_lsn, &page);
}

/* Grow the frontier's heap: the scan's kept array is the only one it has. */
geoidx::SearchItem *
knn_grow(void *ctx, geoidx::SearchItem *, size_t cap)
{
	GeoidxScanOpaque so = (GeoidxScanOpaque) ((IndexScanDesc) ctx)->opaque;
	return (geoidx::SearchItem *) geoidx_scan_array(so, GEOIDX_SCAN_FRONTIER,
													sizeof(geoidx::SearchItem) * cap);
}

/* Allocate a chunk copy in the scan's memory context. */
void *
knn_alloc(void *ctx, size_t bytes)
{
	GeoidxScanOpaque so = (GeoidxScanOpaque) ((IndexScanDesc) ctx)->opaque;
	return MemoryContextAlloc(so->cxt, bytes);
}

/* Free a chunk copy the frontier is done with. */
void
knn_release(void *, void *p)
{
	pfree(p);
}

} // namespace

/*
 * Visit page blk, which a link read at parent_lsn says is on the given level.
 * knn_page is the frontier's item for it in an ordered scan, NULL otherwise.
 */
void
geoidx_scan_page(IndexScanDesc scan, BlockNumber blk, int level, XLogRecPtr parent_lsn,
				 const geoidx::SearchItem *knn_page)
{
	GeoidxScanOpaque so = (GeoidxScanOpaque) scan->opaque;
	CHECK_FOR_INTERRUPTS();
	count_page(scan, so, blk);
	/* the page after this one, fetched while this one is worked on */
	if (knn_page != NULL)
		geoidx_prefetch_recent_page(scan->indexRelation, geoidx::knn_page_ahead(&so->knn),
									page_tail(so));
	Page page;
	Buffer buf = read_page(scan, blk, level, &page);
	XLogRecPtr lsn = geoidx_page_lsn(scan->indexRelation, buf);
	GeoidxPageOpaque op = GeoidxPageGetOpaque(page);

	/* follows_right is false for a missing right-link: only downlinks need the check */
	if (follows_right(page, parent_lsn, blk))
	{
		if (knn_page != NULL)
			geoidx::knn_push_right(&so->knn, *knn_page, op->rightlink, (int16) op->level);
		else
			push_ref(so, op->rightlink, parent_lsn, op->level);
	}

	geoidx::Verdict page_verdict = geoidx::spatial_classify(so->keys, *GeoidxPageGetBox(page));
	int n = GeoidxPageCount(page);
	if (page_verdict == geoidx::Verdict::outside)
		;
	else if (GeoidxPageIsLeaf(page))
	{
		/* the root may become an internal page: its chunks are never left behind */
		bool leave = knn_page != NULL && so->leave_rest && blk != GEOIDX_ROOT_BLKNO;
		uint64 left = 0;
		double left_key = std::numeric_limits<double>::infinity();
		int nhanded = 0;
		uint64 handed[GEOIDX_LEAF_CAPACITY];
		/* the chunks to visit, judged first so that their entries are fetched together */
		struct ChunkVisit
		{
			int first;
			uint32 candidates;
			geoidx::Verdict v;
			geoidx::Box3 box;
		} visits[GEOIDX_LEAF_CHUNKS];
		int nvisit = 0;
		bool entries_first = !payloads_first(so);
		for (int first = 0; first < n; first += GEOIDX_CHUNK)
		{
			int c = first / GEOIDX_CHUNK;
			/* no row of the chunk has a value the filter asks for */
			uint32 candidates = tag_candidates(so, page, first, Min(n, first + GEOIDX_CHUNK));
			if (candidates == 0)
				continue;
			geoidx::Box3 box{};
			geoidx::Verdict v = page_verdict;
			/* unpacked once: for the verdict of maybe, and for an ordered scan's frontier */
			if (v == geoidx::Verdict::maybe || knn_page != NULL)
				box = geoidx_chunk_box(&GeoidxChunkBoxes(page)[c]);
			if (v == geoidx::Verdict::maybe)
				v = geoidx::spatial_classify(so->keys, box);
			if (v == geoidx::Verdict::outside)
				continue;
			if (leave && v == geoidx::Verdict::inside)
			{
				left |= UINT64CONST(1) << c;
				left_key = Min(left_key, geoidx::knn_raw_box_key(&so->knn, box));
				continue;
			}
			if (entries_first)
				prefetch_entries(page, first, Min(n, first + GEOIDX_CHUNK));
			visits[nvisit++] = ChunkVisit{first, candidates, v, box};
		}
		/* a filter's payloads of every chunk first, the entries that pass asked for meanwhile */
		const char *top = payloads_first_top(so, page, n);
		uint32 passing[GEOIDX_LEAF_CHUNKS];
		if (top != NULL)
			for (int k = 0; k < nvisit; k++)
				passing[k] = passing_payloads(so, page, top, GeoidxLeafPayloadSize(page),
											  visits[k].first, visits[k].candidates);
		for (int k = 0; k < nvisit; k++)
		{
			const ChunkVisit &cv = visits[k];
			if (leave)
				for (int i = cv.first; i < Min(n, cv.first + GEOIDX_CHUNK); i++)
					handed[nhanded++] = geoidx_tid_to_row(&GeoidxLeafEntries(page)[i].tid);
			visit_chunk(scan, so, blk, page, cv.first, cv.v, cv.box, knn_page, top,
						top != NULL ? &passing[k] : NULL, cv.candidates);
		}
		if (left != 0)
			leave_rest(so, blk, page, lsn, left, left_key, handed, nhanded, *knn_page);
	}
	else
	{
		GeoidxInternalEntry *e = GeoidxInternalEntries(page);
		int child_level = op->level - 1;
		if (knn_page != NULL)
		{
			/* the frontier judges the children against the keys, when it pays as they come up */
			geoidx::ChildPages *children = geoidx::knn_begin_children(
				&so->knn, n, (int16) child_level, lsn, page_verdict == geoidx::Verdict::inside);
			for (int i = 0; i < n; i++)
			{
				check_link(scan->indexRelation, blk, e[i].child, "downlink");
				geoidx::knn_add_child(&so->knn, children, e[i].box, e[i].child);
			}
			geoidx::knn_end_children(&so->knn, children);
		}
		else
			/* backwards, so that the stack reads the children in index order (CLUSTER) */
			for (int i = n - 1; i >= 0; i--)
			{
				if (page_verdict != geoidx::Verdict::inside &&
					geoidx::spatial_classify(so->keys, e[i].box) == geoidx::Verdict::outside)
					continue;
				check_link(scan->indexRelation, blk, e[i].child, "downlink");
				push_ref(so, e[i].child, lsn, child_level);
			}
	}
	UnlockReleaseBuffer(buf);
}

/* The frontier's callbacks for an ordered scan of scan. */
geoidx::KnnCallbacks
geoidx_knn_callbacks(IndexScanDesc scan)
{
	return geoidx::KnnCallbacks{knn_visit, knn_visit_rest, knn_grow, knn_alloc, knn_release, scan};
}
