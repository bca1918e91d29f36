/*
 * VACUUM.
 *
 * Bulk delete reads every page in physical order and compacts the leaves,
 * dropping the entries whose heap tuples VACUUM reports dead: one generic WAL
 * record per changed leaf. Physical order is enough to see every entry once at
 * least: entries move only when a page splits, always to a new page at the end
 * of the relation (geoidx never reuses a page), so the loop reads the relation
 * length again when it reaches the end and goes on while it grew.
 *
 * Boxes are not shrunk (a box that is larger than needed is still correct),
 * and empty leaves stay in the tree, where later inserts refill them. That is
 * what keeps VACUUM from ever moving an entry, and keeps the index from growing
 * under a workload that deletes as much as it inserts (README: page reuse).
 */
#include <type_traits>

#include "geoidx.h"

namespace
{

struct Counts
{
	double live;
	double removed;
	BlockNumber pages;
};
static_assert(std::is_trivially_destructible_v<Counts>,
			  "lives in palloc'd memory or on the stack across ereport: no destructor");

/* Remove a leaf's dead entries (when callback is given); return how many are left. */
int
vacuum_leaf(Relation index, Buffer buf, IndexBulkDeleteCallback callback, void *callback_state,
			Counts *counts)
{
	Page page = BufferGetPage(buf);
	int n = GeoidxPageCount(page);
	GeoidxLeafEntry *e = GeoidxLeafEntries(page);
	int keep = 0;

	if (callback)
	{
		bool *dead = (bool *) palloc(sizeof(bool) * Max(n, 1));
		int ndead = 0;
		for (int i = 0; i < n; i++)
		{
			dead[i] = callback(&e[i].tid, callback_state);
			ndead += dead[i] ? 1 : 0;
		}
		if (ndead > 0)
		{
			/* payloads are repacked and chunk boxes recomputed with the entries */
			BlockNumber blk = BufferGetBlockNumber(buf);
			for (int i = 0; i < n; i++)
			{
				(void) geoidx_entry_payload(index, blk, page, &e[i]);
				dead[i] = !dead[i]; /* now: keep */
			}
			geoidx_log_vacuum_leaf(index, buf, dead);
			keep = GeoidxPageCount(page);
			counts->removed += ndead;
			counts->live += keep;
			pfree(dead);
			return keep;
		}
		pfree(dead);
	}
	counts->live += n;
	return n;
}

/*
 * Read every page in physical order, compacting leaves when callback is
 * given and counting entries either way.
 */
void
scan_all(IndexVacuumInfo *info, IndexBulkDeleteCallback callback, void *callback_state,
		 Counts *counts)
{
	Relation index = info->index;
	BlockNumber blk = GEOIDX_ROOT_BLKNO;
	MemoryContext cxt =
		AllocSetContextCreate(CurrentMemoryContext, "geoidx vacuum", ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);

	geoidx_check_metapage(index);
	for (;;)
	{
		BlockNumber nblocks = RelationGetNumberOfBlocks(index);
		if (blk >= nblocks)
		{
			counts->pages = nblocks;
			break;
		}
		for (; blk < nblocks; blk++)
		{
			vacuum_delay_point();
			Buffer buf = ReadBufferExtended(index, MAIN_FORKNUM, blk, RBM_NORMAL, info->strategy);
			LockBuffer(buf, callback ? BUFFER_LOCK_EXCLUSIVE : BUFFER_LOCK_SHARE);
			Page page = BufferGetPage(buf);
			/*
			 * A crash between extending the file for a split and logging the
			 * split leaves an all-zero page that nothing links to: unused.
			 */
			if (PageIsNew(page))
			{
				UnlockReleaseBuffer(buf);
				continue;
			}
			geoidx_check_page(index, buf, page);
			if (GeoidxPageIsLeaf(page))
				vacuum_leaf(index, buf, callback, callback_state, counts);
			UnlockReleaseBuffer(buf);
			MemoryContextReset(cxt);
		}
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

} // namespace

/* Delete the entries of dead heap tuples (ambulkdelete). */
IndexBulkDeleteResult *
geoidx_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				  IndexBulkDeleteCallback callback, void *callback_state)
{
	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
	Counts counts = {0, 0, 0};
	scan_all(info, callback, callback_state, &counts);
	stats->num_pages = counts.pages;
	stats->num_index_tuples = counts.live;
	stats->tuples_removed += counts.removed;
	stats->estimated_count = false;
	return stats;
}

/* Report the index's size after VACUUM (amvacuumcleanup), counting it if no bulk delete ran. */
IndexBulkDeleteResult *
geoidx_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	if (info->analyze_only)
		return stats;
	if (stats == NULL)
	{
		/* no bulk delete ran (nothing was dead): count what is there for pg_class */
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
		Counts counts = {0, 0, 0};
		scan_all(info, NULL, NULL, &counts);
		stats->num_pages = counts.pages;
		stats->num_index_tuples = counts.live;
		stats->estimated_count = false;
	}
	return stats;
}
