/*
 * WAL: one function per record.
 *
 * Every change geoidx makes to a page of a built index is one of the records
 * below, and each record is written by exactly one function here: where
 * geoidx is preloaded, a leaf append and an enlargement are records of
 * geoidx's own (wal_rmgr.cc); otherwise, and for the rest, it starts a
 * generic WAL record, registers its buffers (never more than the four generic
 * WAL allows), changes the registered copies through page.cc, finishes the
 * record, and passes its fault point (fault.cc). README "Concurrency and WAL"
 * has the table of records, their buffers and their fault points; the callers
 * hold the buffer locks and decide the order of the records, which keeps the
 * tree valid between any two of them.
 *
 * Generic WAL logs the byte ranges that changed and treats pd_lower..pd_upper
 * as a hole, so an append to a leaf logs one entry, its chunk box and the page
 * box. The concurrency protocol compares page LSNs with NSNs, so every page
 * change must advance the page LSN, also for UNLOGGED and TEMP indexes where
 * generic WAL writes nothing and sets no LSN: there geoidx_finish stamps a
 * fake LSN the way GiST does.
 */
#include "geoidx.h"

namespace
{

/* Draw an LSN for an index that writes no WAL, from the counter GiST uses for the same purpose. */
XLogRecPtr
fake_lsn(Relation index)
{
	static XLogRecPtr temp_counter = FirstNormalUnloggedLSN;

	if (index->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
		return temp_counter++;
	return GetFakeLSNForUnloggedRel();
}

/*
 * Finish a record (bufs: the buffers it registered) and stop at its fault
 * point if a test armed it. Private to this file, so that no record is
 * written anywhere else.
 */
XLogRecPtr
geoidx_finish(Relation index, GenericXLogState *state, Buffer *bufs, int nbufs, GeoidxFault fault)
{
	Assert(nbufs <= MAX_GENERIC_XLOG_PAGES);
	XLogRecPtr lsn;
	if (RelationNeedsWAL(index))
		lsn = GenericXLogFinish(state);
	else
	{
		lsn = fake_lsn(index);
		GenericXLogFinish(state);
		for (int i = 0; i < nbufs; i++)
			PageSetLSN(BufferGetPage(bufs[i]), lsn);
	}
	geoidx_fault(index, fault, lsn);
	return lsn;
}

} // namespace

/*
 * Return a position no earlier than the LSN of any page change already made,
 * and earlier than that of any change made after it: the NSN of a split.
 */
XLogRecPtr
geoidx_current_lsn(Relation index)
{
	if (RelationNeedsWAL(index))
		return GetXLogInsertRecPtr();
	return fake_lsn(index);
}

/* Read a page's LSN under a share lock (hint-bit writers may change it meanwhile). */
XLogRecPtr
geoidx_page_lsn(Relation index, Buffer buf)
{
	return BufferGetLSNAtomic(buf);
}

/* Log an insert's append of one entry to a leaf (the leaf: one buffer). */
void
geoidx_log_leaf_append(Relation index, Buffer leaf, const GeoidxLeafEntry *entry,
					   const char *payload, Size payload_size, const geoidx::Box3 *box)
{
	XLogRecPtr lsn;
	if (geoidx_own_leaf_append(index, leaf, entry, payload, payload_size, box, &lsn))
	{
		geoidx_fault(index, GEOIDX_FAULT_LEAF_APPEND, lsn);
		return;
	}
	GenericXLogState *st = GenericXLogStart(index);
	Page p = GenericXLogRegisterBuffer(st, leaf, 0);
	geoidx_leaf_append(p, entry, payload, payload_size, box);
	geoidx_finish(index, st, &leaf, 1, GEOIDX_FAULT_LEAF_APPEND);
}

/* Log the enlargement of downlink i of an internal page (and its page box) to cover box b. */
void
geoidx_log_entry_enlarge(Relation index, Buffer buf, int i, const geoidx::Box3 &b)
{
	XLogRecPtr lsn;
	if (geoidx_own_entry_enlarge(index, buf, i, b, &lsn))
	{
		geoidx_fault(index, GEOIDX_FAULT_ENTRY_ENLARGE, lsn);
		return;
	}
	GenericXLogState *st = GenericXLogStart(index);
	Page p = GenericXLogRegisterBuffer(st, buf, 0);
	geoidx_internal_enlarge(p, i, b);
	geoidx_finish(index, st, &buf, 1, GEOIDX_FAULT_ENTRY_ENLARGE);
}

/*
 * Log the first record of a split: buf keeps the left half of s, the new page
 * right takes the rest, and buf gets FOLLOW_RIGHT and a right-link to it. When
 * the split makes room for a downlink (an internal page), the child whose
 * split that downlink finishes loses its FOLLOW_RIGHT in the same record.
 */
void
geoidx_log_page_split(Relation index, Buffer buf, Buffer right, const GeoidxSplitEntries *s,
					  Buffer child, XLogRecPtr child_nsn)
{
	Buffer bufs[3] = {buf, right, child};
	int nbufs = BufferIsValid(child) ? 3 : 2;
	GenericXLogState *st = GenericXLogStart(index);
	Page lp = GenericXLogRegisterBuffer(st, buf, 0);
	Page rp = GenericXLogRegisterBuffer(st, right, GENERIC_XLOG_FULL_IMAGE);
	GeoidxPageOpaqueData old = *GeoidxPageGetOpaque(lp);
	/* the halves of a leaf keep its layout (its tags, if it has them) */
	uint16 leaf = old.flags & GEOIDX_F_LAYOUT;
	geoidx_init_page(rp, leaf, old.level);
	/* the left page keeps its block, so its entries are rewritten in place */
	geoidx_init_page(lp, leaf, old.level);
	geoidx_split_fill(lp, rp, s);
	geoidx_page_set_split(lp, rp, BufferGetBlockNumber(right), old.rightlink, old.nsn);
	if (BufferIsValid(child))
		geoidx_page_end_split(GenericXLogRegisterBuffer(st, child, 0), child_nsn);
	geoidx_finish(index, st, bufs, nbufs,
				  old.level == 0 ? GEOIDX_FAULT_PAGE_SPLIT_LEAF : GEOIDX_FAULT_PAGE_SPLIT_INTERNAL);
}

/*
 * Log a root split, one record: the root's entries (s) move to two new pages
 * a and b, and the root becomes their parent one level higher, so that the
 * root never moves. child as in geoidx_log_page_split: four buffers at most.
 */
void
geoidx_log_root_split(Relation index, Buffer root, Buffer a, Buffer b, const GeoidxSplitEntries *s,
					  Buffer child, XLogRecPtr child_nsn)
{
	Buffer bufs[4] = {root, a, b, child};
	int nbufs = BufferIsValid(child) ? 4 : 3;
	GenericXLogState *st = GenericXLogStart(index);
	Page rp = GenericXLogRegisterBuffer(st, root, 0);
	Page ap = GenericXLogRegisterBuffer(st, a, GENERIC_XLOG_FULL_IMAGE);
	Page bp = GenericXLogRegisterBuffer(st, b, GENERIC_XLOG_FULL_IMAGE);
	uint16 level = GeoidxPageGetOpaque(rp)->level;
	uint16 leaf = GeoidxPageGetOpaque(rp)->flags & GEOIDX_F_LAYOUT;
	geoidx_init_page(ap, leaf, level);
	geoidx_init_page(bp, leaf, level);
	geoidx_split_fill(ap, bp, s);
	geoidx_init_page(rp, 0, level + 1);
	geoidx_internal_append(rp, BufferGetBlockNumber(a), *GeoidxPageGetBox(ap));
	geoidx_internal_append(rp, BufferGetBlockNumber(b), *GeoidxPageGetBox(bp));
	if (BufferIsValid(child))
		geoidx_page_end_split(GenericXLogRegisterBuffer(st, child, 0), child_nsn);
	geoidx_finish(index, st, bufs, nbufs,
				  level == 0 ? GEOIDX_FAULT_ROOT_SPLIT_LEAF : GEOIDX_FAULT_ROOT_SPLIT_INTERNAL);
}

/*
 * Log the second record of a split: the parent's downlink i to the left page
 * gets the box of what the left page kept, the parent gets a downlink to the
 * right sibling, and the left page (child) loses FOLLOW_RIGHT and gets its NSN.
 */
void
geoidx_log_downlink(Relation index, Buffer parent, int i, Buffer child, const geoidx::Box3 &lbox,
					BlockNumber right, const geoidx::Box3 &rbox, XLogRecPtr nsn)
{
	Buffer bufs[2] = {parent, child};
	GenericXLogState *st = GenericXLogStart(index);
	Page p = GenericXLogRegisterBuffer(st, parent, 0);
	Page c = GenericXLogRegisterBuffer(st, child, 0);
	uint16 child_level = GeoidxPageGetOpaque(c)->level;
	geoidx_internal_set(p, i, BufferGetBlockNumber(child), lbox);
	geoidx_internal_append(p, right, rbox);
	geoidx_page_end_split(c, nsn);
	geoidx_finish(index, st, bufs, 2,
				  child_level == 0 ? GEOIDX_FAULT_DOWNLINK_LEAF : GEOIDX_FAULT_DOWNLINK_INTERNAL);
}

/* Log VACUUM's compaction of a leaf to the entries keep[] marks. */
void
geoidx_log_vacuum_leaf(Relation index, Buffer leaf, const bool *keep)
{
	GenericXLogState *st = GenericXLogStart(index);
	Page p = GenericXLogRegisterBuffer(st, leaf, 0);
	geoidx_leaf_rebuild(p, keep);
	geoidx_finish(index, st, &leaf, 1, GEOIDX_FAULT_VACUUM_LEAF);
}

/*
 * Log a finished bulk build: every page as a full image. Nothing was logged
 * while building, so this is also what makes the build crash-safe.
 */
void
geoidx_log_build(Relation index)
{
	if (RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, 0, RelationGetNumberOfBlocks(index), true);
}

/*
 * Write and log one page of an UNLOGGED index's init fork (the metapage or the
 * empty root): the init fork is written by hand, outside shared buffers.
 */
void
geoidx_log_init_fork_page(Relation index, BlockNumber blk, Page page)
{
	PageSetChecksumInplace(page, blk);
	smgrextend(RelationGetSmgr(index), INIT_FORKNUM, blk, page, true);
	log_newpage(&(RelationGetSmgr(index))->smgr_rnode.node, INIT_FORKNUM, blk, page, true);
}
