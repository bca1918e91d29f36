/*
 * geoidx_verify(index) and geoidx_stats(index): what a DBA runs to trust an
 * index and to see its shape; geoidx_index_format(index), geoidx_lib_version()
 * and geoidx_lib_format(): what to check after an upgrade.
 *
 * geoidx_verify walks the tree from the root and checks every invariant the
 * search relies on: page headers, levels (all leaves on level 0, each child one
 * level below its parent), every page reachable exactly once, each page's box
 * covering its entries and the parent's copy of the box covering the page,
 * finite coordinates. Then it reads the heap (ShareLock: writers wait, readers
 * do not) and checks that every row that must be indexed is indexed exactly
 * once, with the same coordinates. The first fault is an error that names it.
 */
#include <cmath>

#include <type_traits>

#include "shape_pieces.h"

#include "geoidx.h"

extern "C"
{
#include "access/table.h"
#include "catalog/index.h"
#include "funcapi.h"
#include "utils/acl.h"
#include "utils/regproc.h"
}

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_verify);
	PG_FUNCTION_INFO_V1(geoidx_stats);
	PG_FUNCTION_INFO_V1(geoidx_index_format);
	PG_FUNCTION_INFO_V1(geoidx_lib_version);
	PG_FUNCTION_INFO_V1(geoidx_lib_format);
}

namespace
{

struct IndexedTid
{
	ItemPointerData tid;
	double x;
	double y;
	int kind;
	BlockNumber blk;    /* the leaf that holds the entry, for the error */
	IndexTuple payload; /* a copy; NULL for a single-column index */
};
static_assert(std::is_trivially_destructible_v<IndexedTid>,
			  "lives in palloc'd memory or on the stack across ereport: no destructor");

struct Pending
{
	BlockNumber blk;
	uint16 level;
	geoidx::Box3 bound; /* the parent's entry box: covers the page */
	bool has_bound;
};
static_assert(std::is_trivially_destructible_v<Pending>,
			  "lives in palloc'd memory or on the stack across ereport: no destructor");

struct VerifyState
{
	Relation index;
	IndexedTid *tids;
	int64 ntids;
	int64 captids;
	int64 heap_checked;
	const char *what;
	TupleDesc payload_desc;
	uint32 format;        /* the metapage's */
	MemoryContext rowcxt; /* what checking one heap row allocates (a polygon's prepared form) */
};
static_assert(std::is_trivially_destructible_v<VerifyState>,
			  "lives in palloc'd memory or on the stack across ereport: no destructor");

/* Report a fault found on block blk: the one corrupted-page error of page.cc. */
void
fail(Relation index, const char *detail, BlockNumber blk)
{
	geoidx_corrupted(index, blk, "%s", detail);
}

/*
 * Report a heap row that has no index entry: no index block to name, so the
 * error says which row, with the same code and hint as a corrupted page.
 */
void
not_indexed(Relation index, ItemPointer tid)
{
	ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
					errmsg("index \"%s\" is not valid: heap tuple (%u,%u) is not indexed",
						   RelationGetRelationName(index), ItemPointerGetBlockNumber(tid),
						   ItemPointerGetOffsetNumber(tid)),
					errhint("Please REINDEX it.")));
}

/* Order indexed entries by heap TID, for the duplicate check and the heap lookups. */
int
tid_cmp(const void *a, const void *b)
{
	return ItemPointerCompare((ItemPointer) & ((const IndexedTid *) a)->tid,
							  (ItemPointer) & ((const IndexedTid *) b)->tid);
}

/*
 * Check, from the catalogs and before any lock is taken, that indexoid is an
 * index the user may look at: geoidx_verify (which ShareLocks the table) needs
 * its owner, geoidx_stats SELECT on the table. A wrong relation is a clear
 * error, and a role without the right cannot queue a lock on someone else's
 * table. Returns the table.
 */
Oid
check_target(Oid indexoid, bool need_owner)
{
	char relkind = get_rel_relkind(indexoid);
	if (relkind == '\0')
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
						errmsg("relation with OID %u does not exist", indexoid)));
	if (relkind != RELKIND_INDEX)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a geoidx index", get_rel_name(indexoid)),
				 relkind == RELKIND_PARTITIONED_INDEX ? errhint("Name the index of one partition.")
													  : 0));
	Oid heapoid = IndexGetRelation(indexoid, false);
	Oid user = GetUserId();
	if (need_owner)
	{
		if (!pg_class_ownercheck(heapoid, user))
			aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_INDEX, get_rel_name(indexoid));
	}
	else if (!pg_class_ownercheck(heapoid, user) &&
			 pg_class_aclcheck(heapoid, user, ACL_SELECT) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(heapoid));
	return heapoid;
}

/* Open an index and refuse one that is not geoidx's. */
Relation
open_geoidx(Oid indexoid, LOCKMODE lockmode)
{
	Relation index = index_open(indexoid, lockmode);
	if (index->rd_rel->relkind != RELKIND_INDEX || index->rd_indam == NULL ||
		index->rd_indam->ambuild != geoidx_build)
		ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
						errmsg("\"%s\" is not a geoidx index", RelationGetRelationName(index))));
	return index;
}

/*
 * Check a leaf's claim that every payload has one size (what lets a filter
 * find entry i's payload without reading the entry, scan_page.cc).
 */
void
check_uniform_payloads(Relation index, BlockNumber blk, Page page)
{
	int size = GeoidxLeafPayloadSize(page);
	if (size == 0)
		return;
	int n = GeoidxPageCount(page);
	if (size != (int) MAXALIGN(size) ||
		((PageHeader) page)->pd_upper != GeoidxLeafTop(page) - n * size)
		fail(index,
			 psprintf("the page claims payloads of %d bytes its payload area does not hold", size),
			 blk);
	GeoidxLeafEntry *e = GeoidxLeafEntries(page);
	for (int i = 0; i < n; i++)
	{
		int off = GeoidxEntryPayloadOffset(&e[i]);
		if (off != GeoidxLeafTop(page) - (i + 1) * size ||
			(int) MAXALIGN(IndexTupleSize((IndexTuple) ((char *) page + off))) != size)
			fail(index,
				 psprintf("entry %d's payload is not the %d bytes where the page's uniform "
						  "payloads put it",
						  i, size),
				 blk);
	}
}

/*
 * Tell whether a page is all zeroes: what a crash leaves when it came between extending the
 * file for a split and logging the split: nothing links to it, and it is fine.
 */
bool
unused_page(Relation index, BlockNumber blk)
{
	Buffer buf = ReadBuffer(index, blk);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	bool unused = PageIsNew(BufferGetPage(buf));
	UnlockReleaseBuffer(buf);
	return unused;
}

/* Walk the tree from the root, checking every page and collecting every leaf entry. */
void
walk_tree(VerifyState *vs)
{
	Relation index = vs->index;
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	bool *seen = (bool *) palloc0(sizeof(bool) * Max(nblocks, 2));
	int cap = 256, n = 0;
	Pending *stack = (Pending *) palloc(sizeof(Pending) * cap);

	if (nblocks < 2)
		fail(index, "the index has no root page", nblocks);
	/* the tags a leaf of this index has, if any */
	const int index_summary_kind =
		(geoidx_leaf_flags(index) & GEOIDX_F_SUMMARY_MASK) >> GEOIDX_F_SUMMARY_SHIFT;

	/* the root's level tells the depth */
	Buffer rbuf = ReadBuffer(index, GEOIDX_ROOT_BLKNO);
	LockBuffer(rbuf, BUFFER_LOCK_SHARE);
	geoidx_check_page(index, rbuf, BufferGetPage(rbuf));
	uint16 root_level = GeoidxPageGetOpaque(BufferGetPage(rbuf))->level;
	UnlockReleaseBuffer(rbuf);

	stack[n++] = Pending{GEOIDX_ROOT_BLKNO, root_level, geoidx::box_empty(), false};
	while (n > 0)
	{
		Pending p = stack[--n];
		CHECK_FOR_INTERRUPTS();
		if (p.blk >= nblocks || p.blk <= GEOIDX_METAPAGE_BLKNO)
			fail(index, psprintf("a link points to block %u, outside 1..%u", p.blk, nblocks - 1),
				 p.blk);
		if (seen[p.blk])
			fail(index, "the page is reachable twice", p.blk);
		seen[p.blk] = true;

		Buffer buf = ReadBuffer(index, p.blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		Page page = BufferGetPage(buf);
		geoidx_check_page(index, buf, page);
		GeoidxPageOpaque op = GeoidxPageGetOpaque(page);
		if (op->flags & GEOIDX_F_META)
			fail(index, "a link points to the metapage", p.blk);
		if (op->level != p.level)
			fail(index,
				 psprintf("the page is on level %u, its parent expects level %u", op->level,
						  p.level),
				 p.blk);
		const geoidx::Box3 &box = *GeoidxPageGetBox(page);
		if (p.has_bound && !geoidx::box_contains(p.bound, box))
			fail(index, "the parent's entry does not cover the page's box", p.blk);

		int count = GeoidxPageCount(page);
		if (GeoidxPageIsLeaf(page))
		{
			GeoidxLeafEntry *e = GeoidxLeafEntries(page);
			int summary_kind = GeoidxLeafSummaryKind(page);
			/* a leaf written before tags were kept (0.1) has none */
			if (summary_kind != 0 && summary_kind != index_summary_kind)
				fail(index,
					 psprintf("the leaf's tags are of kind %d, not %d as its index's first column "
							  "after the point",
							  summary_kind, index_summary_kind),
					 p.blk);
			const uint8 *tags = GeoidxLeafHasTags(page) ? GeoidxLeafTags(page) : NULL;
			if (tags != NULL)
				for (int i = count; i < GEOIDX_TAG_CAPACITY; i++)
					if (tags[i] != geoidx::kTagNull)
						fail(index, psprintf("the tag of entry %d, past the last entry, is set", i),
							 p.blk);
			for (int i = 0; i < count; i++)
			{
				if (!GeoidxEntryIsShape(&e[i]) &&
					(!std::isfinite(e[i].x) || !std::isfinite(e[i].y)))
					fail(index, psprintf("entry %d has a coordinate that is not finite", i), p.blk);
				if (!ItemPointerIsValid(&e[i].tid))
					fail(index, psprintf("entry %d has an invalid heap TID", i), p.blk);
				if (GeoidxEntryKind(&e[i]) > GEOIDX_KIND_SHAPE_PLANAR_GRID_PIECES)
					fail(index, psprintf("entry %d has unknown flags 0x%04x", i, e[i].flags),
						 p.blk);
				if (GeoidxEntryIsShape(&e[i]))
				{
					if (vs->format == GEOIDX_FORMAT_POINTS_ONLY)
						fail(index,
							 psprintf("entry %d is a shape in an index of the points-only format",
									  i),
							 p.blk);
					geoidx::Box3 sb = GeoidxEntryShapeBox(&e[i]);
					for (int a = 0; a < 3; a++)
						if (!(sb.lo[a] <= sb.hi[a]))
							fail(index, psprintf("entry %d is a shape with an inverted box", i),
								 p.blk);
				}
				IndexTuple payload = NULL;
				bool grid = GeoidxEntryHasGrid(&e[i]);
				if ((GeoidxEntryPayloadOffset(&e[i]) != 0) != (vs->payload_desc != NULL || grid))
					fail(index,
						 psprintf("entry %d %s a payload", i,
								  vs->payload_desc || grid ? "lacks"
														   : "of a single-column index has"),
						 p.blk);
				if (vs->payload_desc != NULL || grid)
				{
					IndexTuple t = geoidx_entry_payload(index, p.blk, page, &e[i]);
					geoidx::InteriorGrid g;
					if (grid && !geoidx_entry_grid(page, &e[i], &g))
						fail(index, psprintf("entry %d has a payload too short for its grid", i),
							 p.blk);
					geoidx::ShapePieces pieces;
					geoidx::InteriorGrid piece_grids[geoidx::kMaxPieces];
					if (GeoidxEntryHasPieces(&e[i]) &&
						!geoidx_entry_pieces(page, &e[i], &pieces, piece_grids))
						fail(index,
							 psprintf("entry %d has a payload that does not hold its pieces", i),
							 p.blk);
					payload = (IndexTuple) palloc(IndexTupleSize(t));
					memcpy(payload, t, IndexTupleSize(t));
					if (tags != NULL && tags[i] != geoidx_payload_tag(payload, summary_kind))
						fail(index,
							 psprintf("the tag of entry %d is %d, not its value's %d", i, tags[i],
									  geoidx_payload_tag(payload, summary_kind)),
							 p.blk);
				}
				geoidx::Box3 eb;
				if (geoidx_entry_box(&e[i], &eb))
				{
					if (!geoidx::box_contains(box, eb))
						fail(index, psprintf("the page's box does not cover entry %d", i), p.blk);
					geoidx::Box3 chunk =
						geoidx_chunk_box(&GeoidxChunkBoxes(page)[i / GEOIDX_CHUNK]);
					if (!geoidx::box_contains(chunk, eb))
						fail(index,
							 psprintf("the box of chunk %d does not cover entry %d",
									  i / GEOIDX_CHUNK, i),
							 p.blk);
				}
				else if (e[i].x != 0.0 || e[i].y != 0.0)
					fail(index, psprintf("entry %d of a NULL or EMPTY row has coordinates", i),
						 p.blk);
				if (vs->ntids == vs->captids)
				{
					vs->captids *= 2;
					vs->tids =
						(IndexedTid *) repalloc_huge(vs->tids, sizeof(IndexedTid) * vs->captids);
				}
				vs->tids[vs->ntids++] =
					IndexedTid{e[i].tid, e[i].x, e[i].y, GeoidxEntryKind(&e[i]), p.blk, payload};
			}
			check_uniform_payloads(index, p.blk, page);
		}
		else
		{
			if (count == 0)
				fail(index, "an internal page has no entries", p.blk);
			GeoidxInternalEntry *e = GeoidxInternalEntries(page);
			for (int i = 0; i < count; i++)
			{
				if (!geoidx::box_contains(box, e[i].box))
					fail(index, psprintf("the page's box does not cover entry %d", i), p.blk);
				if (n == cap)
				{
					cap *= 2;
					stack = (Pending *) repalloc(stack, sizeof(Pending) * cap);
				}
				stack[n++] = Pending{e[i].child, (uint16) (op->level - 1), e[i].box, true};
			}
		}
		/* an unfinished split: the right sibling is covered by the same parent entry */
		if (op->flags & GEOIDX_F_FOLLOW_RIGHT)
		{
			if (n == cap)
			{
				cap *= 2;
				stack = (Pending *) repalloc(stack, sizeof(Pending) * cap);
			}
			stack[n++] = Pending{op->rightlink, op->level, p.bound, p.has_bound};
		}
		UnlockReleaseBuffer(buf);
	}

	for (BlockNumber b = GEOIDX_ROOT_BLKNO; b < nblocks; b++)
		if (!seen[b] && !unused_page(index, b))
			fail(index, "the page is not reachable from the root", b);
	pfree(seen);
	pfree(stack);
}

/* A planar grid kind's kind without the planar claim (an earlier build's). */
int
without_planar(int kind)
{
	if (kind == GEOIDX_KIND_SHAPE_PLANAR_GRID)
		return GEOIDX_KIND_SHAPE_GRID;
	if (kind == GEOIDX_KIND_SHAPE_PLANAR_GRID_PIECES)
		return GEOIDX_KIND_SHAPE_GRID_PIECES;
	return kind;
}

/*
 * Whether an entry's kind and payload are those of a row's (kind, payload):
 * the same bits, a grid kind standing for a planar grid kind.
 */
bool
grid_matches(const IndexedTid *hit, int kind, IndexTuple payload)
{
	if (hit->kind != kind && hit->kind != without_planar(kind))
		return false;
	if (payload == NULL || hit->payload == NULL)
		return payload == NULL && hit->payload == NULL;
	Size sz = IndexTupleSize(payload);
	return sz == IndexTupleSize(hit->payload) && memcmp(payload, hit->payload, sz) == 0;
}

/* Check that a heap row that must be indexed is, once, with the same values. */
void
check_heap_row(Relation index, ItemPointer tid, Datum *values, bool *isnull, bool tupleIsAlive,
			   VerifyState *vs)
{
	GeoidxPoint p;
	const geoidx::CoverShape *prepared = NULL;
	if (!isnull[0])
		geoidx_decode_indexed(index, values[0], vs->what, &p, vs->rowcxt, &prepared);
	GeoidxLeafEntry want;
	geoidx::Box3 want_box;
	geoidx_entry_set_value(&want, isnull[0] ? NULL : &p, &want_box);
	const GeoidxLeafEntry unbuilt = want;
	IndexTuple want_payload =
		geoidx_form_payload(index, values, isnull, &want, prepared, GEOIDX_GRID_CURRENT);
	int kind = GeoidxEntryKind(&want);
	static const char *const kind_names[] = {"a point",
											 "NULL",
											 "EMPTY",
											 "a shape",
											 "a shape with a grid",
											 "a shape with a planar grid",
											 "a shape with a grid and pieces",
											 "a shape with a planar grid and pieces"};
	static_assert(lengthof(kind_names) == GEOIDX_KIND_SHAPE_PLANAR_GRID_PIECES + 1,
				  "a name for every kind an entry can have");
	IndexedTid key;
	key.tid = *tid;
	IndexedTid *hit =
		(IndexedTid *) bsearch(&key, vs->tids, vs->ntids, sizeof(IndexedTid), tid_cmp);
	if (hit == NULL)
	{
		/*
		 * A recently dead row (tupleIsAlive false: deleted, but some snapshot
		 * may still see it) need not be indexed: CREATE INDEX and REINDEX
		 * CONCURRENTLY leave out the rows that were dead when they took their
		 * snapshots. Only rows every snapshot may see must be.
		 */
		if (!tupleIsAlive)
			return;
		not_indexed(index, tid);
	}
	BlockNumber hb = ItemPointerGetBlockNumber(tid);
	OffsetNumber ho = ItemPointerGetOffsetNumber(tid);
	/*
	 * A grid as an earlier build made it is as sound: by blocks (0.2 before
	 * the raster), and without the planar claim (before the planar grid).
	 */
	if (prepared != NULL && !grid_matches(hit, kind, want_payload))
	{
		GeoidxLeafEntry blocks = unbuilt;
		IndexTuple blocks_payload =
			geoidx_form_payload(index, values, isnull, &blocks, prepared, GEOIDX_GRID_BLOCKS);
		if (grid_matches(hit, GeoidxEntryKind(&blocks), blocks_payload))
		{
			kind = hit->kind;
			want_payload = blocks_payload;
		}
	}
	if (hit->kind != kind && hit->kind == without_planar(kind))
		kind = hit->kind;
	if (hit->kind != kind)
		geoidx_corrupted(index, hit->blk, "heap tuple (%u,%u) is indexed as %s but is %s", hb, ho,
						 kind_names[hit->kind], kind_names[kind]);
	/* bits, not numbers: a shape's packed box may read as a NaN */
	bool shape = GeoidxEntryIsShape(&want);
	if (shape && (memcmp(&hit->x, &want.x, sizeof(double)) != 0 ||
				  memcmp(&hit->y, &want.y, sizeof(double)) != 0))
		geoidx_corrupted(index, hit->blk,
						 "heap tuple (%u,%u) is a shape whose box is not the one its entry holds",
						 hb, ho);
	if (!shape && (hit->x != want.x || hit->y != want.y))
		geoidx_corrupted(index, hit->blk,
						 "heap tuple (%u,%u) is indexed at (%.17g %.17g) but holds (%.17g %.17g)",
						 hb, ho, hit->x, hit->y, want.x, want.y);
	if (want_payload != NULL)
	{
		/* the kinds agree, so both have a payload */
		Size sz = IndexTupleSize(want_payload);
		if (sz != IndexTupleSize(hit->payload) || memcmp(want_payload, hit->payload, sz) != 0)
			geoidx_corrupted(index, hit->blk,
							 kind >= GEOIDX_KIND_SHAPE_GRID
								 ? "heap tuple (%u,%u) has other values in the columns after the "
								   "point, or another interior grid or pieces, than its index entry"
								 : "heap tuple (%u,%u) has other values in the columns after the "
								   "point than its index entry",
							 hb, ho);
	}
	vs->heap_checked++;
}

void
heap_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull, bool tupleIsAlive,
			  void *state_)
{
	VerifyState *vs = (VerifyState *) state_;
	MemoryContext old = MemoryContextSwitchTo(vs->rowcxt);
	check_heap_row(index, tid, values, isnull, tupleIsAlive, vs);
	MemoryContextSwitchTo(old);
	MemoryContextReset(vs->rowcxt);
}

} // namespace

/* Check every invariant of an index and that it indexes every live heap row once (SQL). */
extern "C" Datum
geoidx_verify(PG_FUNCTION_ARGS)
{
	Oid indexoid = PG_GETARG_OID(0);
	Oid heapoid = check_target(indexoid, true);
	Relation heap = table_open(heapoid, ShareLock);
	Relation index = open_geoidx(indexoid, ShareLock);

	if (!index->rd_index->indisvalid)
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						errmsg("index \"%s\" is not valid (a failed CREATE INDEX CONCURRENTLY?)",
							   RelationGetRelationName(index))));
	uint32 format = geoidx_check_metapage(index);

	VerifyState vs;
	vs.index = index;
	vs.format = format;
	vs.captids = 1024;
	vs.ntids = 0;
	vs.heap_checked = 0;
	vs.tids = (IndexedTid *) palloc(sizeof(IndexedTid) * vs.captids);
	vs.what = geoidx_index_what(index);
	vs.payload_desc = geoidx_rel_info(index)->payload_desc;
	vs.rowcxt =
		AllocSetContextCreate(CurrentMemoryContext, "geoidx_verify row", ALLOCSET_DEFAULT_SIZES);
	walk_tree(&vs);

	qsort(vs.tids, vs.ntids, sizeof(IndexedTid), tid_cmp);
	for (int64 i = 1; i < vs.ntids; i++)
		if (ItemPointerEquals(&vs.tids[i - 1].tid, &vs.tids[i].tid))
			geoidx_corrupted(index, vs.tids[i].blk, "heap tuple (%u,%u) is indexed twice",
							 ItemPointerGetBlockNumber(&vs.tids[i].tid),
							 ItemPointerGetOffsetNumber(&vs.tids[i].tid));

	IndexInfo *info = BuildIndexInfo(index);
	table_index_build_scan(heap, index, info, false, false, heap_callback, &vs, NULL);

	index_close(index, ShareLock);
	table_close(heap, ShareLock);
	PG_RETURN_VOID();
}

/* Report an index's shape: pages, entries, depth, fill, unfinished splits (SQL). */
extern "C" Datum
geoidx_stats(PG_FUNCTION_ARGS)
{
	Oid indexoid = PG_GETARG_OID(0);
	(void) check_target(indexoid, false);
	Relation index = open_geoidx(indexoid, AccessShareLock);
	geoidx_check_metapage(index);

	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	int64 leaf_pages = 0, internal_pages = 0, entries = 0, incomplete = 0;
	double leaf_used = 0, internal_used = 0;
	int depth = 0;
	for (BlockNumber b = GEOIDX_ROOT_BLKNO; b < nblocks; b++)
	{
		CHECK_FOR_INTERRUPTS();
		Buffer buf = ReadBuffer(index, b);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		Page page = BufferGetPage(buf);
		if (PageIsNew(page) && b != GEOIDX_ROOT_BLKNO)
		{
			UnlockReleaseBuffer(buf); /* left by a crash mid-split: unused */
			continue;
		}
		geoidx_check_page(index, buf, page);
		GeoidxPageOpaque op = GeoidxPageGetOpaque(page);
		int n = GeoidxPageCount(page);
		if (b == GEOIDX_ROOT_BLKNO)
			depth = op->level + 1;
		if (op->flags & GEOIDX_F_FOLLOW_RIGHT)
			incomplete++;
		if (GeoidxPageIsLeaf(page))
		{
			leaf_pages++;
			entries += n;
			PageHeader ph = (PageHeader) page;
			if (ph->pd_upper == GeoidxLeafTop(page))
				leaf_used += (double) n / GEOIDX_LEAF_CAPACITY;
			else /* payloads: the share of the bytes */
				leaf_used += (double) ((ph->pd_lower - GEOIDX_ENTRIES_OFFSET) +
									   (GeoidxLeafTop(page) - ph->pd_upper)) /
							 GeoidxLeafSpace(page);
		}
		else
		{
			internal_pages++;
			internal_used += (double) n / GEOIDX_INTERNAL_CAPACITY;
		}
		UnlockReleaseBuffer(buf);
	}
	index_close(index, AccessShareLock);

	TupleDesc desc;
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "geoidx_stats must return a record");
	desc = BlessTupleDesc(desc);
	Datum values[8];
	bool nulls[8] = {false, false, false, false, false, false, false, false};
	values[0] = Int64GetDatum((int64) nblocks);
	values[1] = Int64GetDatum(leaf_pages);
	values[2] = Int64GetDatum(internal_pages);
	values[3] = Int64GetDatum(entries);
	values[4] = Int32GetDatum(depth);
	values[5] = Float8GetDatum(leaf_pages ? leaf_used / leaf_pages : 0.0);
	values[6] = Float8GetDatum(internal_pages ? internal_used / internal_pages : 0.0);
	values[7] = Int64GetDatum(incomplete);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/*
 * Report the on-disk format an index was written in (SQL), without refusing
 * one this library cannot read: after an upgrade it tells which indexes need a
 * REINDEX (README: versions and upgrades).
 */
extern "C" Datum
geoidx_index_format(PG_FUNCTION_ARGS)
{
	Oid indexoid = PG_GETARG_OID(0);
	(void) check_target(indexoid, false);
	Relation index = open_geoidx(indexoid, AccessShareLock);
	uint32 format = geoidx_index_format_of(index);
	index_close(index, AccessShareLock);
	PG_RETURN_INT32((int32) format);
}

/* Report the library's release and the one on-disk format it reads and writes (SQL). */
extern "C" Datum
geoidx_lib_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(GEOIDX_LIB_VERSION));
}

extern "C" Datum
geoidx_lib_format(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(GEOIDX_FORMAT_VERSION);
}
