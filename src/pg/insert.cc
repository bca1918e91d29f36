/*
 * Inserting one point: the descent.
 *
 * An insert walks from the root to a leaf holding a share lock on one
 * internal page at a time, coupled with the lock on the child it goes to
 * next. On every level the entry it follows must cover the new point before
 * the child's lock is taken, and a page's own box must cover every entry on
 * it; both are enlarged together, under an exclusive lock, when they do not.
 * That is enough for correctness, because a split recomputes the parent's
 * entries from the pages' own boxes. Upgrading a share lock to exclusive lets
 * go of the page for a moment: if the page was split in that moment (its NSN
 * is not older than the parent version we read, or it carries FOLLOW_RIGHT)
 * the descent starts again from the root.
 *
 * A full leaf, or an unfinished split met on the way, sends the insert to the
 * split lock (a heavyweight lock on the metapage, which serialises splits):
 * under it the descent is repeated with its path recorded, and
 * insert_split.cc splits or finishes what it finds.
 */
#include "choose.h"

#include <type_traits>

#include "geoidx.h"

namespace
{

enum class Outcome
{
	done,
	need_split_lock, /* leaf full, or an unfinished split on the way */
	restart,         /* the page we were about to change was split under us */
};

/* What one insert adds: the entry, its box (NULL for a NULL or EMPTY row), its payload. */
struct NewEntry
{
	GeoidxLeafEntry entry;
	const geoidx::Box3 *box;
	const char *payload; /* NULL: none */
	Size payload_size;
};
static_assert(std::is_trivially_destructible_v<GeoidxPathStep>,
			  "lives on the stack across ereport: no destructor");
static_assert(std::is_trivially_destructible_v<NewEntry>,
			  "lives in palloc'd memory or on the stack across ereport: no destructor");

/*
 * Descend once and, if the leaf has room, insert. With path != NULL the
 * caller holds the split lock: the path is recorded, and unfinished splits met
 * on the way are reported through *unfinished (the page, locked by nobody).
 */
Outcome
descend_and_insert(Relation index, const NewEntry &ne, GeoidxPathStep *path, int *depth,
				   BlockNumber *unfinished)
{
	const geoidx::Box3 *box = ne.box;
	BlockNumber blk = GEOIDX_ROOT_BLKNO;
	Buffer buf = geoidx_read_page_buffer(index, blk);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	bool exclusive = false;
	XLogRecPtr parent_lsn = InvalidXLogRecPtr;
	uint16 expected_level = 0;
	bool have_expected_level = false;
	int d = 0;

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		Page page = geoidx_locked_page(index, buf);
		GeoidxPageOpaque op = GeoidxPageGetOpaque(page);

		if (have_expected_level && op->level != expected_level)
		{
			uint16 level = op->level;
			UnlockReleaseBuffer(buf);
			geoidx_corrupted(index, blk, "level %u below a page of level %u", level,
							 (unsigned) (expected_level + 1));
		}
		if (op->flags & GEOIDX_F_FOLLOW_RIGHT)
		{
			UnlockReleaseBuffer(buf);
			if (unfinished)
			{
				*unfinished = blk;
				*depth = d;
			}
			return Outcome::need_split_lock;
		}

		if (GeoidxPageIsLeaf(page) && !exclusive)
		{
			/* only the root is reached as a leaf under a share lock */
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			exclusive = true;
			continue; /* the root may have split meanwhile: look again */
		}

		if (GeoidxPageIsLeaf(page))
		{
			if (geoidx_leaf_fits(page, ne.payload_size))
			{
				geoidx_log_leaf_append(index, buf, &ne.entry, ne.payload, ne.payload_size, ne.box);
				UnlockReleaseBuffer(buf);
				return Outcome::done;
			}
			UnlockReleaseBuffer(buf);
			if (path)
			{
				path[d].blk = blk;
				path[d].entry = -1;
				*depth = d;
			}
			return Outcome::need_split_lock;
		}

		bool covers;
		int i = geoidx::choose_entry_box(&GeoidxInternalEntries(page)[0].box,
										 sizeof(GeoidxInternalEntry), GeoidxPageCount(page), box,
										 &covers);
		if (i < 0)
		{
			UnlockReleaseBuffer(buf);
			geoidx_corrupted(index, blk, "an internal page with no entries");
		}
		if (!covers)
		{
			if (!exclusive)
			{
				uint16 level = op->level;
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
				exclusive = true;
				page = geoidx_locked_page(index, buf);
				op = GeoidxPageGetOpaque(page);
				bool split_meanwhile = (op->flags & GEOIDX_F_FOLLOW_RIGHT) || op->level != level ||
									   (blk != GEOIDX_ROOT_BLKNO && op->nsn != InvalidXLogRecPtr &&
										parent_lsn <= op->nsn);
				if (split_meanwhile)
				{
					UnlockReleaseBuffer(buf);
					return Outcome::restart;
				}
				continue; /* choose again on what the page holds now */
			}
			geoidx_log_entry_enlarge(index, buf, i, *box);
		}

		if (d >= GEOIDX_MAX_DEPTH - 1)
		{
			UnlockReleaseBuffer(buf);
			geoidx_corrupted(index, blk, "the tree is deeper than %d levels", GEOIDX_MAX_DEPTH);
		}
		if (path)
		{
			path[d].blk = blk;
			path[d].entry = i;
		}
		d++;

		BlockNumber child = GeoidxInternalEntries(page)[i].child;
		uint16 child_level = op->level - 1;
		XLogRecPtr my_lsn = geoidx_page_lsn(index, buf);
		if (child == InvalidBlockNumber || child == GEOIDX_METAPAGE_BLKNO)
		{
			/* block 0xFFFFFFFF would be P_NEW to ReadBuffer: it would extend the index */
			UnlockReleaseBuffer(buf);
			geoidx_corrupted(index, blk, "entry %d points to block %u", i, child);
		}
		Buffer cbuf = geoidx_read_page_buffer(index, child);
		LockBuffer(cbuf, child_level == 0 ? BUFFER_LOCK_EXCLUSIVE : BUFFER_LOCK_SHARE);
		UnlockReleaseBuffer(buf);
		buf = cbuf;
		blk = child;
		exclusive = (child_level == 0);
		parent_lsn = my_lsn;
		expected_level = child_level;
		have_expected_level = true;
	}
}

/* Insert under the split lock, splitting what is full and finishing what a crash left. */
void
insert_with_split_lock(Relation index, const NewEntry &ne)
{
	MemoryContext cxt =
		AllocSetContextCreate(CurrentMemoryContext, "geoidx split", ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	LockPage(index, GEOIDX_METAPAGE_BLKNO, ExclusiveLock);
	for (int attempt = 0;; attempt++)
	{
		GeoidxPathStep path[GEOIDX_MAX_DEPTH];
		int depth = 0;
		BlockNumber unfinished = InvalidBlockNumber;
		CHECK_FOR_INTERRUPTS();
		Outcome r = descend_and_insert(index, ne, path, &depth, &unfinished);
		if (r == Outcome::done)
			break;
		if (attempt > 1000)
			geoidx_corrupted(index, GEOIDX_ROOT_BLKNO,
							 "an insert from this root found no leaf in %d attempts", attempt);
		if (r == Outcome::restart)
			continue;
		if (unfinished != InvalidBlockNumber)
		{
			/* a split a crash interrupted: give its right sibling a downlink */
			Buffer buf = ReadBuffer(index, unfinished);
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			Page page = geoidx_locked_page(index, buf);
			BlockNumber right = GeoidxPageGetOpaque(page)->rightlink;
			bool still = (GeoidxPageGetOpaque(page)->flags & GEOIDX_F_FOLLOW_RIGHT) != 0;
			UnlockReleaseBuffer(buf);
			if (still && depth > 0)
				geoidx_finish_split(index, path, depth - 1, unfinished, right);
			continue;
		}
		geoidx_split_leaf(index, path[depth].blk, path, depth, ne.payload_size);
		MemoryContextReset(cxt);
	}
	UnlockPage(index, GEOIDX_METAPAGE_BLKNO, ExclusiveLock);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

} // namespace

/* Insert a tuple into the index (aminsert): descend, append, split when the leaf is full. */
bool
geoidx_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid, Relation heap,
			  IndexUniqueCheck checkUnique, bool indexUnchanged, IndexInfo *indexInfo)
{
	geoidx_check_metapage_once(index);
	GeoidxLeafEntry entry;
	entry.tid = *ht_ctid;
	GeoidxPoint p;
	/* a polygon's prepared form is as large as the polygon: gone once its grid is made */
	MemoryContext prepare_cxt =
		AllocSetContextCreate(CurrentMemoryContext, "geoidx prepared value", ALLOCSET_SMALL_SIZES);
	const geoidx::CoverShape *prepared = NULL;
	if (!isnull[0])
		geoidx_decode_indexed(index, values[0], geoidx_index_what(index), &p, prepare_cxt,
							  &prepared);
	geoidx::Box3 box;
	bool has_box = geoidx_entry_set_value(&entry, isnull[0] ? NULL : &p, &box);
	if (GeoidxEntryIsShape(&entry))
		geoidx_check_shapes_allowed(index);
	IndexTuple payload = geoidx_form_payload(index, values, isnull, &entry, prepared,
											 (GeoidxGridBuilder) geoidx_grid_builder);
	MemoryContextDelete(prepare_cxt);
	NewEntry ne;
	ne.entry = entry;
	ne.box = has_box ? &box : NULL;
	ne.payload = (const char *) payload;
	ne.payload_size = payload ? IndexTupleSize(payload) : 0;

	/*
	 * A descent restarts when a page it was about to change was split under
	 * it. Interrupts are checked here: the descent itself always holds a
	 * buffer lock, which holds them off. Restarts that never end (a corrupted
	 * NSN, say) go on under the split lock, where no split can come between
	 * and the attempts are counted.
	 */
	for (int restarts = 0;; restarts++)
	{
		CHECK_FOR_INTERRUPTS();
		Outcome r = descend_and_insert(index, ne, NULL, NULL, NULL);
		if (r == Outcome::done)
			break;
		if (r == Outcome::need_split_lock || restarts >= 100)
		{
			insert_with_split_lock(index, ne);
			break;
		}
	}
	return false;
}
