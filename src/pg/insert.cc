/*
 * Inserting one point, and splitting pages.
 *
 * Descent. An insert walks from the root to a leaf holding a share lock on
 * one internal page at a time, coupled with the lock on the child it goes to
 * next. On every level the entry it follows must cover the new point before
 * the child's lock is taken, and a page's own box must cover every entry on
 * it; both are enlarged together, under an exclusive lock, when they do not.
 * That is enough for correctness, because a split recomputes the parent's
 * entries from the pages' own boxes. Upgrading a share lock to exclusive lets
 * go of the page for a moment: if the page was split in that moment (its NSN
 * is not older than the parent version we read, or it carries FOLLOW_RIGHT)
 * the descent starts again from the root.
 *
 * Splits. Splits are serialised by a heavyweight lock on the metapage (the
 * "split lock"); ordinary inserts never take it. Under it the inserter
 * descends again, recording its path, and splits the full leaf in place: the
 * left half stays, the right half goes to a new page, and the left page gets
 * FOLLOW_RIGHT and a right-link (one WAL record: two pages). Then the parent
 * gets the new downlink and the left page loses FOLLOW_RIGHT and gets its NSN
 * (one record: parent and child), splitting the parent the same way when it is
 * full, up to the root. The root splits by moving its entries to two new pages
 * and becoming their parent, one level higher. No record touches more than the
 * four buffers generic WAL allows, and the tree is valid between any two of
 * them: a crash leaves at most a FOLLOW_RIGHT that scans follow and the next
 * insert that passes by finishes.
 */
#include "choose.h"
#include "split.h"

#include "geoidx.h"

namespace
{

constexpr int kMaxDepth = 32;

struct PathStep
{
	BlockNumber blk;
	int entry; /* the entry followed to the next level */
};

enum class Outcome
{
	done,
	need_split_lock, /* leaf full, or an unfinished split on the way */
	restart,         /* the page we were about to change was split under us */
};

void
enlarge_entry(Relation index, Buffer buf, int i, const geoidx::Vec3 &v)
{
	GenericXLogState *st = GenericXLogStart(index);
	Page p = GenericXLogRegisterBuffer(st, buf, 0);
	geoidx::box_extend(&GeoidxInternalEntries(p)[i].box, v);
	geoidx::box_extend(GeoidxPageGetBox(p), v);
	geoidx_finish(index, st, &buf, 1);
}

/* What one insert adds: the entry, its point (NULL for a NULL or EMPTY row), its payload. */
struct NewEntry
{
	GeoidxLeafEntry entry;
	const geoidx::Vec3 *v;
	const char *payload; /* NULL: none */
	Size payload_size;
};

void
append_leaf(Relation index, Buffer buf, const NewEntry &ne)
{
	GenericXLogState *st = GenericXLogStart(index);
	Page p = GenericXLogRegisterBuffer(st, buf, 0);
	geoidx_leaf_append(p, &ne.entry, ne.payload, ne.payload_size, ne.v);
	const geoidx::Vec3 *v = ne.v;
	if (v != NULL)
		geoidx::box_extend(GeoidxPageGetBox(p), *v);
	geoidx_finish(index, st, &buf, 1);
}

Page
read_locked(Relation index, Buffer buf)
{
	Page page = BufferGetPage(buf);
	geoidx_check_page(index, buf, page);
	return page;
}

/*
 * One descent and, if the leaf has room, the insert. With path != NULL the
 * caller holds the split lock: the path is recorded, and unfinished splits met
 * on the way are reported through *unfinished (the page, locked by nobody).
 */
Outcome
descend_and_insert(Relation index, const NewEntry &ne, PathStep *path, int *depth,
				   BlockNumber *unfinished)
{
	const geoidx::Vec3 *v = ne.v;
	BlockNumber blk = GEOIDX_ROOT_BLKNO;
	Buffer buf = ReadBuffer(index, blk);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	bool exclusive = false;
	XLogRecPtr parent_lsn = InvalidXLogRecPtr;
	uint16 expected_level = 0;
	bool have_expected_level = false;
	int d = 0;

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		Page page = read_locked(index, buf);
		GeoidxPageOpaque op = GeoidxPageGetOpaque(page);

		if (have_expected_level && op->level != expected_level)
		{
			UnlockReleaseBuffer(buf);
			ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
							errmsg("index \"%s\" contains corrupted page at block %u",
								   RelationGetRelationName(index), blk),
							errdetail("level %u below a page of level %u", op->level,
									  (unsigned) (expected_level + 1))));
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
				append_leaf(index, buf, ne);
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
		int i =
			geoidx::choose_entry(&GeoidxInternalEntries(page)[0].box, sizeof(GeoidxInternalEntry),
								 GeoidxPageCount(page), v, &covers);
		if (i < 0)
		{
			UnlockReleaseBuffer(buf);
			ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
							errmsg("index \"%s\" contains corrupted page at block %u",
								   RelationGetRelationName(index), blk),
							errdetail("an internal page with no entries")));
		}
		if (!covers)
		{
			if (!exclusive)
			{
				uint16 level = op->level;
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
				exclusive = true;
				page = read_locked(index, buf);
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
			enlarge_entry(index, buf, i, *v);
		}

		if (d >= kMaxDepth - 1)
		{
			UnlockReleaseBuffer(buf);
			ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
							errmsg("index \"%s\" is deeper than %d levels",
								   RelationGetRelationName(index), kMaxDepth)));
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
			ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
							errmsg("index \"%s\" contains corrupted page at block %u",
								   RelationGetRelationName(index), blk),
							errdetail("entry %d points to block %u", i, child)));
		}
		Buffer cbuf = ReadBuffer(index, child);
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

/* Boxes of a page's entries, for choose_split. */
geoidx::Box3 *
entry_boxes(Page page, int n)
{
	geoidx::Box3 *boxes = (geoidx::Box3 *) palloc(sizeof(geoidx::Box3) * (n + 1));
	if (GeoidxPageIsLeaf(page))
	{
		GeoidxLeafEntry *e = GeoidxLeafEntries(page);
		for (int i = 0; i < n; i++)
		{
			if (!GeoidxEntryIsPoint(&e[i]))
			{
				boxes[i] = geoidx::box_empty(); /* choose_split puts these last */
				continue;
			}
			geoidx::LonLat ll = geoidx_entry_lonlat(e[i].x, e[i].y);
			boxes[i] = geoidx::box_of(geoidx::unit_vector(geoidx::geographic_point(ll)));
		}
	}
	else
	{
		GeoidxInternalEntry *e = GeoidxInternalEntries(page);
		for (int i = 0; i < n; i++)
			boxes[i] = e[i].box;
	}
	return boxes;
}

/* Bytes leaf entry i (with its payload in src) takes on a page. */
Size
leaf_entry_bytes(const GeoidxLeafEntry *e, const char *src)
{
	int off = GeoidxEntryPayloadOffset(e);
	return sizeof(GeoidxLeafEntry) + (off ? MAXALIGN(IndexTupleSize((IndexTuple) (src + off))) : 0);
}

/*
 * Distributes n entries (raw bytes of entry_size each, boxes alongside) over
 * two already initialised pages. Leaf entries with payloads (src: a copy of
 * the page they come from) are placed with them; if the cut the boxes chose
 * leaves either side with more bytes than a page holds, the cut moves along
 * the same order to the nearest one that fits (one exists: no entry takes more
 * than a quarter of a page).
 */
void
distribute(const char *entries, const geoidx::Box3 *boxes, int n, int entry_size, Page left,
		   Page right, const char *src)
{
	size_t *order = (size_t *) palloc(sizeof(size_t) * n);
	geoidx::Box3 *scratch = (geoidx::Box3 *) palloc(sizeof(geoidx::Box3) * 2 * n);
	double *keys = (double *) palloc(sizeof(double) * n);
	size_t left_count;
	geoidx::choose_split(boxes, n, (size_t) n * 3 / 10, order, &left_count, scratch, keys);

	const GeoidxLeafEntry *le = (const GeoidxLeafEntry *) entries;
	if (src != NULL)
	{
		size_t *bytes = (size_t *) palloc(sizeof(size_t) * n);
		for (int k = 0; k < n; k++)
			bytes[k] = leaf_entry_bytes(&le[order[k]], src);
		left_count = geoidx::fitting_cut(bytes, n, GEOIDX_LEAF_SPACE, left_count);
		if (left_count == 0)
			elog(ERROR, "geoidx: no split of %d entries fits on two pages", n);
		pfree(bytes);
	}

	char *l = (char *) left + GEOIDX_ENTRIES_OFFSET;
	char *r = (char *) right + GEOIDX_ENTRIES_OFFSET;
	geoidx::Box3 lbox = geoidx::box_empty(), rbox = geoidx::box_empty();
	if (src != NULL)
	{
		GeoidxPageSetCount(left, 0);
		GeoidxPageSetCount(right, 0);
	}
	for (int k = 0; k < n; k++)
	{
		size_t i = order[k];
		bool to_left = (size_t) k < left_count;
		geoidx::box_extend(to_left ? &lbox : &rbox, boxes[i]);
		if (src != NULL)
		{
			int off = GeoidxEntryPayloadOffset(&le[i]);
			const char *payload = off ? src + off : NULL;
			/* a point's box is the point; NULL and EMPTY rows have an empty one */
			geoidx::Vec3 v = {boxes[i].lo[0], boxes[i].lo[1], boxes[i].lo[2]};
			geoidx_leaf_append(to_left ? left : right, &le[i], payload,
							   payload ? IndexTupleSize((IndexTuple) payload) : 0,
							   geoidx::box_is_empty(boxes[i]) ? NULL : &v);
			continue;
		}
		char **dst = to_left ? &l : &r;
		memcpy(*dst, entries + i * entry_size, entry_size);
		*dst += entry_size;
	}
	if (src == NULL)
	{
		GeoidxPageSetCount(left, (int) left_count);
		GeoidxPageSetCount(right, n - (int) left_count);
	}
	*GeoidxPageGetBox(left) = lbox;
	*GeoidxPageGetBox(right) = rbox;
}

/*
 * Splits the locked page buf (entries given, possibly more than fit) and
 * releases it. For the root: one record of root + two new pages (+ child
 * whose split this finishes). For another page: the page keeps the left half,
 * a new right sibling takes the rest, and the page gets FOLLOW_RIGHT. Returns
 * the right sibling's block (InvalidBlockNumber for a root split).
 */
BlockNumber
split_page(Relation index, Buffer buf, const char *entries, const geoidx::Box3 *boxes, int n,
		   Buffer child_buf, XLogRecPtr child_nsn, const char *src)
{
	Page page = BufferGetPage(buf);
	GeoidxPageOpaque op = GeoidxPageGetOpaque(page);
	uint16 level = op->level;
	uint16 leaf = op->flags & GEOIDX_F_LEAF;
	int esz = GeoidxPageEntrySize(page);
	BlockNumber blk = BufferGetBlockNumber(buf);
	Buffer bufs[4];
	int nbufs = 0;
	BlockNumber result;

	if (blk == GEOIDX_ROOT_BLKNO)
	{
		Buffer a = geoidx_new_buffer(index);
		Buffer b = geoidx_new_buffer(index);
		GenericXLogState *st = GenericXLogStart(index);
		Page rp = GenericXLogRegisterBuffer(st, buf, 0);
		Page ap = GenericXLogRegisterBuffer(st, a, GENERIC_XLOG_FULL_IMAGE);
		Page bp = GenericXLogRegisterBuffer(st, b, GENERIC_XLOG_FULL_IMAGE);
		geoidx_init_page(ap, leaf, level);
		geoidx_init_page(bp, leaf, level);
		distribute(entries, boxes, n, esz, ap, bp, src);
		geoidx_init_page(rp, 0, level + 1);
		GeoidxInternalEntry *re = GeoidxInternalEntries(rp);
		re[0].child = BufferGetBlockNumber(a);
		re[0].unused = 0;
		re[0].box = *GeoidxPageGetBox(ap);
		re[1].child = BufferGetBlockNumber(b);
		re[1].unused = 0;
		re[1].box = *GeoidxPageGetBox(bp);
		GeoidxPageSetCount(rp, 2);
		geoidx_recompute_box(rp);
		bufs[nbufs++] = buf;
		bufs[nbufs++] = a;
		bufs[nbufs++] = b;
		if (BufferIsValid(child_buf))
		{
			Page cp = GenericXLogRegisterBuffer(st, child_buf, 0);
			GeoidxPageGetOpaque(cp)->flags &= ~GEOIDX_F_FOLLOW_RIGHT;
			GeoidxPageGetOpaque(cp)->nsn = child_nsn;
			bufs[nbufs++] = child_buf;
		}
		geoidx_finish(index, st, bufs, nbufs);
		UnlockReleaseBuffer(a);
		UnlockReleaseBuffer(b);
		result = InvalidBlockNumber;
	}
	else
	{
		Buffer r = geoidx_new_buffer(index);
		GenericXLogState *st = GenericXLogStart(index);
		Page lp = GenericXLogRegisterBuffer(st, buf, 0);
		Page rp = GenericXLogRegisterBuffer(st, r, GENERIC_XLOG_FULL_IMAGE);
		GeoidxPageOpaque lop = GeoidxPageGetOpaque(lp);
		XLogRecPtr old_nsn = lop->nsn;
		BlockNumber old_right = lop->rightlink;
		geoidx_init_page(rp, leaf, level);
		/* the left page keeps its block, so its entries are rewritten in place */
		geoidx_init_page(lp, leaf, level);
		distribute(entries, boxes, n, esz, lp, rp, src);
		GeoidxPageOpaque rop = GeoidxPageGetOpaque(rp);
		rop->rightlink = old_right;
		rop->nsn = old_nsn;
		lop = GeoidxPageGetOpaque(lp);
		lop->rightlink = BufferGetBlockNumber(r);
		lop->nsn = old_nsn;
		lop->flags |= GEOIDX_F_FOLLOW_RIGHT;
		bufs[nbufs++] = buf;
		bufs[nbufs++] = r;
		if (BufferIsValid(child_buf))
		{
			Page cp = GenericXLogRegisterBuffer(st, child_buf, 0);
			GeoidxPageGetOpaque(cp)->flags &= ~GEOIDX_F_FOLLOW_RIGHT;
			GeoidxPageGetOpaque(cp)->nsn = child_nsn;
			bufs[nbufs++] = child_buf;
		}
		geoidx_finish(index, st, bufs, nbufs);
		result = BufferGetBlockNumber(r);
		UnlockReleaseBuffer(r);
	}
	UnlockReleaseBuffer(buf);
	return result;
}

/*
 * Gives the parent path[d] the downlink to right, the right sibling of left,
 * and clears left's FOLLOW_RIGHT; splits the parent (and so on upwards) when
 * it is full. Caller holds the split lock and no buffer lock.
 */
void
finish_split(Relation index, PathStep *path, int d, BlockNumber left, BlockNumber right)
{
	for (;;)
	{
		Buffer pbuf = ReadBuffer(index, path[d].blk);
		LockBuffer(pbuf, BUFFER_LOCK_EXCLUSIVE);
		Page ppage = read_locked(index, pbuf);
		int n = GeoidxPageCount(ppage);
		GeoidxInternalEntry *pe = GeoidxInternalEntries(ppage);
		int i = path[d].entry;
		if (i < 0 || i >= n || pe[i].child != left)
		{
			for (i = 0; i < n && pe[i].child != left; i++)
				;
			if (i == n)
				ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
								errmsg("index \"%s\" has no downlink to block %u in block %u",
									   RelationGetRelationName(index), left, path[d].blk)));
		}

		Buffer lbuf = ReadBuffer(index, left);
		LockBuffer(lbuf, BUFFER_LOCK_EXCLUSIVE);
		Page lpage = read_locked(index, lbuf);
		Buffer rbuf = ReadBuffer(index, right);
		LockBuffer(rbuf, BUFFER_LOCK_SHARE);
		Page rpage = read_locked(index, rbuf);
		/*
		 * The right sibling of an unfinished split is on the left page's level
		 * and has no downlink yet: anything else is a corrupted right-link
		 * (a cycle, say), to which a downlink would make pages reachable twice.
		 */
		bool linked = false;
		for (int k = 0; k < n; k++)
			linked |= (pe[k].child == right);
		if (linked || GeoidxPageGetOpaque(rpage)->level != GeoidxPageGetOpaque(lpage)->level ||
			GeoidxPageGetOpaque(lpage)->rightlink != right)
			ereport(
				ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains corrupted page at block %u",
						RelationGetRelationName(index), left),
				 errdetail(
					 "its right-link to block %u is not an unfinished split: that page %s", right,
					 linked ? "already has a downlink in the parent" : "is on another level")));
		geoidx::Box3 lbox = *GeoidxPageGetBox(lpage);
		geoidx::Box3 rbox = *GeoidxPageGetBox(rpage);
		UnlockReleaseBuffer(rbuf);

		/* no version of the parent without the new downlink is younger than this */
		XLogRecPtr nsn = geoidx_current_lsn(index);

		if (n < GEOIDX_INTERNAL_CAPACITY)
		{
			GenericXLogState *st = GenericXLogStart(index);
			Page p = GenericXLogRegisterBuffer(st, pbuf, 0);
			Page c = GenericXLogRegisterBuffer(st, lbuf, 0);
			GeoidxInternalEntry *e = GeoidxInternalEntries(p);
			e[i].box = lbox;
			e[n].child = right;
			e[n].unused = 0;
			e[n].box = rbox;
			GeoidxPageSetCount(p, n + 1);
			geoidx::box_extend(GeoidxPageGetBox(p), lbox);
			geoidx::box_extend(GeoidxPageGetBox(p), rbox);
			GeoidxPageGetOpaque(c)->flags &= ~GEOIDX_F_FOLLOW_RIGHT;
			GeoidxPageGetOpaque(c)->nsn = nsn;
			Buffer bufs[2] = {pbuf, lbuf};
			geoidx_finish(index, st, bufs, 2);
			UnlockReleaseBuffer(lbuf);
			UnlockReleaseBuffer(pbuf);
			return;
		}

		/* the parent is full: split it with the new downlink among its entries */
		GeoidxInternalEntry *all =
			(GeoidxInternalEntry *) palloc(sizeof(GeoidxInternalEntry) * (n + 1));
		memcpy(all, pe, sizeof(GeoidxInternalEntry) * n);
		all[i].box = lbox;
		all[n].child = right;
		all[n].unused = 0;
		all[n].box = rbox;
		geoidx::Box3 *boxes = (geoidx::Box3 *) palloc(sizeof(geoidx::Box3) * (n + 1));
		for (int k = 0; k <= n; k++)
			boxes[k] = all[k].box;
		BlockNumber pblk = path[d].blk;
		BlockNumber newright =
			split_page(index, pbuf, (const char *) all, boxes, n + 1, lbuf, nsn, NULL);
		UnlockReleaseBuffer(lbuf);
		pfree(all);
		pfree(boxes);
		if (newright == InvalidBlockNumber)
			return; /* the root split: nothing above it */
		if (d == 0)
			ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
							errmsg("index \"%s\": split of block %u has no parent on the path",
								   RelationGetRelationName(index), pblk)));
		left = pblk;
		right = newright;
		d--;
	}
}

void
split_leaf(Relation index, BlockNumber blk, PathStep *path, int depth, Size payload_size)
{
	Buffer buf = ReadBuffer(index, blk);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	Page page = read_locked(index, buf);
	int n = GeoidxPageCount(page);
	if (!GeoidxPageIsLeaf(page) || geoidx_leaf_fits(page, payload_size) || n < 2 ||
		(GeoidxPageGetOpaque(page)->flags & GEOIDX_F_FOLLOW_RIGHT))
	{
		/* vacuum made room meanwhile, or something else changed: just retry */
		UnlockReleaseBuffer(buf);
		return;
	}
	char *entries = (char *) palloc(sizeof(GeoidxLeafEntry) * n);
	memcpy(entries, GeoidxLeafEntries(page), sizeof(GeoidxLeafEntry) * n);
	/* the payloads come along from a copy: the split rewrites the page in place */
	char *src = (char *) palloc(BLCKSZ);
	memcpy(src, page, BLCKSZ);
	for (int i = 0; i < n; i++)
		(void) geoidx_entry_payload(index, blk, page, &GeoidxLeafEntries(page)[i]);
	geoidx::Box3 *boxes = entry_boxes(page, n);
	BlockNumber right =
		split_page(index, buf, entries, boxes, n, InvalidBuffer, InvalidXLogRecPtr, src);
	if (right != InvalidBlockNumber)
		finish_split(index, path, depth - 1, blk, right);
}

/* Inserts under the split lock, splitting what is full and finishing what a crash left. */
void
insert_with_split_lock(Relation index, const NewEntry &ne)
{
	MemoryContext cxt =
		AllocSetContextCreate(CurrentMemoryContext, "geoidx split", ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	LockPage(index, GEOIDX_METAPAGE_BLKNO, ExclusiveLock);
	for (int attempt = 0;; attempt++)
	{
		PathStep path[kMaxDepth];
		int depth = 0;
		BlockNumber unfinished = InvalidBlockNumber;
		CHECK_FOR_INTERRUPTS();
		Outcome r = descend_and_insert(index, ne, path, &depth, &unfinished);
		if (r == Outcome::done)
			break;
		if (attempt > 1000)
			ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
							errmsg("index \"%s\" contains corrupted pages: an insert found no leaf "
								   "in %d attempts",
								   RelationGetRelationName(index), attempt)));
		if (r == Outcome::restart)
			continue;
		if (unfinished != InvalidBlockNumber)
		{
			/* a split a crash interrupted: give its right sibling a downlink */
			Buffer buf = ReadBuffer(index, unfinished);
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			Page page = read_locked(index, buf);
			BlockNumber right = GeoidxPageGetOpaque(page)->rightlink;
			bool still = (GeoidxPageGetOpaque(page)->flags & GEOIDX_F_FOLLOW_RIGHT) != 0;
			UnlockReleaseBuffer(buf);
			if (still && depth > 0)
				finish_split(index, path, depth - 1, unfinished, right);
			continue;
		}
		split_leaf(index, path[depth].blk, path, depth, ne.payload_size);
		MemoryContextReset(cxt);
	}
	UnlockPage(index, GEOIDX_METAPAGE_BLKNO, ExclusiveLock);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

} // namespace

bool
geoidx_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid, Relation heap,
			  IndexUniqueCheck checkUnique, bool indexUnchanged, IndexInfo *indexInfo)
{
	GeoidxLeafEntry entry;
	entry.tid = *ht_ctid;
	entry.flags = GEOIDX_KIND_NULL;
	entry.x = entry.y = 0.0;
	geoidx::Vec3 point;
	const geoidx::Vec3 *v = NULL;
	if (!isnull[0])
	{
		const char *what = geoidx_index_what(index);
		GeoidxPoint p;
		geoidx_decode_indexed(index, values[0], what, &p);
		entry.flags = GEOIDX_KIND_EMPTY;
		if (!p.empty)
		{
			geoidx::LonLat ll;
			geoidx_point_unit(&p, what, &ll, &point);
			v = &point;
			entry.flags = GEOIDX_KIND_POINT;
			entry.x = p.x;
			entry.y = p.y;
		}
	}
	IndexTuple payload = geoidx_form_payload(index, values, isnull);
	NewEntry ne;
	ne.entry = entry;
	ne.v = v;
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
