/*
 * Running scans: what gistget.c is to GiST. Unordered scans (radius, full,
 * bitmap) read the tree depth first with a stack of pages and return a batch
 * of pages' matches in heap order before reading the next; ordered scans
 * (ORDER BY <~>) take rows from the core's best-first search, which reads
 * pages through the visitor of scan_page.cc. The distance handed to the executor is exact
 * (xs_recheckorderby = false), or a lower bound of it for a point the search returned in
 * order without its geodesic (order_only: the executor reads the distances of an index
 * scan's rows only to merge them with its reorder queue, which only a shape fills), and no
 * row needs a heap recheck, except shapes: a shape
 * its box does not decide is handed over for the heap recheck of the conditions, and in
 * an ordered scan with a lower bound of its distance (xs_recheckorderby: the executor
 * computes the distance and reorders).
 */
#include <limits>

#include "geoidx.h"

extern "C"
{
#include "nodes/tidbitmap.h"
}

namespace
{

/* Count the scan and put the root on the stack or the frontier. */
void
start_scan(IndexScanDesc scan, GeoidxScanOpaque so)
{
	/* pg_stat_user_indexes.idx_scan: one per scan, as the built-in AMs count */
	pgstat_count_index_scan(scan->indexRelation);
	so->started = true;
	if (so->sink == GEOIDX_SINK_KNN)
		geoidx::knn_push_root(&so->knn, GEOIDX_ROOT_BLKNO);
	else
	{
		so->stack[0].blk = GEOIDX_ROOT_BLKNO;
		so->stack[0].parent_lsn = InvalidXLogRecPtr;
		so->stack[0].level = geoidx::kAnyLevel;
		so->nstack = 1;
	}
}

/* Read the next page off the stack of an unordered scan. */
void
next_page(IndexScanDesc scan, GeoidxScanOpaque so)
{
	GeoidxPageRef ref = so->stack[--so->nstack];
	geoidx_scan_page(scan, ref.blk, ref.level, ref.parent_lsn, NULL);
}

struct RunSortArg
{
	int nkeys;
	const double *keys; /* nkeys per run item */
};

/* Order two rows of a tie run by the ORDER BY keys after the primary. */
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

/* Append a row to the tie run. */
void
run_push(GeoidxScanOpaque so, const geoidx::SearchItem &item)
{
	if (so->nrun == so->caprun)
	{
		so->caprun = so->caprun ? 2 * so->caprun : 64;
		Size bytes = sizeof(geoidx::SearchItem) * so->caprun;
		so->run = (geoidx::SearchItem *) (so->run ? repalloc_huge(so->run, bytes)
												  : MemoryContextAllocHuge(so->cxt, bytes));
	}
	so->run[so->nrun++] = item;
}

/*
 * Gather every row at the distance of first, the next row of the search,
 * and sort them by the ORDER BY keys after the primary: the executor expects
 * the rows of one primary distance in the order of the next key.
 */
void
gather_run(IndexScanDesc scan, GeoidxScanOpaque so, const geoidx::SearchItem &first)
{
	so->nrun = so->runpos = 0;
	run_push(so, first);
	geoidx::SearchItem t;
	while (geoidx::knn_next(&so->knn, first.dist, &t))
		run_push(so, t);
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
			/* a shape's later keys are lower bounds too (scan_result.cc): it goes first */
			keys[(size_t) i * nkeys + k] =
				so->run[i].row_kind == GEOIDX_KIND_SHAPE ? -std::numeric_limits<double>::infinity()
				: so->key_ok[key] && so->run[i].row_kind == GEOIDX_KIND_POINT
					? geoidx_key_distance(so, key, so->run[i].x, so->run[i].y)
					: 0.0;
		}
	}
	RunSortArg arg = {nkeys, keys};
	qsort_arg(order, so->nrun, sizeof(int), run_cmp, &arg);
	geoidx::SearchItem *sorted = (geoidx::SearchItem *) palloc_extended(
		sizeof(geoidx::SearchItem) * so->caprun, MCXT_ALLOC_HUGE);
	for (int i = 0; i < so->nrun; i++)
		sorted[i] = so->run[order[i]];
	pfree(so->run);
	pfree(keys);
	pfree(order);
	so->run = sorted;
}

/* Hand the executor a row the search returned. */
void
return_item(IndexScanDesc scan, const geoidx::SearchItem &item)
{
	ItemPointerData tid;
	geoidx_row_to_tid(item.row, &tid);
	GeoidxScanOpaque so = (GeoidxScanOpaque) scan->opaque;
	/* with a shape operator's key every row carries its own verdict (scan_page.cc) */
	bool recheck = !item.in_region && (item.row_kind == GEOIDX_KIND_SHAPE ||
									   (so->nprobes > 0 && item.row_kind == GEOIDX_KIND_POINT));
	/*
	 * A shape goes to the executor's reorder queue, which compares the next
	 * rows' distances with its own: from here on they must be exact.
	 */
	if (item.row_kind == GEOIDX_KIND_SHAPE)
		so->knn.order_only = false;
	geoidx_scan_set_result(scan, &tid, item.row_kind, item.x, item.y, item.dist,
						   (IndexTuple) item.payload, recheck,
						   item.kind != geoidx::ItemKind::bracketed);
}

/* Return the next row of an ordered scan: the search's next, or the next of a tie run. */
bool
next_ordered(IndexScanDesc scan, GeoidxScanOpaque so)
{
	/* the executor computed a distance the scan left out: from now on the scan does */
	if (so->knn.order_only && geoidx_distance_memo_take_wanted())
		so->knn.order_only = false;
	if (so->runpos >= so->nrun)
	{
		geoidx::SearchItem item;
		if (!geoidx::knn_next(&so->knn, std::numeric_limits<double>::infinity(), &item))
			return false;
		if (!so->tie_keys)
		{
			return_item(scan, item);
			return true;
		}
		gather_run(scan, so, item);
	}
	return_item(scan, so->run[so->runpos++]);
	return true;
}

/*
 * The most rows a page can add to a batch: a batch stops growing before the
 * next page could take it past what heap order keys can number.
 */
constexpr int kBatchPageRows = GEOIDX_ENTRIES_SPACE / sizeof(GeoidxLeafEntry);
constexpr int kBatchMax = (int) geoidx::kHeapOrderMax - kBatchPageRows;
static_assert(kBatchMax > 8 * kBatchPageRows, "a batch must hold many pages");

/*
 * The rows the batch after one of nhits rows on blocks heap pages should
 * gather. The first batch is one page, for a LIMIT; then eight times the last,
 * while a batch's pages are few against the table's. A batch that already read
 * an eighth of the table's pages says the answer is spread over all of them:
 * each further batch would read most of the table again (three sweeps of
 * seed 1's 711 pages for a 17k-row answer, bench/PROFILES.md, limit R1), so
 * the next gathers the rest of the answer, up to what one batch can order.
 */
int
next_batch_target(IndexScanDesc scan, GeoidxScanOpaque so, BlockNumber blocks)
{
	if (so->heap_blocks == InvalidBlockNumber && scan->heapRelation != NULL)
		so->heap_blocks = RelationGetNumberOfBlocks(scan->heapRelation);
	if (so->heap_blocks != InvalidBlockNumber && (uint64) blocks * 8 >= so->heap_blocks)
		return kBatchMax;
	return Min(Max(1024, 8 * so->nhits), kBatchMax);
}

/*
 * Read the next batch of an unordered scan: pages until batch_target rows
 * match (or the tree is done), then their heap order, so that the executor
 * reads each heap page once per batch. An index-only scan reads no heap and
 * keeps to one page a batch, in index order.
 */
void
next_batch(IndexScanDesc scan, GeoidxScanOpaque so)
{
	/* the batch before sets this one's size, now that the scan asks for it */
	if (so->batch_blocks > 0)
		so->batch_target = next_batch_target(scan, so, so->batch_blocks);
	so->batch_blocks = 0;
	so->nhits = so->pos = 0;
	so->sorted = NULL;
	MemoryContextReset(so->batch_cxt);
	do
		next_page(scan, so);
	while (so->nstack > 0 && so->nhits < so->batch_target && so->nhits < kBatchMax);
	if (scan->xs_want_itup || so->nhits < 2)
		return;
	uint64 *keys =
		(uint64 *) geoidx_scan_array(so, GEOIDX_SCAN_ORDER, 2 * sizeof(uint64) * so->nhits);
	for (int i = 0; i < so->nhits; i++)
		keys[i] = geoidx::heap_order_key(ItemPointerGetBlockNumberNoCheck(&so->hits[i].tid),
										 ItemPointerGetOffsetNumberNoCheck(&so->hits[i].tid), i);
	geoidx::sort_heap_order(keys, keys + so->nhits, so->nhits);
	/*
	 * The rows copied in that order, their reads ahead of the copy: read one
	 * at a time between the executor's heap fetches, each row of a large
	 * batch was a cache miss of its own (bench/PROFILES.md, limit R1).
	 */
	GeoidxScanHit *sorted = (GeoidxScanHit *) geoidx_scan_array(so, GEOIDX_SCAN_SORTED,
																sizeof(GeoidxScanHit) * so->nhits);
	constexpr int kAhead = 8;
	BlockNumber blocks = 0;
	for (int j = 0; j < so->nhits; j++)
	{
		if (j + kAhead < so->nhits)
			__builtin_prefetch(&so->hits[geoidx::heap_order_place(keys[j + kAhead])]);
		sorted[j] = so->hits[geoidx::heap_order_place(keys[j])];
		blocks +=
			j == 0 || geoidx::heap_order_block(keys[j]) != geoidx::heap_order_block(keys[j - 1]);
	}
	so->sorted = sorted;
	so->batch_blocks = blocks;
}

/* Return the next row of an unordered scan, reading batches until one has a match. */
bool
next_unordered(IndexScanDesc scan, GeoidxScanOpaque so)
{
	while (so->pos >= so->nhits && so->nstack > 0)
		next_batch(scan, so);
	if (so->pos >= so->nhits)
		return false;
	const GeoidxScanHit &h = so->sorted ? so->sorted[so->pos] : so->hits[so->pos];
	so->pos++;
	geoidx_scan_set_result(scan, &h.tid, h.kind, h.x, h.y, 0.0, h.payload, h.recheck);
	return true;
}

} // namespace

/*
 * Return the next matching row (amgettuple): in distance order for an
 * ordered scan, else a batch's rows at a time in heap order.
 */
bool
geoidx_gettuple(IndexScanDesc scan, ScanDirection dir)
{
	GeoidxScanOpaque so = (GeoidxScanOpaque) scan->opaque;
	if (so->no_match)
		return false;
	MemoryContext old = MemoryContextSwitchTo(so->cxt);
	if (!so->started)
	{
		so->sink = so->ordered ? GEOIDX_SINK_KNN : GEOIDX_SINK_HITS;
		start_scan(scan, so);
	}
	bool found = so->ordered ? next_ordered(scan, so) : next_unordered(scan, so);
	MemoryContextSwitchTo(old);
	return found;
}

/* Add every matching row to the bitmap (amgetbitmap), a page at a time. */
int64
geoidx_getbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	GeoidxScanOpaque so = (GeoidxScanOpaque) scan->opaque;
	if (so->no_match)
		return 0;
	MemoryContext old = MemoryContextSwitchTo(so->cxt);
	int64 total = 0;
	so->ordered = false; /* a bitmap has no order */
	so->sink = GEOIDX_SINK_BITMAP;
	if (!so->started)
		start_scan(scan, so);
	while (so->nstack > 0)
	{
		so->nbitmap = so->nrecheck = 0;
		next_page(scan, so);
		if (so->nbitmap > 0)
		{
			tbm_add_tuples(tbm, so->bitmap_tids, so->nbitmap, false);
			total += so->nbitmap;
		}
		if (so->nrecheck > 0)
		{
			/* a heap page of a shape to recheck becomes lossy for the rows of its TIDs only */
			tbm_add_tuples(tbm, so->bitmap_recheck, so->nrecheck, true);
			total += so->nrecheck;
		}
	}
	MemoryContextSwitchTo(old);
	return total;
}
