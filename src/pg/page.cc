/*
 * Pages: the one writer of their contents.
 *
 * Every function that appends, removes or rewrites entries, leaf or internal,
 * or changes a page's box, right-link, NSN or flags is here, as bloom's
 * blutils.c is for bloom: the rest of geoidx reads pages through geoidx.h and
 * changes them only through these, so that changing the page layout means
 * geoidx.h and this file. None of them logs anything: each is called on the
 * copy of a page that a WAL record of wal.cc has registered (or, in the bulk
 * build, on a private page that is logged whole at the end).
 *
 * Also here: the checks every reader applies to a page it reads, the one error
 * for a corrupted page, and new pages at the end of the relation.
 */
#include <cmath>
#include <limits>

#include "shape_pieces.h"

#include "geoidx.h"
#include "scan_filter.h"

extern "C"
{
#include "access/itup.h"
#include "access/tupmacs.h"
#include "storage/checksum.h"
}

/* Initialise an empty leaf or internal page of the given level. */
void
geoidx_init_page(Page page, uint16 flags, uint16 level)
{
	PageInit(page, BLCKSZ, sizeof(GeoidxPageOpaqueData));
	GeoidxPageOpaque op = GeoidxPageGetOpaque(page);
	op->nsn = InvalidXLogRecPtr;
	op->rightlink = InvalidBlockNumber;
	op->level = level;
	op->flags = flags;
	op->payload_size = 0;
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
		if (GeoidxLeafHasTags(page))
			memset(GeoidxLeafTags(page), 0, GEOIDX_TAG_AREA);
	}
	else
		Assert((flags & (GEOIDX_F_SUMMARY_MASK | GEOIDX_F_TAGS)) == 0);
}

/* The width code of the column each summary kind (GEOIDX_SUMMARY_*) summarises. */
static const int8 summary_width[] = {0, kGeoidxFastBool, kGeoidxFast2, kGeoidxFast4, kGeoidxFast8};

/*
 * The flags of a new leaf of index: with entry tags when its first column
 * after the point is a key column of an integer or boolean type, the types a
 * scan compares inline (scan_filter.h), and so the ones a filter can ask for
 * by value.
 */
uint16
geoidx_leaf_flags(Relation index)
{
	const GeoidxRelInfo *info = geoidx_rel_info(index);
	if (info->payload_desc == NULL || IndexRelationGetNumberOfKeyAttributes(index) < 2)
		return GEOIDX_F_LEAF;
	int8 width = geoidx_fast_width(TupleDescAttr(info->payload_desc, 0)->atttypid);
	for (int kind = GEOIDX_SUMMARY_BOOL; kind <= GEOIDX_SUMMARY_INT8; kind++)
		if (summary_width[kind] == width)
			return (uint16) (GEOIDX_F_LEAF | GEOIDX_F_TAGS | (kind << GEOIDX_F_SUMMARY_SHIFT));
	return GEOIDX_F_LEAF;
}

/*
 * The value a payload holds in its first column, as a leaf's tags of the
 * given kind read it (an integer widened, a boolean as 0 or 1); false when
 * that column is NULL, which no filter by value matches.
 */
bool
geoidx_payload_tag_value(IndexTuple payload, int kind, int64 *value)
{
	if (IndexTupleHasNulls(payload) && att_isnull(0, (bits8 *) payload + sizeof(IndexTupleData)))
		return false;
	Assert(kind >= GEOIDX_SUMMARY_BOOL && kind <= GEOIDX_SUMMARY_INT8);
	*value = geoidx_fast_stored(summary_width[kind],
								(const char *) payload + IndexInfoFindDataOffset(payload->t_info));
	return true;
}

/* The tag a leaf of the given kind keeps for an entry with this payload (NULL: none). */
uint8
geoidx_payload_tag(IndexTuple payload, int kind)
{
	int64 value;
	if (payload == NULL || !geoidx_payload_tag_value(payload, kind, &value))
		return geoidx::kTagNull;
	return geoidx::value_tag(value);
}

/* Widen a chunk box to doubles (an empty one stays empty). */
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

/* Grow a chunk box to hold box b, rounding outwards so that the float box still holds it. */
void
geoidx_chunk_extend(GeoidxChunkBox *c, const geoidx::Box3 &b)
{
	for (int a = 0; a < 3; a++)
	{
		float flo = (float) b.lo[a];
		float fhi = (float) b.hi[a];
		float lo = (double) flo > b.lo[a]
					   ? std::nextafter(flo, -std::numeric_limits<float>::infinity())
					   : flo;
		float hi = (double) fhi < b.hi[a]
					   ? std::nextafter(fhi, std::numeric_limits<float>::infinity())
					   : fhi;
		c->lo[a] = std::min(c->lo[a], lo);
		c->hi[a] = std::max(c->hi[a], hi);
	}
}

/* Compute a point entry's unit vector exactly as the search and the page boxes do. */
geoidx::Vec3
geoidx_entry_vector(const GeoidxLeafEntry *e)
{
	return geoidx::unit_vector(geoidx::geographic_point(geoidx_entry_lonlat(e->x, e->y)));
}

/*
 * The box a leaf entry adds to its chunk and page: a point's unit vector, a
 * shape's unpacked box; false for a NULL or EMPTY row, which adds nothing.
 */
bool
geoidx_entry_box(const GeoidxLeafEntry *e, geoidx::Box3 *box)
{
	switch (GeoidxEntryKind(e))
	{
		case GEOIDX_KIND_POINT:
			*box = geoidx::box_of(geoidx_entry_vector(e));
			return true;
		case GEOIDX_KIND_SHAPE:
		case GEOIDX_KIND_SHAPE_GRID:
		case GEOIDX_KIND_SHAPE_PLANAR_GRID:
		case GEOIDX_KIND_SHAPE_GRID_PIECES:
		case GEOIDX_KIND_SHAPE_PLANAR_GRID_PIECES:
			*box = GeoidxEntryShapeBox(e);
			return true;
		default:
			return false;
	}
}

/*
 * The interior grid of a leaf entry of page, false for an entry without one.
 * The payload's size was checked against the page when it was read (a grid
 * entry whose payload cannot hold a grid is corrupt, and reads as none).
 */
bool
geoidx_entry_grid(Page page, const GeoidxLeafEntry *e, geoidx::InteriorGrid *grid)
{
	int off = GeoidxEntryPayloadOffset(e);
	if (!GeoidxEntryHasGrid(e) || off == 0 || off + sizeof(IndexTupleData) > BLCKSZ)
		return false;
	IndexTuple t = (IndexTuple) ((char *) page + off);
	Size sz = IndexTupleSize(t);
	if (sz < sizeof(IndexTupleData) + sizeof(*grid) || off + sz > BLCKSZ)
		return false;
	memcpy(grid, (char *) t + sz - sizeof(*grid), sizeof(*grid));
	return true;
}

/*
 * The pieces of a leaf entry of page and their grids (grids: kMaxPieces of
 * them), false for an entry without pieces. A payload that cannot hold the
 * pieces its count says is corrupt (geoidx_verify says so) and reads as none:
 * the entry's box and grid still decide soundly.
 */
bool
geoidx_entry_pieces(Page page, const GeoidxLeafEntry *e, geoidx::ShapePieces *pieces,
					geoidx::InteriorGrid *grids)
{
	int off = GeoidxEntryPayloadOffset(e);
	if (!GeoidxEntryHasPieces(e) || off == 0 || off + sizeof(IndexTupleData) > BLCKSZ)
		return false;
	IndexTuple t = (IndexTuple) ((char *) page + off);
	Size sz = IndexTupleSize(t);
	const Size tail = sizeof(uint64) + sizeof(geoidx::InteriorGrid);
	if (sz < sizeof(IndexTupleData) + tail || off + sz > BLCKSZ)
		return false;
	uint64 n;
	memcpy(&n, (char *) t + sz - tail, sizeof(n));
	if (n < 2 || n > (uint64) geoidx::kMaxPieces ||
		sz < sizeof(IndexTupleData) + tail + n * sizeof(geoidx::StoredPiece))
		return false;
	geoidx::StoredPiece stored[geoidx::kMaxPieces];
	memcpy(stored, (char *) t + sz - tail - n * sizeof(geoidx::StoredPiece),
		   n * sizeof(geoidx::StoredPiece));
	geoidx::load_pieces(stored, (int) n, pieces, grids);
	return true;
}

/*
 * Fill a leaf entry's kind and coordinate bytes from a decoded, checked value
 * (NULL: a NULL row); *box gets what the entry adds to its page, and the
 * result says whether it adds anything. The TID is the caller's.
 */
bool
geoidx_entry_set_value(GeoidxLeafEntry *e, const GeoidxPoint *p, geoidx::Box3 *box)
{
	e->x = e->y = 0.0;
	if (p == NULL)
		e->flags = GEOIDX_KIND_NULL;
	else if (p->empty)
		e->flags = GEOIDX_KIND_EMPTY;
	else if (p->shape)
	{
		e->flags = GEOIDX_KIND_SHAPE;
		GeoidxEntrySetShapeBox(e, p->box);
	}
	else
	{
		e->flags = GEOIDX_KIND_POINT;
		e->x = p->x;
		e->y = p->y;
	}
	return geoidx_entry_box(e, box);
}

/* Initialise the metapage: magic, format version and entry sizes for pg_filedump. */
void
geoidx_init_metapage(Page page)
{
	PageInit(page, BLCKSZ, sizeof(GeoidxPageOpaqueData));
	GeoidxPageOpaque op = GeoidxPageGetOpaque(page);
	op->nsn = InvalidXLogRecPtr;
	op->rightlink = InvalidBlockNumber;
	op->level = 0;
	op->flags = GEOIDX_F_META;
	op->payload_size = 0;
	op->page_id = GEOIDX_PAGE_ID;
	GeoidxMetaPageData *meta = GeoidxPageGetMeta(page);
	meta->magic = GEOIDX_MAGIC;
	meta->version = GEOIDX_FORMAT_VERSION;
	meta->leaf_entry_size = sizeof(GeoidxLeafEntry);
	meta->internal_entry_size = sizeof(GeoidxInternalEntry);
	((PageHeader) page)->pd_lower = (LocationIndex) ((char *) (meta + 1) - (char *) page);
}

/* The index's name, for callers that must not see the relcache's layout. */
const char *
geoidx_relname(Relation index)
{
	return RelationGetRelationName(index);
}

/*
 * Raise the one error for a corrupted geoidx page: which index, which block,
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

/* Report a corrupted page with a fixed detail (no format string to check). */
static void
corrupted(Relation index, BlockNumber blk, const char *why)
{
	geoidx_corrupted(index, blk, "%s", why);
}

/*
 * Check cheaply every page geoidx reads, so that a garbage page is an error
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
	if ((op->flags & ~(GEOIDX_F_LAYOUT | GEOIDX_F_FOLLOW_RIGHT)) != 0)
		corrupted(index, blk, "unknown page flags");
	if ((op->flags & (GEOIDX_F_SUMMARY_MASK | GEOIDX_F_TAGS)) != 0 &&
		(!(op->flags & GEOIDX_F_LEAF) || GeoidxLeafSummaryKind(page) == 0 ||
		 GeoidxLeafSummaryKind(page) > GEOIDX_SUMMARY_INT8))
		corrupted(index, blk, "entry tags on an internal page, or of an unknown kind");
	if ((op->flags & GEOIDX_F_SUMMARY_MASK) != 0 && !(op->flags & GEOIDX_F_TAGS))
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						errmsg("index \"%s\" has a leaf of a development layout, at block %u",
							   RelationGetRelationName(index), blk),
						errdetail("A development build of geoidx 0.2 kept chunk summaries in "
								  "its leaves; no release wrote them, and this library does not "
								  "read them."),
						errhint("REINDEX the index.")));
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

/* Return the page of a buffer the caller has locked, checked as every page geoidx reads. */
Page
geoidx_locked_page(Relation index, Buffer buf)
{
	Page page = BufferGetPage(buf);
	geoidx_check_page(index, buf, page);
	return page;
}

/* Return the on-disk format in an index's metapage, once the metapage proves to be geoidx's. */
uint32
geoidx_index_format_of(Relation index)
{
	Buffer buf = ReadBuffer(index, GEOIDX_METAPAGE_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	Page page = BufferGetPage(buf);
	geoidx_check_page(index, buf, page);
	GeoidxMetaPageData *meta = GeoidxPageGetMeta(page);
	if (!(GeoidxPageGetOpaque(page)->flags & GEOIDX_F_META) || meta->magic != GEOIDX_MAGIC)
		corrupted(index, GEOIDX_METAPAGE_BLKNO, "the metapage has no geoidx magic number");
	uint32 version = meta->version;
	UnlockReleaseBuffer(buf);
	return version;
}

/*
 * Refuse an index of another on-disk format than this library's (README:
 * versions and upgrades): reading it with this layout would give wrong answers,
 * writing to it would corrupt it. The hint names the statement that fixes it.
 */
uint32
geoidx_check_metapage(Relation index)
{
	uint32 version = geoidx_index_format_of(index);
	if (version != GEOIDX_FORMAT_VERSION && version != GEOIDX_FORMAT_POINTS_ONLY)
	{
		char *name = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(index)),
												RelationGetRelationName(index));
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						errmsg("index \"%s\" has on-disk format %u, which geoidx %s cannot read",
							   RelationGetRelationName(index), version, GEOIDX_LIB_VERSION),
						errdetail("This geoidx library reads and writes on-disk formats %d and %d "
								  "only.",
								  GEOIDX_FORMAT_POINTS_ONLY, GEOIDX_FORMAT_VERSION),
						errhint("Rebuild the index with REINDEX INDEX %s;", name)));
	}
	return version;
}

/*
 * Refuse to put a shape into an index of the points-only format (one that
 * geoidx 0.1 built): its readers may be that release's, which would misread
 * a shape entry. REINDEX writes the current format.
 */
void
geoidx_check_shapes_allowed(Relation index)
{
	GeoidxRelInfo *info = (GeoidxRelInfo *) geoidx_rel_info(index);
	if (info->format == 0)
		info->format = geoidx_check_metapage(index);
	if (info->format == GEOIDX_FORMAT_POINTS_ONLY)
	{
		char *name = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(index)),
												RelationGetRelationName(index));
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						errmsg("index \"%s\" has on-disk format %d, which holds points only",
							   RelationGetRelationName(index), GEOIDX_FORMAT_POINTS_ONLY),
						errdetail("geoidx 0.1 built it; shapes need on-disk format %d.",
								  GEOIDX_FORMAT_VERSION),
						errhint("Rebuild the index with REINDEX INDEX %s;", name)));
	}
}

/* Check the format once per relcache entry, for the write path that runs per row. */
void
geoidx_check_metapage_once(Relation index)
{
	GeoidxRelInfo *info = (GeoidxRelInfo *) geoidx_rel_info(index);
	if (!info->format_checked)
	{
		info->format = geoidx_check_metapage(index);
		info->format_checked = true;
	}
}

/*
 * Extend the relation by a new page, exclusively locked. geoidx never
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

/* ---------- leaves with payloads ---------- */

/* Tell whether a leaf has room for one more entry whose payload is payload_size bytes (0: none). */
bool
geoidx_leaf_fits(Page page, Size payload_size)
{
	PageHeader ph = (PageHeader) page;
	Size need = sizeof(GeoidxLeafEntry) + MAXALIGN(payload_size);
	return ph->pd_lower + need <= ph->pd_upper && GeoidxPageCount(page) < GeoidxPageCapacity(page);
}

/*
 * Append an entry (its payload offset bits are replaced) and its payload to a
 * leaf, growing the chunk's box and the page's box to cover its box (box:
 * NULL for a NULL or EMPTY row). The caller has checked geoidx_leaf_fits.
 */
void
geoidx_leaf_append(Page page, const GeoidxLeafEntry *entry, const char *payload, Size payload_size,
				   const geoidx::Box3 *box)
{
	PageHeader ph = (PageHeader) page;
	int n = GeoidxPageCount(page);
	GeoidxLeafEntry e = *entry;
	e.flags &= GEOIDX_KIND_MASK;
	GeoidxPageOpaque op = GeoidxPageGetOpaque(page);
	uint16 size = payload != NULL ? (uint16) MAXALIGN(payload_size) : 0;
	if (n == 0)
		op->payload_size = size;
	else if (op->payload_size != size)
		op->payload_size = 0;
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
	if (GeoidxLeafHasTags(page))
		GeoidxLeafTags(page)[n] =
			geoidx_payload_tag((IndexTuple) payload, GeoidxLeafSummaryKind(page));
	if (box != NULL)
	{
		geoidx_chunk_extend(&GeoidxChunkBoxes(page)[n / GEOIDX_CHUNK], *box);
		geoidx::box_extend(GeoidxPageGetBox(page), *box);
	}
}

/* Report an entry whose payload offset leads outside the page's payload area. */
void
geoidx_payload_corrupted(Relation index, BlockNumber blk)
{
	corrupted(index, blk, "an entry's payload lies outside the payload area");
	pg_unreachable();
}

/*
 * Rewrite a leaf with only the entries keep[] marks (all if keep is NULL),
 * their payloads packed again below the chunk boxes, which are recomputed:
 * what VACUUM does after removing entries. The page box is not shrunk (a
 * larger box is still correct, and shrinking it would need the parent too).
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
		geoidx::Box3 b;
		bool has_box = geoidx_entry_box(&e[i], &b);
		geoidx_leaf_append(page, &e[i], payload, payload ? IndexTupleSize((IndexTuple) payload) : 0,
						   has_box ? &b : NULL);
	}
}

/* ---------- internal pages ---------- */

/* Append a downlink to an internal page; the page box grows to cover it. */
void
geoidx_internal_append(Page page, BlockNumber child, const geoidx::Box3 &box)
{
	int n = GeoidxPageCount(page);
	Assert(!GeoidxPageIsLeaf(page) && n < GEOIDX_INTERNAL_CAPACITY);
	GeoidxInternalEntry *e = &GeoidxInternalEntries(page)[n];
	e->child = child;
	e->unused = 0;
	e->box = box;
	GeoidxPageSetCount(page, n + 1);
	geoidx::box_extend(GeoidxPageGetBox(page), box);
}

/*
 * Rewrite downlink i (a split's left half gets the box of what it kept); the
 * page box grows to cover it and is never shrunk, like every page box.
 */
void
geoidx_internal_set(Page page, int i, BlockNumber child, const geoidx::Box3 &box)
{
	Assert(!GeoidxPageIsLeaf(page) && i >= 0 && i < GeoidxPageCount(page));
	GeoidxInternalEntry *e = &GeoidxInternalEntries(page)[i];
	e->child = child;
	e->unused = 0;
	e->box = box;
	geoidx::box_extend(GeoidxPageGetBox(page), box);
}

/* Grow downlink i and the page box to cover box b, before an insert goes below with it. */
void
geoidx_internal_enlarge(Page page, int i, const geoidx::Box3 &b)
{
	Assert(!GeoidxPageIsLeaf(page) && i >= 0 && i < GeoidxPageCount(page));
	geoidx::box_extend(&GeoidxInternalEntries(page)[i].box, b);
	geoidx::box_extend(GeoidxPageGetBox(page), b);
}

/*
 * Copy a full internal page's downlinks with entry i's box replaced and the
 * downlink to right appended: the entries of the split that makes room for it
 * (n + 1 of them, one more than a page holds, hence an array and not a page).
 */
GeoidxInternalEntry *
geoidx_internal_with_downlink(Page page, int i, const geoidx::Box3 &lbox, BlockNumber right,
							  const geoidx::Box3 &rbox, int *nentries)
{
	int n = GeoidxPageCount(page);
	GeoidxInternalEntry *all =
		(GeoidxInternalEntry *) palloc(sizeof(GeoidxInternalEntry) * (n + 1));
	memcpy(all, GeoidxInternalEntries(page), sizeof(GeoidxInternalEntry) * n);
	all[i].box = lbox;
	all[n].child = right;
	all[n].unused = 0;
	all[n].box = rbox;
	*nentries = n + 1;
	return all;
}

/* ---------- splits ---------- */

/* Count the bytes a leaf entry takes on a page, its payload (read from src) included. */
Size
geoidx_leaf_entry_bytes(const GeoidxLeafEntry *e, const char *src)
{
	int off = GeoidxEntryPayloadOffset(e);
	return sizeof(GeoidxLeafEntry) + (off ? MAXALIGN(IndexTupleSize((IndexTuple) (src + off))) : 0);
}

/*
 * Fill two freshly initialised pages with a split's entries: the first
 * left_count of the split order go left, the rest right, leaf entries with
 * their payloads. The pages' boxes come out as the union of their entries.
 */
void
geoidx_split_fill(Page left, Page right, const GeoidxSplitEntries *s)
{
	bool leaf = GeoidxPageIsLeaf(left);
	for (int k = 0; k < s->n; k++)
	{
		size_t i = s->order[k];
		Page dst = k < s->left_count ? left : right;
		if (leaf)
		{
			const GeoidxLeafEntry *e = &((const GeoidxLeafEntry *) s->entries)[i];
			int off = GeoidxEntryPayloadOffset(e);
			const char *payload = off ? s->src + off : NULL;
			/* NULL and EMPTY rows have an empty box */
			const geoidx::Box3 &b = s->boxes[i];
			geoidx_leaf_append(dst, e, payload, payload ? IndexTupleSize((IndexTuple) payload) : 0,
							   geoidx::box_is_empty(b) ? NULL : &b);
		}
		else
		{
			const GeoidxInternalEntry *e = &((const GeoidxInternalEntry *) s->entries)[i];
			geoidx_internal_append(dst, e->child, e->box);
		}
	}
}

/*
 * Make left the left half of a split and right its new sibling: the sibling
 * takes over the old right-link, and left points to it with FOLLOW_RIGHT
 * until its parent has the downlink. Both keep the old NSN.
 */
void
geoidx_page_set_split(Page left, Page right, BlockNumber right_blk, BlockNumber old_right,
					  XLogRecPtr old_nsn)
{
	GeoidxPageOpaque rop = GeoidxPageGetOpaque(right);
	rop->rightlink = old_right;
	rop->nsn = old_nsn;
	GeoidxPageOpaque lop = GeoidxPageGetOpaque(left);
	lop->rightlink = right_blk;
	lop->nsn = old_nsn;
	lop->flags |= GEOIDX_F_FOLLOW_RIGHT;
}

/*
 * Finish a page's split once its parent has the downlink: FOLLOW_RIGHT goes,
 * and the NSN tells scans that read the parent before nsn to follow the
 * right-link all the same.
 */
void
geoidx_page_end_split(Page page, XLogRecPtr nsn)
{
	GeoidxPageGetOpaque(page)->flags &= ~GEOIDX_F_FOLLOW_RIGHT;
	GeoidxPageGetOpaque(page)->nsn = nsn;
}
