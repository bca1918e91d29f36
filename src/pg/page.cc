/*
 * Pages, buffers and WAL.
 *
 * Every change to a page goes through generic WAL (GenericXLogStart /
 * RegisterBuffer / geoidx_finish). Generic WAL logs the byte ranges that
 * changed, and treats pd_lower..pd_upper as a hole, so an append to a leaf
 * logs one entry plus the page box.
 *
 * The concurrency protocol compares page LSNs with NSNs, so every page change
 * must advance the page LSN, also for UNLOGGED and TEMP indexes where generic
 * WAL writes nothing and sets no LSN: there geoidx_finish stamps a fake LSN
 * the way GiST does.
 */
#include <cmath>
#include <limits>

#include "geoidx.h"

extern "C"
{
#include "storage/checksum.h"
}

void
geoidx_init_page(Page page, uint16 flags, uint16 level)
{
	PageInit(page, BLCKSZ, sizeof(GeoidxPageOpaqueData));
	GeoidxPageOpaque op = GeoidxPageGetOpaque(page);
	op->nsn = InvalidXLogRecPtr;
	op->rightlink = InvalidBlockNumber;
	op->level = level;
	op->flags = flags;
	op->unused = 0;
	op->page_id = GEOIDX_PAGE_ID;
	*GeoidxPageGetBox(page) = geoidx::box_empty();
	((PageHeader) page)->pd_lower = GEOIDX_ENTRIES_OFFSET;
	if (flags & GEOIDX_F_LEAF)
	{
		((PageHeader) page)->pd_upper = GeoidxLeafTop(page);
		GeoidxChunkBox *c = GeoidxChunkBoxes(page);
		for (int i = 0; i < GEOIDX_LEAF_CHUNKS; i++)
			for (int a = 0; a < 3; a++)
			{
				c[i].lo[a] = std::numeric_limits<float>::infinity();
				c[i].hi[a] = -std::numeric_limits<float>::infinity();
			}
	}
}

/* A chunk box as a box of doubles (an empty one stays empty). */
geoidx::Box3
geoidx_chunk_box(const GeoidxChunkBox *c)
{
	geoidx::Box3 b;
	for (int a = 0; a < 3; a++)
	{
		b.lo[a] = c->lo[a];
		b.hi[a] = c->hi[a];
	}
	return b;
}

/* Grows a chunk box to hold v, rounding outwards to float. */
void
geoidx_chunk_extend(GeoidxChunkBox *c, const geoidx::Vec3 &v)
{
	const double d[3] = {v.x, v.y, v.z};
	for (int a = 0; a < 3; a++)
	{
		float f = (float) d[a];
		float lo =
			(double) f > d[a] ? std::nextafter(f, -std::numeric_limits<float>::infinity()) : f;
		float hi =
			(double) f < d[a] ? std::nextafter(f, std::numeric_limits<float>::infinity()) : f;
		c->lo[a] = std::min(c->lo[a], lo);
		c->hi[a] = std::max(c->hi[a], hi);
	}
}

/* The unit vector of a point entry, as the search and the page boxes compute it. */
geoidx::Vec3
geoidx_entry_vector(const GeoidxLeafEntry *e)
{
	return geoidx::unit_vector(geoidx::geographic_point(geoidx_entry_lonlat(e->x, e->y)));
}

void
geoidx_init_metapage(Page page)
{
	PageInit(page, BLCKSZ, sizeof(GeoidxPageOpaqueData));
	GeoidxPageOpaque op = GeoidxPageGetOpaque(page);
	op->nsn = InvalidXLogRecPtr;
	op->rightlink = InvalidBlockNumber;
	op->level = 0;
	op->flags = GEOIDX_F_META;
	op->unused = 0;
	op->page_id = GEOIDX_PAGE_ID;
	GeoidxMetaPageData *meta = GeoidxPageGetMeta(page);
	meta->magic = GEOIDX_MAGIC;
	meta->version = GEOIDX_FORMAT_VERSION;
	meta->leaf_entry_size = sizeof(GeoidxLeafEntry);
	meta->internal_entry_size = sizeof(GeoidxInternalEntry);
	((PageHeader) page)->pd_lower = (LocationIndex) ((char *) (meta + 1) - (char *) page);
}

const char *
geoidx_relname(Relation index)
{
	return RelationGetRelationName(index);
}

/*
 * Raises the one error for a corrupted geoidx page: which index, which block,
 * what is wrong with it (detail_fmt), and that REINDEX repairs it. Every
 * corruption check of the glue ends here, so the message is spelled once.
 */
void
geoidx_corrupted(Relation index, BlockNumber blk, const char *detail_fmt, ...)
{
	char detail[512];
	va_list ap;
	va_start(ap, detail_fmt);
	vsnprintf(detail, sizeof(detail), detail_fmt, ap);
	va_end(ap);
	ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
					errmsg("index \"%s\" contains corrupted page at block %u",
						   RelationGetRelationName(index), blk),
					errdetail("%s", detail), errhint("Please REINDEX it.")));
	pg_unreachable();
}

static void
corrupted(Relation index, BlockNumber blk, const char *why)
{
	geoidx_corrupted(index, blk, "%s", why);
}

/*
 * Cheap checks on every page geoidx reads, so that a garbage page is an error
 * and not a crash or an endless loop.
 */
void
geoidx_check_page(Relation index, Buffer buf, Page page)
{
	BlockNumber blk = BufferGetBlockNumber(buf);
	PageHeader ph = (PageHeader) page;

	if (PageIsNew(page))
		corrupted(index, blk, "the page is all zeroes");
	if (ph->pd_special != BLCKSZ - MAXALIGN(sizeof(GeoidxPageOpaqueData)))
		corrupted(index, blk, "the special space has the wrong size");
	GeoidxPageOpaque op = GeoidxPageGetOpaque(page);
	if (op->page_id != GEOIDX_PAGE_ID)
		corrupted(index, blk, "the page does not carry the geoidx page id");
	if (op->flags & GEOIDX_F_META)
	{
		if (blk != GEOIDX_METAPAGE_BLKNO)
			corrupted(index, blk, "a metapage outside block 0");
		return;
	}
	if (blk == GEOIDX_METAPAGE_BLKNO)
		corrupted(index, blk, "block 0 is not a metapage");
	if ((op->flags & ~(GEOIDX_F_LEAF | GEOIDX_F_FOLLOW_RIGHT)) != 0)
		corrupted(index, blk, "unknown page flags");
	if (((op->flags & GEOIDX_F_LEAF) != 0) != (op->level == 0))
		corrupted(index, blk, "the leaf flag disagrees with the level");
	if (op->level > 32)
		corrupted(index, blk, "the level is impossibly high");
	int esz = GeoidxPageEntrySize(page);
	if (ph->pd_lower < GEOIDX_ENTRIES_OFFSET || ph->pd_lower > ph->pd_upper ||
		(ph->pd_lower - GEOIDX_ENTRIES_OFFSET) % esz != 0 ||
		GeoidxPageCount(page) > GeoidxPageCapacity(page))
		corrupted(index, blk, "pd_lower does not end an entry array");
	/* the payload area: leaves only, MAXALIGNed, between the entries and the chunk boxes */
	if (ph->pd_upper != MAXALIGN(ph->pd_upper) ||
		((op->flags & GEOIDX_F_LEAF) ? ph->pd_upper > GeoidxLeafTop(page)
									 : ph->pd_upper != ph->pd_special))
		corrupted(index, blk, "pd_upper does not start a payload area");
	if (op->rightlink == blk || op->rightlink == GEOIDX_METAPAGE_BLKNO ||
		op->rightlink == GEOIDX_ROOT_BLKNO)
		corrupted(index, blk, "the right-link points to itself, the metapage or the root");
	if ((op->flags & GEOIDX_F_FOLLOW_RIGHT) && op->rightlink == InvalidBlockNumber)
		corrupted(index, blk, "FOLLOW_RIGHT is set but there is no right-link");
	/* the record that sets an NSN is later than it, and stamps the page */
	if (op->nsn > PageGetLSN(page))
		corrupted(index, blk, "the NSN is ahead of the page's LSN");
	if (blk == GEOIDX_ROOT_BLKNO &&
		(op->rightlink != InvalidBlockNumber || (op->flags & GEOIDX_F_FOLLOW_RIGHT)))
		corrupted(index, blk, "the root has a right sibling");
}

void
geoidx_check_metapage(Relation index)
{
	Buffer buf = ReadBuffer(index, GEOIDX_METAPAGE_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	Page page = BufferGetPage(buf);
	geoidx_check_page(index, buf, page);
	GeoidxMetaPageData *meta = GeoidxPageGetMeta(page);
	if (!(GeoidxPageGetOpaque(page)->flags & GEOIDX_F_META) || meta->magic != GEOIDX_MAGIC)
		corrupted(index, GEOIDX_METAPAGE_BLKNO, "the metapage has no geoidx magic number");
	if (meta->version != GEOIDX_FORMAT_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("index \"%s\" has on-disk format %u, this geoidx reads format %d",
						RelationGetRelationName(index), meta->version, GEOIDX_FORMAT_VERSION),
				 errhint("REINDEX it.")));
	UnlockReleaseBuffer(buf);
}

/*
 * A new page at the end of the relation, exclusively locked. geoidx never
 * frees pages (see README: page reuse and standbys), so there is nothing to take
 * from the free space map.
 */
Buffer
geoidx_new_buffer(Relation index)
{
	bool needLock = !RELATION_IS_LOCAL(index);
	if (needLock)
		LockRelationForExtension(index, ExclusiveLock);
	Buffer buf = ReadBuffer(index, P_NEW);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (needLock)
		UnlockRelationForExtension(index, ExclusiveLock);
	return buf;
}

static XLogRecPtr
fake_lsn(Relation index)
{
	static XLogRecPtr temp_counter = FirstNormalUnloggedLSN;

	if (index->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
		return temp_counter++;
	return GetFakeLSNForUnloggedRel();
}

XLogRecPtr
geoidx_finish(Relation index, GenericXLogState *state, Buffer *bufs, int nbufs)
{
	if (RelationNeedsWAL(index))
		return GenericXLogFinish(state);
	XLogRecPtr lsn = fake_lsn(index);
	GenericXLogFinish(state);
	for (int i = 0; i < nbufs; i++)
		PageSetLSN(BufferGetPage(bufs[i]), lsn);
	return lsn;
}

/*
 * A position no earlier than the LSN of any page change already made, and
 * earlier than that of any change made after it. Used as NSN.
 */
XLogRecPtr
geoidx_current_lsn(Relation index)
{
	if (RelationNeedsWAL(index))
		return GetXLogInsertRecPtr();
	return fake_lsn(index);
}

XLogRecPtr
geoidx_page_lsn(Relation index, Buffer buf)
{
	return BufferGetLSNAtomic(buf);
}

void
geoidx_recompute_box(Page page)
{
	geoidx::Box3 box = geoidx::box_empty();
	int n = GeoidxPageCount(page);
	if (GeoidxPageIsLeaf(page))
	{
		GeoidxLeafEntry *e = GeoidxLeafEntries(page);
		for (int i = 0; i < n; i++)
		{
			if (!GeoidxEntryIsPoint(&e[i]))
				continue;
			geoidx::LonLat ll = geoidx_entry_lonlat(e[i].x, e[i].y);
			geoidx::box_extend(&box, geoidx::unit_vector(geoidx::geographic_point(ll)));
		}
	}
	else
	{
		GeoidxInternalEntry *e = GeoidxInternalEntries(page);
		for (int i = 0; i < n; i++)
			geoidx::box_extend(&box, e[i].box);
	}
	*GeoidxPageGetBox(page) = box;
}

/* ---------- leaves with payloads ---------- */

/* Room on a leaf for one more entry whose payload is payload_size bytes (0: none). */
bool
geoidx_leaf_fits(Page page, Size payload_size)
{
	PageHeader ph = (PageHeader) page;
	Size need = sizeof(GeoidxLeafEntry) + MAXALIGN(payload_size);
	return ph->pd_lower + need <= ph->pd_upper;
}

/*
 * Appends an entry (its payload offset bits are replaced) and its payload.
 * The caller has checked geoidx_leaf_fits; the page's box is the caller's.
 */
void
geoidx_leaf_append(Page page, const GeoidxLeafEntry *entry, const char *payload, Size payload_size,
				   const geoidx::Vec3 *v)
{
	PageHeader ph = (PageHeader) page;
	int n = GeoidxPageCount(page);
	GeoidxLeafEntry e = *entry;
	e.flags &= GEOIDX_KIND_MASK;
	if (payload != NULL)
	{
		Size sz = MAXALIGN(payload_size);
		Assert(ph->pd_lower + sizeof(GeoidxLeafEntry) + sz <= ph->pd_upper);
		ph->pd_upper -= sz;
		memset((char *) page + ph->pd_upper, 0, sz);
		memcpy((char *) page + ph->pd_upper, payload, payload_size);
		e.flags |= (uint16) ((ph->pd_upper / GEOIDX_PAYLOAD_UNIT) << GEOIDX_PAYLOAD_SHIFT);
	}
	GeoidxLeafEntries(page)[n] = e;
	GeoidxPageSetCount(page, n + 1);
	if (v != NULL)
		geoidx_chunk_extend(&GeoidxChunkBoxes(page)[n / GEOIDX_CHUNK], *v);
}

void
geoidx_payload_corrupted(Relation index, BlockNumber blk)
{
	corrupted(index, blk, "an entry's payload lies outside the payload area");
	pg_unreachable();
}

/*
 * Rewrites a leaf with only the entries keep[] marks (all if keep is NULL),
 * their payloads packed again below the chunk boxes, which are recomputed:
 * what VACUUM does after removing entries. The page box is left alone (a larger
 * box is still correct).
 */
void
geoidx_leaf_rebuild(Page page, const bool *keep)
{
	PGAlignedBlock copy;
	memcpy(copy.data, page, BLCKSZ);
	int n = GeoidxPageCount(copy.data);
	GeoidxLeafEntry *e = GeoidxLeafEntries(copy.data);
	/* a fresh leaf with the same header fields: empty entries, payloads and chunk boxes */
	GeoidxPageOpaqueData op = *GeoidxPageGetOpaque(page);
	geoidx::Box3 box = *GeoidxPageGetBox(page);
	PageXLogRecPtr lsn = ((PageHeader) page)->pd_lsn;
	uint16 checksum = ((PageHeader) page)->pd_checksum;
	geoidx_init_page(page, op.flags, op.level);
	*GeoidxPageGetOpaque(page) = op;
	*GeoidxPageGetBox(page) = box;
	((PageHeader) page)->pd_lsn = lsn;
	((PageHeader) page)->pd_checksum = checksum;
	for (int i = 0; i < n; i++)
	{
		if (keep && !keep[i])
			continue;
		int off = GeoidxEntryPayloadOffset(&e[i]);
		const char *payload = off ? copy.data + off : NULL;
		geoidx::Vec3 v;
		if (GeoidxEntryIsPoint(&e[i]))
			v = geoidx_entry_vector(&e[i]);
		geoidx_leaf_append(page, &e[i], payload, payload ? IndexTupleSize((IndexTuple) payload) : 0,
						   GeoidxEntryIsPoint(&e[i]) ? &v : NULL);
	}
}
