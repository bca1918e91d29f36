/*
 * Bulk build: sort, then pack.
 *
 * Phase "loading tuples": table_index_build_scan hands every heap tuple to the
 * callback, which decodes the point into (hilbert key, TID, x, y, kind), NULL
 * and EMPTY rows with the largest key. A single-column index collects them in
 * a flat array of 32-byte records sorted in place (src/core/build_sort.h) as
 * long as it fits in maintenance_work_mem; an index with payloads, or a larger
 * input, goes through a tuplesort, which spills to disk. The key orders points
 * along a Hilbert curve on the six cube faces; TIDs break ties, so the same
 * rows always build the same index, whichever path sorted them.
 *
 * Phase "writing leaves": the sorted stream is cut into leaves filled to
 * fillfactor, written through shared buffers in order (blocks 2, 3, ...), then
 * each upper level is packed from the level below the same way, until one
 * page's worth remains: that is written to block 1, the root. Nothing is
 * WAL-logged while building; the finished relation is logged with
 * log_newpage_range, which is also what makes the build crash-safe (an
 * unfinished build leaves an index that the failed transaction drops).
 */
#include "hilbert.h"

#include "build.h"

extern "C"
{
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "executor/tuptable.h"
}

namespace
{

/* Positions in the sort tuple. */
enum
{
	kKeyAtt = 1,
	kTidAtt,
	kXAtt,
	kYAtt,
	kKindAtt,
	kPayloadAtt, /* bytea: the payload IndexTuple's bytes, NULL for a single-column index */
	kNatts = kPayloadAtt
};

/* Unpack a TID from its int8 sort column. */
void
int64_to_tid(int64 v, ItemPointer tid)
{
	ItemPointerSet(tid, (BlockNumber) (v >> 16), (OffsetNumber) (v & 0xFFFF));
}

} // namespace

/*
 * Begin the tuplesort of (key, TID, x, y, kind, payload) rows, ordered by key,
 * then TID: alone (coordinate NULL), or as one participant of a parallel
 * build (build_parallel.cc).
 */
void
geoidx_build_begin_sort(GeoidxBuildState *state, SortCoordinate coordinate, int work_mem)
{
	TupleDesc desc = CreateTemplateTupleDesc(kNatts);
	TupleDescInitEntry(desc, kKeyAtt, "key", INT8OID, -1, 0);
	TupleDescInitEntry(desc, kTidAtt, "tid", INT8OID, -1, 0);
	TupleDescInitEntry(desc, kXAtt, "x", FLOAT8OID, -1, 0);
	TupleDescInitEntry(desc, kYAtt, "y", FLOAT8OID, -1, 0);
	TupleDescInitEntry(desc, kKindAtt, "kind", INT4OID, -1, 0);
	TupleDescInitEntry(desc, kPayloadAtt, "payload", BYTEAOID, -1, 0);
	AttrNumber sort_atts[2] = {kKeyAtt, kTidAtt};
	Oid sort_ops[2] = {Int8LessOperator, Int8LessOperator};
	Oid collations[2] = {InvalidOid, InvalidOid};
	bool nulls_first[2] = {false, false};
	state->desc = desc;
	state->sort = tuplesort_begin_heap(desc, 2, sort_atts, sort_ops, collations, nulls_first,
									   work_mem, coordinate, TUPLESORT_NONE);
	state->slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
}

namespace
{

/*
 * Put one row into the tuplesort. The int8 key is the unsigned key with its
 * sign bit flipped, so that int8 order is the flat path's unsigned order.
 */
void
put_tuplesort(GeoidxBuildState *state, const geoidx::BuildPoint &r, IndexTuple payload)
{
	TupleTableSlot *slot = state->slot;
	ExecClearTuple(slot);
	slot->tts_values[kKeyAtt - 1] = Int64GetDatum((int64) (r.key ^ (UINT64CONST(1) << 63)));
	slot->tts_values[kTidAtt - 1] = Int64GetDatum((int64) (r.tid & geoidx::kBuildTidMask));
	slot->tts_values[kXAtt - 1] = Float8GetDatum(r.x);
	slot->tts_values[kYAtt - 1] = Float8GetDatum(r.y);
	slot->tts_values[kKindAtt - 1] = Int32GetDatum((int32) (r.tid >> geoidx::kBuildKindShift));
	memset(slot->tts_isnull, 0, sizeof(bool) * kNatts);
	if (payload != NULL)
	{
		Size sz = IndexTupleSize(payload);
		bytea *b = (bytea *) palloc(VARHDRSZ + sz);
		SET_VARSIZE(b, VARHDRSZ + sz);
		memcpy(VARDATA(b), payload, sz);
		slot->tts_values[kPayloadAtt - 1] = PointerGetDatum(b);
	}
	else
		slot->tts_isnull[kPayloadAtt - 1] = true;
	ExecStoreVirtualTuple(slot);
	tuplesort_puttupleslot(state->sort, slot);
}

/* Move the flat path's rows to a tuplesort: the input outgrew maintenance_work_mem. */
void
spill_to_tuplesort(GeoidxBuildState *state)
{
	MemoryContext old = MemoryContextSwitchTo(state->buildcxt);
	geoidx_build_begin_sort(state, NULL, maintenance_work_mem);
	MemoryContextSwitchTo(old);
	for (int64 i = 0; i < state->npoints; i++)
		put_tuplesort(state, state->points[i], NULL);
	if (state->points != NULL)
		pfree(state->points);
	state->points = NULL;
	state->npoints = state->cappoints = 0;
}

/* Keep one row in the flat array, growing it (huge allocations: 100 M rows are 3.2 GB). */
void
put_flat(GeoidxBuildState *state, const geoidx::BuildPoint &r)
{
	if (state->npoints == state->cappoints)
	{
		if (state->cappoints >= state->maxpoints && state->runs != NULL)
		{
			geoidx_build_write_run(state);
			state->points[state->npoints++] = r;
			return;
		}
		if (state->cappoints >= state->maxpoints)
		{
			spill_to_tuplesort(state);
			put_tuplesort(state, r, NULL);
			return;
		}
		int64 cap = Min(Max((int64) 1024, 2 * state->cappoints), state->maxpoints);
		Size bytes = sizeof(geoidx::BuildPoint) * (Size) cap;
		state->points =
			(geoidx::BuildPoint *) (state->points ? repalloc_huge(state->points, bytes)
												  : MemoryContextAllocHuge(state->buildcxt, bytes));
		state->cappoints = cap;
	}
	state->points[state->npoints++] = r;
}

} // namespace

/* Feed one heap row to the sort: Hilbert key, TID, coordinates, kind, payload. */
void
geoidx_build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
					  bool tupleIsAlive, void *state_)
{
	GeoidxBuildState *state = (GeoidxBuildState *) state_;
	MemoryContext old = MemoryContextSwitchTo(state->tmpcxt);
	/* NULL and EMPTY rows sort after every point (the largest key), so they fill the last leaves */
	geoidx::BuildPoint r;
	r.key = ~UINT64CONST(0);
	GeoidxPoint p;
	const geoidx::CoverShape *prepared = NULL;
	if (!isnull[0])
		geoidx_decode_indexed(index, values[0], state->what, &p, state->tmpcxt, &prepared);
	GeoidxLeafEntry e;
	geoidx::Box3 box;
	geoidx_entry_set_value(&e, isnull[0] ? NULL : &p, &box);
	IndexTuple payload = geoidx_form_payload(index, values, isnull, &e, prepared,
											 (GeoidxGridBuilder) geoidx_grid_builder);
	/* the flat path has no room for payloads: a polygon's grid moves the build to the tuplesort */
	if (payload != NULL && state->sort == NULL)
		spill_to_tuplesort(state);
	if (!isnull[0] && !p.empty)
	{
		/* a shape sorts by its box's centre */
		geoidx::LonLat ll;
		geoidx::Vec3 v;
		geoidx_point_unit(&p, state->what, &ll, &v);
		r.key = geoidx::hilbert_key(v);
	}
	r.tid = geoidx::build_tid_kind(ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid),
								   GeoidxEntryKind(&e));
	/* a shape's packed box travels in x and y as bits, never as numbers */
	memcpy(&r.x, &e.x, sizeof(double));
	memcpy(&r.y, &e.y, sizeof(double));
	if (state->sort == NULL)
		put_flat(state, r);
	else
		put_tuplesort(state, r, payload);
	state->indtuples += 1;
	MemoryContextSwitchTo(old);
	MemoryContextReset(state->tmpcxt);
}

namespace
{

/* The leaf entry of a flat record. */
void
entry_of(const geoidx::BuildPoint &r, GeoidxLeafEntry *e)
{
	ItemPointerSet(&e->tid, (BlockNumber) ((r.tid & geoidx::kBuildTidMask) >> 16),
				   (OffsetNumber) (r.tid & 0xFFFF));
	e->flags = (uint16) (r.tid >> geoidx::kBuildKindShift);
	e->x = r.x;
	e->y = r.y;
}

/* Take the next sorted row for the write phase; false at the end. */
bool
next_sorted(GeoidxBuildState *state, TupleTableSlot *read_slot, GeoidxLeafEntry *e,
			const char **payload, Size *payload_size)
{
	*payload = NULL;
	*payload_size = 0;
	if (state->merge != NULL)
	{
		geoidx::BuildPoint r;
		if (!geoidx_build_merge_next(state->merge, &r))
			return false;
		entry_of(r, e);
		return true;
	}
	if (state->sort == NULL)
	{
		if (state->next >= state->npoints)
			return false;
		entry_of(state->points[state->next++], e);
		return true;
	}
	if (!tuplesort_gettupleslot(state->sort, true, false, read_slot, NULL))
		return false;
	bool isnull;
	Datum pd = slot_getattr(read_slot, kPayloadAtt, &isnull);
	if (!isnull)
	{
		bytea *b = DatumGetByteaPP(pd);
		*payload = VARDATA_ANY(b);
		*payload_size = VARSIZE_ANY_EXHDR(b);
	}
	int64_to_tid(DatumGetInt64(slot_getattr(read_slot, kTidAtt, &isnull)), &e->tid);
	e->flags = (uint16) DatumGetInt32(slot_getattr(read_slot, kKindAtt, &isnull));
	e->x = DatumGetFloat8(slot_getattr(read_slot, kXAtt, &isnull));
	e->y = DatumGetFloat8(slot_getattr(read_slot, kYAtt, &isnull));
	return true;
}

/* A finished page of a level: where it is and what it covers (its parent's entry). */
struct LevelPage
{
	BlockNumber blk;
	geoidx::Box3 box;
};

/* One level's worth of finished pages. */
struct Level
{
	LevelPage *pages;
	int64 n;
	int64 cap;
};
static_assert(std::is_trivially_destructible_v<Level>,
			  "lives in palloc'd memory or on the stack across ereport: no destructor");

/* Remember a finished page of a level (huge allocations: a level may exceed 1 GB of entries). */
void
level_add(Level *l, BlockNumber blk, const geoidx::Box3 &box)
{
	if (l->n == l->cap)
	{
		l->cap = l->cap ? l->cap * 2 : 256;
		Size bytes = sizeof(LevelPage) * l->cap;
		l->pages = (LevelPage *) (l->pages ? repalloc_huge(l->pages, bytes)
										   : palloc_extended(bytes, MCXT_ALLOC_HUGE));
	}
	l->pages[l->n].blk = blk;
	l->pages[l->n].box = box;
	l->n++;
}

/* Write page to block blk, or to a new block at the end when blk is invalid. */
BlockNumber
write_page(Relation index, Page page, BlockNumber blk)
{
	Buffer buf = ReadBufferExtended(index, MAIN_FORKNUM, blk == InvalidBlockNumber ? P_NEW : blk,
									RBM_NORMAL, NULL);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	memcpy(BufferGetPage(buf), page, BLCKSZ);
	MarkBufferDirty(buf);
	BlockNumber result = BufferGetBlockNumber(buf);
	UnlockReleaseBuffer(buf);
	return result;
}

/* Read the fillfactor reloption. */
int
build_fillfactor(Relation index)
{
	GeoidxOptions *opts = (GeoidxOptions *) index->rd_options;
	return opts ? opts->fillfactor : GEOIDX_DEFAULT_FILLFACTOR;
}

/* Count the entries a page gets at a fillfactor, at least two so that every level shrinks. */
int
fill_of(int capacity, int fillfactor)
{
	int n = capacity * fillfactor / 100;
	return n < 2 ? 2 : n;
}

/*
 * Write the leaves from the sorted stream; returns the level of leaves. If
 * everything fits in one leaf, that leaf is the root and the level is empty.
 */
Level
write_leaves(GeoidxBuildState *state, TupleTableSlot *read_slot, Page root, int per_leaf)
{
	Level leaves = {NULL, 0, 0};
	PGAlignedBlock pending_buf;
	Page pending = pending_buf.data;
	bool have_pending = false;
	int64 done = 0;

	/* with payloads, fillfactor is a share of the page's bytes, not of its entry count */
	const uint16 leaf_flags = geoidx_leaf_flags(state->index);
	geoidx_init_page(pending, leaf_flags, 0);
	const Size byte_limit = GeoidxLeafSpace(pending) * build_fillfactor(state->index) / 100;

	GeoidxLeafEntry e;
	const char *payload;
	Size payload_size;
	while (next_sorted(state, read_slot, &e, &payload, &payload_size))
	{
		PageHeader ph = (PageHeader) pending;
		Size used = (ph->pd_lower - GEOIDX_ENTRIES_OFFSET) + (ph->pd_special - ph->pd_upper);
		Size need = sizeof(GeoidxLeafEntry) + MAXALIGN(payload_size);
		if (GeoidxPageCount(pending) >= per_leaf || !geoidx_leaf_fits(pending, payload_size) ||
			(payload != NULL && GeoidxPageCount(pending) >= 2 && used + need > byte_limit))
		{
			/* a second leaf is coming, so the pending one is not the root */
			level_add(&leaves, write_page(state->index, pending, InvalidBlockNumber),
					  *GeoidxPageGetBox(pending));
			geoidx_init_page(pending, leaf_flags, 0);
		}
		geoidx::Box3 box;
		bool has_box = geoidx_entry_box(&e, &box);
		geoidx_leaf_append(pending, &e, payload, payload_size, has_box ? &box : NULL);
		have_pending = true;
		if (++done % 10000 == 0)
		{
			pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, done);
			CHECK_FOR_INTERRUPTS();
		}
	}
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, done);

	if (leaves.n == 0)
		memcpy(root, pending, BLCKSZ); /* empty or one leaf: the root is that leaf */
	else if (have_pending)
		level_add(&leaves, write_page(state->index, pending, InvalidBlockNumber),
				  *GeoidxPageGetBox(pending));
	return leaves;
}

/* Pack one level into pages of the level above; the last one left becomes the root. */
void
write_upper_levels(Relation index, Level below, Page root, int per_internal)
{
	PGAlignedBlock page_buf;
	Page page = page_buf.data;
	uint16 level = 1;

	while (below.n > GEOIDX_INTERNAL_CAPACITY)
	{
		Level above = {NULL, 0, 0};
		int64 start = 0;
		while (start < below.n)
		{
			int64 end = Min(below.n, start + per_internal);
			/* do not leave a lone entry for a last page */
			if (below.n - end == 1 && end - start < GEOIDX_INTERNAL_CAPACITY)
				end = below.n;
			geoidx_init_page(page, 0, level);
			for (int64 k = start; k < end; k++)
				geoidx_internal_append(page, below.pages[k].blk, below.pages[k].box);
			level_add(&above, write_page(index, page, InvalidBlockNumber), *GeoidxPageGetBox(page));
			start = end;
			CHECK_FOR_INTERRUPTS();
		}
		pfree(below.pages);
		below = above;
		level++;
	}

	geoidx_init_page(root, 0, level);
	for (int64 k = 0; k < below.n; k++)
		geoidx_internal_append(root, below.pages[k].blk, below.pages[k].box);
}

} // namespace

/*
 * Check that the point is the first column, and only the first: the search keys on
 * it, and ORDER BY <~> orders by it. Other key columns are filters (geoidx's
 * scalar operator classes), INCLUDE columns anything.
 */
void
geoidx_check_columns(Relation index)
{
	int nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	for (int att = 1; att <= nkeys; att++)
	{
		bool spatial = OidIsValid(index_getprocid(index, att, GEOIDX_DECODE_PROC));
		if (spatial != (att == 1))
			ereport(
				ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("column %d of geoidx index \"%s\" %s", att, RelationGetRelationName(index),
						att == 1 ? "must be the point (geometry or geography)"
								 : "cannot be a point: only the first column is searched by "
								   "location"),
				 errhint("Put the point column first: USING geoidx (pos, other columns ...).")));
	}
}

void
geoidx_build_state_init(GeoidxBuildState *state, Relation index)
{
	memset(state, 0, sizeof(*state));
	state->index = index;
	state->what = geoidx_index_what(index);
	state->buildcxt = CurrentMemoryContext;
	state->maxpoints =
		Max((int64) 1024, (int64) maintenance_work_mem * 1024 / (int64) sizeof(geoidx::BuildPoint));
	state->tmpcxt =
		AllocSetContextCreate(CurrentMemoryContext, "geoidx build tuple", ALLOCSET_DEFAULT_SIZES);
}

/* Build the index from the table (ambuild): sort, then pack bottom-up. */
IndexBuildResult *
geoidx_build(Relation heap, Relation index, IndexInfo *indexInfo)
{
	geoidx_check_columns(index);
	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));

	PGAlignedBlock page_buf;
	Page page = page_buf.data;

	/* blocks 0 and 1 first, so that the root's block is fixed before the leaves come */
	geoidx_init_metapage(page);
	write_page(index, page, InvalidBlockNumber);
	geoidx_init_page(page, geoidx_leaf_flags(index), 0);
	write_page(index, page, InvalidBlockNumber);

	GeoidxBuildState state;
	geoidx_build_state_init(&state, index);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, GEOIDX_PHASE_LOAD);
	double reltuples;
	/* the parallel load leaves the merged sort in state; its sort phase ran in the participants */
	GeoidxParallelBuild *pb =
		geoidx_parallel_build_load(heap, index, indexInfo, &state, &reltuples);
	if (pb == NULL)
	{
		/* payloads are variable-length: those rows take the tuplesort from the start */
		if (geoidx_rel_info(index)->payload_desc != NULL)
			geoidx_build_begin_sort(&state, NULL, maintenance_work_mem);
		reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
										   geoidx_build_callback, &state, NULL);
	}

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, GEOIDX_PHASE_SORT);
	TupleTableSlot *read_slot = NULL;
	if (state.sort != NULL)
	{
		tuplesort_performsort(state.sort);
		read_slot = MakeSingleTupleTableSlot(state.desc, &TTSOpsMinimalTuple);
	}
	else if (state.merge == NULL)
		geoidx::sort_build_points(state.points, (size_t) state.npoints);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, GEOIDX_PHASE_WRITE);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_TOTAL, (int64) state.indtuples);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, 0);

	int fillfactor = build_fillfactor(index);
	PGAlignedBlock root_buf;
	Page root = root_buf.data;
	Level leaves = write_leaves(&state, read_slot, root, fill_of(GEOIDX_LEAF_CAPACITY, fillfactor));
	if (leaves.n > 0)
		write_upper_levels(index, leaves, root, fill_of(GEOIDX_INTERNAL_CAPACITY, fillfactor));
	write_page(index, root, GEOIDX_ROOT_BLKNO);

	if (state.sort != NULL)
	{
		tuplesort_end(state.sort);
		ExecDropSingleTupleTableSlot(read_slot);
		ExecDropSingleTupleTableSlot(state.slot);
	}
	if (pb != NULL)
		geoidx_parallel_build_end(pb);
	if (state.points != NULL)
		pfree(state.points);
	MemoryContextDelete(state.tmpcxt);

	geoidx_log_build(index);

	IndexBuildResult *result = (IndexBuildResult *) palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = state.indtuples;
	return result;
}

/* Write the init fork of an UNLOGGED index (ambuildempty): a metapage and an empty root leaf. */
void
geoidx_buildempty(Relation index)
{
	geoidx_check_columns(index);
	PGAlignedBlock buf;
	Page page = buf.data;

	geoidx_init_metapage(page);
	geoidx_log_init_fork_page(index, GEOIDX_METAPAGE_BLKNO, page);
	geoidx_init_page(page, geoidx_leaf_flags(index), 0);
	geoidx_log_init_fork_page(index, GEOIDX_ROOT_BLKNO, page);

	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
}
