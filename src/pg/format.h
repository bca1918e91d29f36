/*
 * geoidx on disk: the page layout, what page.cc writes and every reader reads.
 *
 * The index is an R-tree over 3-D boxes of unit vectors, with the GiST
 * concurrency protocol (right-links, NSN, FOLLOW_RIGHT) and generic WAL.
 *
 * Block 0 is the metapage, block 1 is always the root (a root split moves the
 * root's entries to two new pages and leaves the root one level higher, so no
 * pointer to the root ever changes). Every other page is a leaf (level 0) or an
 * internal page (level >= 1):
 *
 *   PageHeaderData | GeoidxPageBox | entries[n] ... pd_lower | free | opaque
 *
 * Entries are a fixed-size array (no line pointers): n is derived from
 * pd_lower, which keeps generic WAL records to the changed bytes and the free
 * space out of full-page images. GeoidxPageBox covers every entry on the page
 * (it only grows between splits), so a scan can accept or reject a whole page
 * from the page itself, even when the parent's copy of the box is stale.
 *
 * A leaf entry holds the heap TID and the point's coordinates exactly as the
 * heap's geometry holds them (doubles), which is what lets the index decide a
 * radius or compute a distance with no heap recheck. A shape (any geometry
 * that is not a point) has an entry of kind SHAPE in the same leaves: the same
 * 24 bytes, its 16 coordinate bytes holding the shape's box of unit vectors
 * packed outwards (src/core/packed_box.h), so that leaves of points and shapes
 * have one layout, one capacity, one set of chunk boxes.
 */
#pragma once

#include "interior_grid.h"
#include "packed_box.h"
#include "sphere_bounds.h"
#include "value_tags.h"

#include "pg.h"

#define GEOIDX_MAGIC 0x67656F78 /* "geox" */
/*
 * 2: NULL and EMPTY rows are indexed (leaf entries of kind NULL / EMPTY), so
 * that scans with no spatial condition and k-NN scans (which return them last,
 * with a NULL distance) see every row. Version 1 left them out.
 */
#define GEOIDX_FORMAT_VERSION 4 /* 4: leaves may hold shape entries */
/*
 * 3: leaves carry chunk boxes; points only. Its layout is format 4's with no
 * shape entry, so this library reads and writes it, and refuses only to put a
 * shape into it (that needs the REINDEX that makes it format 4).
 */
#define GEOIDX_FORMAT_POINTS_ONLY 3
#define GEOIDX_PAGE_ID 0xFF8C /* last two bytes of every page, for pg_filedump */

#define GEOIDX_METAPAGE_BLKNO 0
#define GEOIDX_ROOT_BLKNO 1

/* page flags */
#define GEOIDX_F_META 0x0001
#define GEOIDX_F_LEAF 0x0002
/* Split, and the parent does not point to the right sibling yet: scans must follow rightlink. */
#define GEOIDX_F_FOLLOW_RIGHT 0x0004
/*
 * A leaf of an index whose first column after the point is an integer or a
 * boolean: the column's width, as GEOIDX_SUMMARY_* in these bits; 0 for
 * other leaves. With GEOIDX_F_TAGS, the leaf keeps a tag of that column per
 * entry (below). Without it, the leaf was written by a development build of
 * 0.2 that kept 128-bit chunk summaries there instead, which no release
 * wrote and this library refuses (REINDEX rewrites it).
 */
#define GEOIDX_F_SUMMARY_SHIFT 4
#define GEOIDX_F_SUMMARY_MASK 0x0070
#define GEOIDX_SUMMARY_BOOL 1
#define GEOIDX_SUMMARY_INT2 2
#define GEOIDX_SUMMARY_INT4 3
#define GEOIDX_SUMMARY_INT8 4
#define GEOIDX_F_TAGS 0x0080
/* The flags that say a leaf's layout, which the halves of a split keep. */
#define GEOIDX_F_LAYOUT (GEOIDX_F_LEAF | GEOIDX_F_SUMMARY_MASK | GEOIDX_F_TAGS)

typedef struct GeoidxPageOpaqueData
{
	XLogRecPtr nsn;        /* end of the WAL position that finished the last split of this page */
	BlockNumber rightlink; /* right sibling created by the last split, or InvalidBlockNumber */
	uint16 level;          /* 0 = leaf */
	uint16 flags;
	/*
	 * A leaf whose every entry has a payload of this size (MAXALIGNed), so
	 * that entry i's lies at GeoidxLeafTop - (i + 1) * payload_size; 0 when
	 * not so (or not known: pages written before it was kept were all 0).
	 * Each append keeps it: the first sets it, any other size clears it.
	 */
	uint16 payload_size;
	uint16 page_id; /* GEOIDX_PAGE_ID */
} GeoidxPageOpaqueData;

typedef GeoidxPageOpaqueData *GeoidxPageOpaque;

typedef struct GeoidxMetaPageData
{
	uint32 magic;
	uint32 version;
	uint32 leaf_entry_size;
	uint32 internal_entry_size;
} GeoidxMetaPageData;

typedef struct GeoidxPageBox
{
	geoidx::Box3 box;
} GeoidxPageBox;

/*
 * Leaf entry kinds (low bits of flags). NULL and EMPTY entries have x = y = 0,
 * are covered by no box (they add nothing to their page's box, so a page of
 * them only has an empty box) and match no spatial condition: only scans
 * without one return them, k-NN scans after every point.
 */
#define GEOIDX_KIND_POINT 0x0000
#define GEOIDX_KIND_NULL 0x0001
#define GEOIDX_KIND_EMPTY 0x0002
/*
 * A shape: x and y hold its packed box (GeoidxEntryShapeBox), never read as
 * doubles. A scan decides it from the box where the box decides (all of it in
 * a region, or none), and otherwise returns it for the exact test on the heap
 * row (recheck).
 */
#define GEOIDX_KIND_SHAPE 0x0003
/*
 * A shape with an interior grid (src/core/interior_grid.h): the last
 * sizeof(InteriorGrid) bytes of its payload say which cells of its box lie
 * wholly inside or wholly outside it, so a scan decides a point there from the
 * index. Its payload is an IndexTuple whose size counts the grid: of the
 * columns after the point, or of none (its header only) in a single-column
 * index. A polygon none of whose cells is decided keeps kind SHAPE.
 */
#define GEOIDX_KIND_SHAPE_GRID 0x0004
/*
 * A SHAPE_GRID whose decided cells PostGIS's planar predicates of a point
 * (ST_Contains, ST_Covers, ST_Intersects: straight edges in degrees) decide
 * alike (src/core/planar_grid.h), so a planar scan decides a point there too.
 */
#define GEOIDX_KIND_SHAPE_PLANAR_GRID 0x0005
/*
 * A SHAPE_GRID or SHAPE_PLANAR_GRID of a large polygon (src/core/shape_pieces.h)
 * that also keeps its pieces: boxes that together hold every point of the
 * shape, each with its own interior grid. Its payload ends in
 * [pieces: n StoredPiece][n: uint64][the whole box's grid], the pieces
 * MAXALIGNed after the columns. A scan rules the row out where every piece
 * is outside a region, and decides a point that a piece's grid decides; the
 * planar claim is the whole grid's alone (a piece holds the geodesic edges,
 * not PostGIS's straight planar ones).
 */
#define GEOIDX_KIND_SHAPE_GRID_PIECES 0x0006
#define GEOIDX_KIND_SHAPE_PLANAR_GRID_PIECES 0x0007
#define GEOIDX_KIND_MASK 0x000F

typedef struct GeoidxLeafEntry
{
	ItemPointerData tid;
	uint16 flags;
	double x; /* longitude as stored in the heap (the geography cast may wrap it) */
	double y; /* latitude as stored in the heap */
} GeoidxLeafEntry;

typedef struct GeoidxInternalEntry
{
	BlockNumber child;
	uint32 unused;
	geoidx::Box3 box; /* covers the child's page box */
} GeoidxInternalEntry;

/*
 * An index with more columns than the point (extra key columns, INCLUDE
 * columns) keeps them per entry as a payload: an IndexTuple of those columns
 * (GeoidxRelInfo.payload_desc), stored at the end of the leaf page, growing
 * down from pd_special to pd_upper while the entry array grows up to pd_lower.
 * The entry's flags above the kind hold the payload's offset in the page in
 * MAXALIGN units (0: no payload); a single-column index has no payloads and
 * pd_upper stays at pd_special, so its pages are exactly as in format 2.
 */
#define GEOIDX_PAYLOAD_SHIFT 4
#define GEOIDX_PAYLOAD_UNIT 8

static_assert(MAXIMUM_ALIGNOF == GEOIDX_PAYLOAD_UNIT, "payload offsets count MAXALIGN units");
static_assert(BLCKSZ / GEOIDX_PAYLOAD_UNIT < (1 << (16 - GEOIDX_PAYLOAD_SHIFT)),
			  "a payload offset must fit in the entry's flags");

static inline int
GeoidxEntryKind(const GeoidxLeafEntry *e)
{
	return e->flags & GEOIDX_KIND_MASK;
}

static inline int
GeoidxEntryPayloadOffset(const GeoidxLeafEntry *e)
{
	return (e->flags >> GEOIDX_PAYLOAD_SHIFT) * GEOIDX_PAYLOAD_UNIT;
}

static inline bool
GeoidxEntryIsPoint(const GeoidxLeafEntry *e)
{
	return GeoidxEntryKind(e) == GEOIDX_KIND_POINT;
}

static inline bool
GeoidxEntryIsShape(const GeoidxLeafEntry *e)
{
	return GeoidxEntryKind(e) >= GEOIDX_KIND_SHAPE &&
		   GeoidxEntryKind(e) <= GEOIDX_KIND_SHAPE_PLANAR_GRID_PIECES;
}

/* A shape entry whose payload ends in an interior grid. */
static inline bool
GeoidxEntryHasGrid(const GeoidxLeafEntry *e)
{
	return GeoidxEntryKind(e) >= GEOIDX_KIND_SHAPE_GRID &&
		   GeoidxEntryKind(e) <= GEOIDX_KIND_SHAPE_PLANAR_GRID_PIECES;
}

/* A shape entry whose grid PostGIS's planar predicates of a point decide alike. */
static inline bool
GeoidxEntryHasPlanarGrid(const GeoidxLeafEntry *e)
{
	return GeoidxEntryKind(e) == GEOIDX_KIND_SHAPE_PLANAR_GRID ||
		   GeoidxEntryKind(e) == GEOIDX_KIND_SHAPE_PLANAR_GRID_PIECES;
}

/* A shape entry whose payload keeps its pieces before its grid. */
static inline bool
GeoidxEntryHasPieces(const GeoidxLeafEntry *e)
{
	return GeoidxEntryKind(e) == GEOIDX_KIND_SHAPE_GRID_PIECES ||
		   GeoidxEntryKind(e) == GEOIDX_KIND_SHAPE_PLANAR_GRID_PIECES;
}

/* The kind a scan hands on: a shape is a shape, grid or none. */
static inline int
GeoidxEntryRowKind(const GeoidxLeafEntry *e)
{
	return GeoidxEntryIsShape(e) ? GEOIDX_KIND_SHAPE : GeoidxEntryKind(e);
}

/* The box of a shape entry, unpacked: it holds every point of the shape. */
static inline geoidx::Box3
GeoidxEntryShapeBox(const GeoidxLeafEntry *e)
{
	geoidx::PackedBox p;
	static_assert(sizeof(p) == sizeof(e->x) + sizeof(e->y), "a packed box fills x and y");
	memcpy(&p.w[0], &e->x, sizeof(double));
	memcpy(&p.w[1], &e->y, sizeof(double));
	return geoidx::unpack_box(p);
}

/* Store a shape's box in a shape entry's coordinate bytes. */
static inline void
GeoidxEntrySetShapeBox(GeoidxLeafEntry *e, const geoidx::Box3 &box)
{
	geoidx::PackedBox p = geoidx::pack_box(box);
	memcpy(&e->x, &p.w[0], sizeof(double));
	memcpy(&e->y, &p.w[1], sizeof(double));
}

static_assert(sizeof(GeoidxLeafEntry) == 24, "leaf entry layout is part of the on-disk format");
static_assert(sizeof(GeoidxInternalEntry) == 56,
			  "internal entry layout is part of the on-disk format");

#define GeoidxPageGetOpaque(page) ((GeoidxPageOpaque) PageGetSpecialPointer(page))
#define GeoidxPageIsLeaf(page) ((GeoidxPageGetOpaque(page)->flags & GEOIDX_F_LEAF) != 0)
#define GeoidxPageGetMeta(page) ((GeoidxMetaPageData *) PageGetContents(page))
#define GeoidxPageGetBox(page) (&((GeoidxPageBox *) PageGetContents(page))->box)
#define GEOIDX_ENTRIES_OFFSET (MAXALIGN(SizeOfPageHeaderData) + MAXALIGN(sizeof(GeoidxPageBox)))
#define GEOIDX_ENTRIES_SPACE                                                                       \
	(BLCKSZ - GEOIDX_ENTRIES_OFFSET - MAXALIGN(sizeof(GeoidxPageOpaqueData)))
/*
 * Chunk boxes. A leaf's entries are cut into chunks of GEOIDX_CHUNK consecutive
 * entries (in build order, which is Hilbert order, so a chunk is a small patch
 * of the leaf's area), and the top of the leaf, just below the special space,
 * keeps one box per chunk: floats rounded outwards, so that a box always holds
 * its entries. A search decides a whole chunk from its box: a paging bound or a
 * ring's hole skips the chunks nearer than it with no trigonometry, and a k-NN
 * search keys a chunk's entries by the chunk's distance, so that far chunks
 * never surface. Appends extend the chunk's box; VACUUM and splits recompute.
 */
#define GEOIDX_CHUNK 32
#define GEOIDX_LEAF_CHUNKS 11

typedef struct GeoidxChunkBox
{
	float lo[3];
	float hi[3];
} GeoidxChunkBox;

#define GEOIDX_CHUNK_AREA MAXALIGN(GEOIDX_LEAF_CHUNKS * sizeof(GeoidxChunkBox))

/*
 * Entry tags. In an index whose first column after the point is an integer or
 * a boolean (category in (pos, category)), every leaf keeps, just below its
 * chunk boxes, one byte per entry: the tag of that column's value
 * (src/core/value_tags.h; the value itself where it is 0 .. 126, else a hash;
 * 0 for NULL). A search whose filters ask that column for a value or a list
 * of them compares a chunk's 32 tags at once: no match rules the chunk out,
 * and a match of an exact tag is the row, with no payload read. The 10
 * nearest of a 1 % category read ~22 chunks a query, and the first load of
 * each chunk's payloads was most of its leaf visits (bench/PROFILES.md, KF).
 * Appends set the entry's tag; VACUUM and splits rewrite them. Such a leaf
 * always has payloads of at least 16 bytes, so it holds at most 191 entries:
 * six chunks of tags.
 */
#define GEOIDX_TAG_CHUNKS 6
#define GEOIDX_TAG_CAPACITY (GEOIDX_TAG_CHUNKS * GEOIDX_CHUNK)
#define GEOIDX_TAG_AREA MAXALIGN(GEOIDX_TAG_CAPACITY)
static_assert(geoidx::kTagGroup == GEOIDX_CHUNK, "a chunk's tags are tested at once");

/* the bytes of a leaf without tags for entries and payloads */
#define GEOIDX_LEAF_SPACE (GEOIDX_ENTRIES_SPACE - GEOIDX_CHUNK_AREA)
#define GEOIDX_LEAF_CAPACITY ((int) (GEOIDX_LEAF_SPACE / sizeof(GeoidxLeafEntry)))
#define GEOIDX_INTERNAL_CAPACITY ((int) (GEOIDX_ENTRIES_SPACE / sizeof(GeoidxInternalEntry)))

static_assert(GEOIDX_LEAF_CHUNKS * GEOIDX_CHUNK >= GEOIDX_LEAF_CAPACITY,
			  "every entry a leaf can hold belongs to a chunk");
static_assert((GEOIDX_LEAF_SPACE - GEOIDX_TAG_AREA) /
					  (sizeof(GeoidxLeafEntry) + MAXALIGN(sizeof(IndexTupleData) + 1)) <=
				  GEOIDX_TAG_CAPACITY,
			  "a leaf with tags, whose every entry has a payload, never outgrows them");
static_assert(sizeof(GeoidxChunkBox) == 24, "chunk boxes are part of the on-disk format");

/* The chunk boxes of a leaf. */
static inline GeoidxChunkBox *
GeoidxChunkBoxes(Page page)
{
	return (GeoidxChunkBox *) ((char *) page + ((PageHeader) page)->pd_special - GEOIDX_CHUNK_AREA);
}

/* The width of the column a leaf's tags are of (GEOIDX_SUMMARY_*), 0: none. */
static inline int
GeoidxLeafSummaryKind(Page page)
{
	return (GeoidxPageGetOpaque(page)->flags & GEOIDX_F_SUMMARY_MASK) >> GEOIDX_F_SUMMARY_SHIFT;
}

/* Whether a leaf keeps entry tags (geoidx_check_page refuses a kind without them). */
static inline bool
GeoidxLeafHasTags(Page page)
{
	return (GeoidxPageGetOpaque(page)->flags & GEOIDX_F_TAGS) != 0;
}

/* The entry tags of a leaf that has them, just below its chunk boxes: entry i's is [i]. */
static inline uint8 *
GeoidxLeafTags(Page page)
{
	return (uint8 *) GeoidxChunkBoxes(page) - GEOIDX_TAG_AREA;
}

/* Where a leaf's payload area ends: at its tags, or its chunk boxes. */
static inline LocationIndex
GeoidxLeafTop(Page page)
{
	return (LocationIndex) (((PageHeader) page)->pd_special - GEOIDX_CHUNK_AREA -
							(GeoidxLeafHasTags(page) ? GEOIDX_TAG_AREA : 0));
}

/* The bytes of a leaf for entries and payloads. */
static inline Size
GeoidxLeafSpace(Page page)
{
	return GEOIDX_LEAF_SPACE - (GeoidxLeafHasTags(page) ? GEOIDX_TAG_AREA : 0);
}

/* GeoidxPageOpaqueData.payload_size of a leaf: 0, or every entry's payload's size. */
static inline int
GeoidxLeafPayloadSize(Page page)
{
	return GeoidxPageGetOpaque(page)->payload_size;
}

static inline GeoidxLeafEntry *
GeoidxLeafEntries(Page page)
{
	return (GeoidxLeafEntry *) ((char *) page + GEOIDX_ENTRIES_OFFSET);
}

static inline GeoidxInternalEntry *
GeoidxInternalEntries(Page page)
{
	return (GeoidxInternalEntry *) ((char *) page + GEOIDX_ENTRIES_OFFSET);
}

static inline int
GeoidxPageEntrySize(Page page)
{
	return GeoidxPageIsLeaf(page) ? (int) sizeof(GeoidxLeafEntry)
								  : (int) sizeof(GeoidxInternalEntry);
}

static inline int
GeoidxPageCount(Page page)
{
	return (int) ((((PageHeader) page)->pd_lower - GEOIDX_ENTRIES_OFFSET) /
				  GeoidxPageEntrySize(page));
}

static inline int
GeoidxPageCapacity(Page page)
{
	if (!GeoidxPageIsLeaf(page))
		return GEOIDX_INTERNAL_CAPACITY;
	return GeoidxLeafHasTags(page) ? GEOIDX_TAG_CAPACITY : GEOIDX_LEAF_CAPACITY;
}

static inline void
GeoidxPageSetCount(Page page, int n)
{
	((PageHeader) page)->pd_lower =
		(LocationIndex) (GEOIDX_ENTRIES_OFFSET + n * GeoidxPageEntrySize(page));
}

/*
 * The largest payload: a quarter of a page, so that any split can put every
 * entry somewhere and a page always takes at least three entries.
 */
#define GEOIDX_MAX_PAYLOAD (MAXALIGN_DOWN(GEOIDX_ENTRIES_SPACE / 4) - sizeof(GeoidxLeafEntry))
/* A payload's columns may take this much, leaving room for a shape's grid. */
#define GEOIDX_MAX_PAYLOAD_COLUMNS (GEOIDX_MAX_PAYLOAD - sizeof(geoidx::InteriorGrid))
