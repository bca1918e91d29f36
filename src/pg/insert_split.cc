/*
 * Splitting pages, and finishing the splits a crash interrupted.
 *
 * Splits are serialised by a heavyweight lock on the metapage (the "split
 * lock", taken by insert.cc); ordinary inserts never take it. Under it the
 * inserter has recorded its path from the root, and splits the full leaf in
 * place: the left half stays, the right half goes to a new page, and the left
 * page gets FOLLOW_RIGHT and a right-link (record 1: two pages). Then the
 * parent gets the new downlink and the left page loses FOLLOW_RIGHT and gets
 * its NSN (record 2: parent and child). A full parent splits the same way with
 * the new downlink among its entries, its record 1 also ending the child's
 * split, and so on up to the root. The root splits by moving its entries to
 * two new pages and becoming their parent, one level higher, in one record.
 * The tree is valid between any two records: a crash leaves at most a
 * FOLLOW_RIGHT that scans follow and the next insert that passes by finishes
 * (insert.cc finds it, geoidx_finish_split finishes it).
 *
 * Lock order: the parent, then the left page, then the right page. Scans and
 * plain inserts only ever lock downwards and one page at a time (or a parent
 * coupled with one child), so the order is safe because only the holder of the
 * split lock ever holds more than that.
 */
#include "split.h"

#include <type_traits>

#include "geoidx.h"

namespace
{

static_assert(std::is_trivially_destructible_v<GeoidxSplitEntries>,
			  "lives on the stack across ereport: no destructor");

/* Collect the boxes of a page's entries for choose_split (a point's box is the point). */
geoidx::Box3 *
entry_boxes(Page page, int n)
{
	geoidx::Box3 *boxes = (geoidx::Box3 *) palloc(sizeof(geoidx::Box3) * (n + 1));
	if (GeoidxPageIsLeaf(page))
	{
		GeoidxLeafEntry *e = GeoidxLeafEntries(page);
		for (int i = 0; i < n; i++)
			if (!geoidx_entry_box(&e[i], &boxes[i]))
				boxes[i] = geoidx::box_empty(); /* choose_split puts these last */
	}
	else
	{
		GeoidxInternalEntry *e = GeoidxInternalEntries(page);
		for (int i = 0; i < n; i++)
			boxes[i] = e[i].box;
	}
	return boxes;
}

/*
 * Decide a split of n entries: the order and cut of choose_split, moved along
 * the same order to the nearest cut where both halves fit in bytes when leaf
 * entries carry payloads (src: a copy of their page). One always exists: no
 * entry takes more than a quarter of a page.
 */
GeoidxSplitEntries
plan_split(const char *entries, const geoidx::Box3 *boxes, int n, const char *src)
{
	size_t *order = (size_t *) palloc(sizeof(size_t) * n);
	geoidx::Box3 *scratch = (geoidx::Box3 *) palloc(sizeof(geoidx::Box3) * 2 * n);
	double *keys = (double *) palloc(sizeof(double) * n);
	size_t left_count;
	geoidx::choose_split(boxes, n, (size_t) n * 3 / 10, order, &left_count, scratch, keys);
	if (src != NULL)
	{
		const GeoidxLeafEntry *le = (const GeoidxLeafEntry *) entries;
		size_t *bytes = (size_t *) palloc(sizeof(size_t) * n);
		for (int k = 0; k < n; k++)
			bytes[k] = geoidx_leaf_entry_bytes(&le[order[k]], src);
		left_count = geoidx::fitting_cut(bytes, n, GeoidxLeafSpace((Page) src), left_count);
		if (left_count == 0)
			elog(ERROR, "geoidx: no split of %d entries fits on two pages", n);
		pfree(bytes);
	}
	pfree(scratch);
	pfree(keys);
	return GeoidxSplitEntries{entries, boxes, n, src, order, (int) left_count};
}

/*
 * Split the locked page buf (entries given, possibly one more than fit) and
 * release it. child_buf, if valid, is the child whose split the new downlink
 * among the entries finishes: its FOLLOW_RIGHT goes in the same record.
 * Returns the new right sibling, or InvalidBlockNumber for a root split (no
 * downlink to add above it).
 */
BlockNumber
split_page(Relation index, Buffer buf, const char *entries, const geoidx::Box3 *boxes, int n,
		   Buffer child_buf, XLogRecPtr child_nsn, const char *src)
{
	GeoidxSplitEntries s = plan_split(entries, boxes, n, src);
	BlockNumber result = InvalidBlockNumber;
	if (BufferGetBlockNumber(buf) == GEOIDX_ROOT_BLKNO)
	{
		Buffer a = geoidx_new_buffer(index);
		Buffer b = geoidx_new_buffer(index);
		geoidx_log_root_split(index, buf, a, b, &s, child_buf, child_nsn);
		UnlockReleaseBuffer(a);
		UnlockReleaseBuffer(b);
	}
	else
	{
		Buffer r = geoidx_new_buffer(index);
		geoidx_log_page_split(index, buf, r, &s, child_buf, child_nsn);
		result = BufferGetBlockNumber(r);
		UnlockReleaseBuffer(r);
	}
	UnlockReleaseBuffer(buf);
	return result;
}

/*
 * Find the downlink to left in the parent, where the path saw it or (the
 * parent split since) anywhere on the page.
 */
int
find_downlink(Relation index, Page ppage, BlockNumber pblk, int hint, BlockNumber left)
{
	int n = GeoidxPageCount(ppage);
	GeoidxInternalEntry *pe = GeoidxInternalEntries(ppage);
	if (hint >= 0 && hint < n && pe[hint].child == left)
		return hint;
	for (int i = 0; i < n; i++)
		if (pe[i].child == left)
			return i;
	geoidx_corrupted(index, pblk, "no downlink to block %u, whose split it should finish", left);
}

/*
 * The right sibling of an unfinished split is on the left page's level and
 * has no downlink yet: refuse anything else (a corrupted right-link, a cycle
 * say), to which a downlink would make pages reachable twice.
 */
void
check_unfinished(Relation index, Page ppage, BlockNumber left, Page lpage, BlockNumber right,
				 Page rpage)
{
	bool linked = false;
	GeoidxInternalEntry *pe = GeoidxInternalEntries(ppage);
	for (int k = 0, n = GeoidxPageCount(ppage); k < n; k++)
		linked |= (pe[k].child == right);
	if (linked || GeoidxPageGetOpaque(rpage)->level != GeoidxPageGetOpaque(lpage)->level ||
		GeoidxPageGetOpaque(lpage)->rightlink != right)
		geoidx_corrupted(
			index, left, "its right-link to block %u is not an unfinished split: that page %s",
			right, linked ? "already has a downlink in the parent" : "is on another level");
}

} // namespace

/*
 * Give the parent path[d] the downlink to right, the right sibling of left,
 * and clear left's FOLLOW_RIGHT; split the parent (and so on upwards) when it
 * is full. The caller holds the split lock and no buffer lock.
 */
void
geoidx_finish_split(Relation index, GeoidxPathStep *path, int d, BlockNumber left,
					BlockNumber right)
{
	for (;;)
	{
		BlockNumber pblk = path[d].blk;
		Buffer pbuf = ReadBuffer(index, pblk);
		LockBuffer(pbuf, BUFFER_LOCK_EXCLUSIVE);
		Page ppage = geoidx_locked_page(index, pbuf);
		int i = find_downlink(index, ppage, pblk, path[d].entry, left);

		Buffer lbuf = ReadBuffer(index, left);
		LockBuffer(lbuf, BUFFER_LOCK_EXCLUSIVE);
		Page lpage = geoidx_locked_page(index, lbuf);
		Buffer rbuf = ReadBuffer(index, right);
		LockBuffer(rbuf, BUFFER_LOCK_SHARE);
		Page rpage = geoidx_locked_page(index, rbuf);
		check_unfinished(index, ppage, left, lpage, right, rpage);
		geoidx::Box3 lbox = *GeoidxPageGetBox(lpage);
		geoidx::Box3 rbox = *GeoidxPageGetBox(rpage);
		UnlockReleaseBuffer(rbuf);

		/* no version of the parent without the new downlink is younger than this */
		XLogRecPtr nsn = geoidx_current_lsn(index);

		if (GeoidxPageCount(ppage) < GEOIDX_INTERNAL_CAPACITY)
		{
			geoidx_log_downlink(index, pbuf, i, lbuf, lbox, right, rbox, nsn);
			UnlockReleaseBuffer(lbuf);
			UnlockReleaseBuffer(pbuf);
			return;
		}

		/* the parent is full: split it with the new downlink among its entries */
		int n;
		GeoidxInternalEntry *all = geoidx_internal_with_downlink(ppage, i, lbox, right, rbox, &n);
		geoidx::Box3 *boxes = (geoidx::Box3 *) palloc(sizeof(geoidx::Box3) * n);
		for (int k = 0; k < n; k++)
			boxes[k] = all[k].box;
		BlockNumber newright =
			split_page(index, pbuf, (const char *) all, boxes, n, lbuf, nsn, NULL);
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

/*
 * Split the full leaf blk that path (depth steps below the root) led to, and
 * give the new right half its downlink. Does nothing if the leaf has room
 * again (VACUUM) or changed otherwise: the caller retries its insert anyway.
 */
void
geoidx_split_leaf(Relation index, BlockNumber blk, GeoidxPathStep *path, int depth,
				  Size payload_size)
{
	Buffer buf = ReadBuffer(index, blk);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	Page page = geoidx_locked_page(index, buf);
	int n = GeoidxPageCount(page);
	if (!GeoidxPageIsLeaf(page) || geoidx_leaf_fits(page, payload_size) || n < 2 ||
		(GeoidxPageGetOpaque(page)->flags & GEOIDX_F_FOLLOW_RIGHT))
	{
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
		geoidx_finish_split(index, path, depth - 1, blk, right);
}
