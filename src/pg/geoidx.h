/*
 * What the glue files share, grouped by the file that defines it (as
 * contrib/bloom/bloom.h): every declaration one .cc file takes from another
 * is here, none is written in a .cc file. The on-disk format is format.h.
 */
#pragma once

#include <cmath>
#include <type_traits>

#include "dwithin_memo.h"
#include "heap_order.h"
#include "knn_search.h"
#include "region.h"
#include "planar_box.h"
#include "shape_pieces.h"
#include "sphere_bounds.h"

#include "pg.h"

#include "format.h"

namespace geoidx
{
struct CoverShape;
struct SerializedHeader;
} // namespace geoidx

/*
 * How an entry's interior grid is built (entry_grid.cc): as this version
 * builds it, or by blocks only, as 0.2 did before the raster; geoidx_verify
 * accepts either, and the test-only setting geoidx.interior_grid builds the
 * old way so that a test can hold an index of both.
 */
typedef enum GeoidxGridBuilder
{
	GEOIDX_GRID_CURRENT,
	GEOIDX_GRID_BLOCKS,
} GeoidxGridBuilder;

extern int geoidx_grid_builder;
extern void geoidx_entry_grid_init(void);
extern int geoidx_build_entry_grid(const geoidx::CoverShape *s, const GeoidxLeafEntry *entry,
								   GeoidxGridBuilder builder, geoidx::InteriorGrid *grid);
extern int geoidx_build_entry_pieces(const geoidx::CoverShape *s, const GeoidxLeafEntry *entry,
									 GeoidxGridBuilder builder, const geoidx::InteriorGrid &grid,
									 geoidx::StoredPiece *out);

/* reloptions */
typedef struct GeoidxOptions
{
	int32 vl_len_;
	int fillfactor; /* how full the bulk build packs leaves, percent */
} GeoidxOptions;

#define GEOIDX_DEFAULT_FILLFACTOR 90
#define GEOIDX_MIN_FILLFACTOR 10

/*
 * What geoidx keeps per relcache entry (rd_amcache): the "value indexed by"
 * text of error messages and, for an index with more than one column, the
 * descriptor of the payload (the columns after the point).
 */
typedef struct GeoidxRelInfo
{
	const char *what;
	TupleDesc payload_desc; /* NULL: the index has the point only */
	bool format_checked;    /* the metapage's format is one this library reads */
	uint32 format;          /* that format, once read (0: not yet) */
} GeoidxRelInfo;

/* a decoded indexed value */
/*
 * The parts of PostGIS's typmod of geometry(Type, SRID) and geography(...),
 * as liblwgeom's TYPMOD_GET_* macros read them (its headers are not shipped);
 * a typmod < 0 says nothing.
 */
#define GEOIDX_TYPMOD_POINTTYPE 1
static inline int32
GeoidxTypmodSrid(int32 typmod)
{
	return ((typmod & 0x0FFFFF00) - (typmod & 0x10000000)) >> 8;
}
static inline int
GeoidxTypmodType(int32 typmod)
{
	return (typmod & 0x000000FC) >> 2;
}
static inline bool
GeoidxTypmodHasZ(int32 typmod)
{
	return (typmod & 0x00000002) != 0;
}
static inline bool
GeoidxTypmodHasM(int32 typmod)
{
	return (typmod & 0x00000001) != 0;
}

typedef struct GeoidxPoint
{
	bool empty;
	bool shape; /* not a point: box holds it, x and y are its box's centre */
	double x;
	double y;
	geoidx::Box3 box;
} GeoidxPoint;

typedef struct GeoidxDecodeRequest
{
	Datum value;
	const char *what;
	GeoidxPoint result;
	/* non-NULL: prepare a polygonal value in it (for its grid) and take its box from that walk */
	MemoryContext prepare_cxt;
	const geoidx::CoverShape *prepared; /* out: that prepared form, or NULL */
} GeoidxDecodeRequest;

/* gserialized.cc: reads a PostGIS geometry/geography datum */
extern const char *geoidx_index_what(Relation index);
extern const GeoidxRelInfo *geoidx_rel_info(Relation index);
extern void geoidx_decode_indexed(Relation index, Datum value, const char *what, GeoidxPoint *out,
								  MemoryContext prepare_cxt, const geoidx::CoverShape **prepared);
extern void geoidx_decode_point(Datum value, const char *what, GeoidxPoint *out);
extern void geoidx_decode_any(Datum value, const char *what, GeoidxPoint *out);
extern bool geoidx_value_pieces(Datum value, const char *what, geoidx::ShapePieces *pieces,
								geoidx::InteriorGrid *grids);
extern int32 geoidx_datum_srid(Datum value);
extern void geoidx_point_unit(const GeoidxPoint *p, const char *what, geoidx::LonLat *ll,
							  geoidx::Vec3 *v);
extern bool geoidx_read_point(Datum d, const char *what, GeoidxPoint *p, geoidx::LonLat *ll);

/* A leaf entry's stored coordinates as the geography cast leaves them (the core's rule). */
static inline geoidx::LonLat
geoidx_entry_lonlat(double x, double y)
{
	return geoidx::stored_lonlat(x, y);
}

/* page.cc: the one writer of page contents; page checks; new pages */
extern void geoidx_init_page(Page page, uint16 flags, uint16 level);
extern uint16 geoidx_leaf_flags(Relation index);
extern bool geoidx_payload_tag_value(IndexTuple payload, int kind, int64 *value);
extern uint8 geoidx_payload_tag(IndexTuple payload, int kind);
extern void geoidx_init_metapage(Page page);
extern void geoidx_corrupted(Relation index, BlockNumber blk, const char *detail_fmt, ...)
	pg_attribute_printf(3, 4) pg_attribute_noreturn();
extern void geoidx_check_page(Relation index, Buffer buf, Page page);
extern Page geoidx_locked_page(Relation index, Buffer buf);
extern uint32 geoidx_index_format_of(Relation index);
/* recent_buffer.cc: ReadBuffer of an index page, through the buffer it was last found in */
extern Buffer geoidx_read_page_buffer(Relation index, BlockNumber blk);
/* and the CPU asked for a page's first and last lines: of a page in hand, or where it was last
 * found */
extern void geoidx_prefetch_page_lines(Page page, int tail);
extern void geoidx_prefetch_recent_page(Relation index, BlockNumber blk, int tail);
extern uint32 geoidx_check_metapage(Relation index);
extern void geoidx_check_shapes_allowed(Relation index);
extern void geoidx_check_metapage_once(Relation index);
extern Buffer geoidx_new_buffer(Relation index);
/* internal pages (page.cc) */
extern void geoidx_internal_append(Page page, BlockNumber child, const geoidx::Box3 &box);
extern void geoidx_internal_set(Page page, int i, BlockNumber child, const geoidx::Box3 &box);
extern void geoidx_internal_enlarge(Page page, int i, const geoidx::Box3 &b);
extern GeoidxInternalEntry *geoidx_internal_with_downlink(Page page, int i,
														  const geoidx::Box3 &lbox,
														  BlockNumber right,
														  const geoidx::Box3 &rbox, int *nentries);

/*
 * A split's entries (page.cc fills the two pages, wal.cc logs it): n entries
 * as the page holds them, leaf or internal, their boxes (a leaf entry's: its
 * point, or empty for a NULL or EMPTY row), the split order and how many of it
 * go left; for a leaf, a copy of the page for the payloads (src).
 */
typedef struct GeoidxSplitEntries
{
	const char *entries;
	const geoidx::Box3 *boxes;
	int n;
	const char *src; /* NULL for an internal page */
	const size_t *order;
	int left_count;
} GeoidxSplitEntries;

extern Size geoidx_leaf_entry_bytes(const GeoidxLeafEntry *e, const char *src);
extern void geoidx_split_fill(Page left, Page right, const GeoidxSplitEntries *s);
extern void geoidx_page_set_split(Page left, Page right, BlockNumber right_blk,
								  BlockNumber old_right, XLogRecPtr old_nsn);
extern void geoidx_page_end_split(Page page, XLogRecPtr nsn);
/* leaves with payloads (page.cc) */
extern bool geoidx_leaf_fits(Page page, Size payload_size);
extern void geoidx_leaf_append(Page page, const GeoidxLeafEntry *entry, const char *payload,
							   Size payload_size, const geoidx::Box3 *box);
extern geoidx::Box3 geoidx_chunk_box(const GeoidxChunkBox *c);
extern void geoidx_chunk_extend(GeoidxChunkBox *c, const geoidx::Box3 &b);
extern geoidx::Vec3 geoidx_entry_vector(const GeoidxLeafEntry *e);
extern bool geoidx_entry_box(const GeoidxLeafEntry *e, geoidx::Box3 *box);
extern bool geoidx_entry_grid(Page page, const GeoidxLeafEntry *e, geoidx::InteriorGrid *grid);
extern bool geoidx_entry_pieces(Page page, const GeoidxLeafEntry *e, geoidx::ShapePieces *pieces,
								geoidx::InteriorGrid *grids);
extern bool geoidx_entry_set_value(GeoidxLeafEntry *e, const GeoidxPoint *p, geoidx::Box3 *box);
extern void geoidx_payload_corrupted(Relation index, BlockNumber blk) pg_attribute_noreturn();

/*
 * The payload of entry e on a leaf, checked to lie inside the payload area (a
 * corrupted offset is an error, not a wild read); NULL if it has none. Inline:
 * a filtered search calls it for every entry it passes.
 */
static inline IndexTuple
geoidx_entry_payload(Relation index, BlockNumber blk, Page page, const GeoidxLeafEntry *e)
{
	int off = GeoidxEntryPayloadOffset(e);
	if (off == 0)
		return NULL;
	PageHeader ph = (PageHeader) page;
	if (unlikely(off < ph->pd_upper || off + (int) sizeof(IndexTupleData) > ph->pd_special))
		geoidx_payload_corrupted(index, blk);
	IndexTuple t = (IndexTuple) ((char *) page + off);
	Size sz = IndexTupleSize(t);
	if (unlikely(sz < sizeof(IndexTupleData) || off + sz > GeoidxLeafTop(page)))
		geoidx_payload_corrupted(index, blk);
	return t;
}
extern void geoidx_leaf_rebuild(Page page, const bool *keep);
extern IndexTuple geoidx_form_payload(Relation index, Datum *values, bool *isnull,
									  GeoidxLeafEntry *entry, const geoidx::CoverShape *prepared,
									  GeoidxGridBuilder builder);
extern const char *geoidx_relname(Relation index);

/* insert.cc */
extern bool geoidx_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid,
						  Relation heap, IndexUniqueCheck checkUnique, bool indexUnchanged,
						  IndexInfo *indexInfo);

/*
 * Tree descent paths (insert.cc records them under the split lock,
 * insert_split.cc walks them back up).
 */
#define GEOIDX_MAX_DEPTH 32

typedef struct GeoidxPathStep
{
	BlockNumber blk;
	int entry; /* the entry followed to the next level, -1 on the leaf */
} GeoidxPathStep;

/* insert_split.cc: splits, and finishing the splits a crash interrupted */
extern void geoidx_split_leaf(Relation index, BlockNumber blk, GeoidxPathStep *path, int depth,
							  Size payload_size);
extern void geoidx_finish_split(Relation index, GeoidxPathStep *path, int d, BlockNumber left,
								BlockNumber right);

/* wal.cc: one function per WAL record (README: Concurrency and WAL) */
extern XLogRecPtr geoidx_current_lsn(Relation index);
extern XLogRecPtr geoidx_page_lsn(Relation index, Buffer buf);
extern void geoidx_log_leaf_append(Relation index, Buffer leaf, const GeoidxLeafEntry *entry,
								   const char *payload, Size payload_size, const geoidx::Box3 *box);
extern void geoidx_log_entry_enlarge(Relation index, Buffer buf, int i, const geoidx::Box3 &b);
extern void geoidx_log_page_split(Relation index, Buffer buf, Buffer right,
								  const GeoidxSplitEntries *s, Buffer child, XLogRecPtr child_nsn);
extern void geoidx_log_root_split(Relation index, Buffer root, Buffer a, Buffer b,
								  const GeoidxSplitEntries *s, Buffer child, XLogRecPtr child_nsn);
extern void geoidx_log_downlink(Relation index, Buffer parent, int i, Buffer child,
								const geoidx::Box3 &lbox, BlockNumber right,
								const geoidx::Box3 &rbox, XLogRecPtr nsn);
extern void geoidx_log_vacuum_leaf(Relation index, Buffer leaf, const bool *keep);
extern void geoidx_log_build(Relation index);
extern void geoidx_wal_rmgr_init(void);
extern bool geoidx_own_leaf_append(Relation index, Buffer leaf, const GeoidxLeafEntry *entry,
								   const char *payload, Size payload_size, const geoidx::Box3 *box,
								   XLogRecPtr *lsn);
extern bool geoidx_own_entry_enlarge(Relation index, Buffer buf, int i, const geoidx::Box3 &b,
									 XLogRecPtr *lsn);
extern void geoidx_log_init_fork_page(Relation index, BlockNumber blk, Page page);

/* fault.cc: test-only fault points after WAL records (geoidx.fault_point) */
typedef enum GeoidxFault
{
	GEOIDX_FAULT_NONE = 0,
	GEOIDX_FAULT_LEAF_APPEND,
	GEOIDX_FAULT_ENTRY_ENLARGE,
	GEOIDX_FAULT_PAGE_SPLIT_LEAF,
	GEOIDX_FAULT_PAGE_SPLIT_INTERNAL,
	GEOIDX_FAULT_DOWNLINK_LEAF,
	GEOIDX_FAULT_DOWNLINK_INTERNAL,
	GEOIDX_FAULT_ROOT_SPLIT_LEAF,
	GEOIDX_FAULT_ROOT_SPLIT_INTERNAL,
	GEOIDX_FAULT_VACUUM_LEAF,
} GeoidxFault;

extern int geoidx_fault_point;
extern void geoidx_fault_init(void);
extern void geoidx_fault_reached(Relation index, GeoidxFault fault, XLogRecPtr lsn)
	pg_attribute_noreturn();

/* Stop here if a test armed this fault point: one predictable branch per WAL record. */
static inline void
geoidx_fault(Relation index, GeoidxFault fault, XLogRecPtr lsn)
{
	if (unlikely(geoidx_fault_point == fault))
		geoidx_fault_reached(index, fault, lsn);
}

/* build.cc */
extern IndexBuildResult *geoidx_build(Relation heap, Relation index, IndexInfo *indexInfo);
extern void geoidx_buildempty(Relation index);
extern void geoidx_check_columns(Relation index);
/* build_parallel.cc: geoidx.build_run_records (tests) */
extern void geoidx_build_parallel_init(void);

/*
 * Scans. scan.cc turns scan keys into regions and filters (beginscan, rescan,
 * endscan, as gistscan.c); scan_get.cc runs them (gettuple, getbitmap, as
 * gistget.c) through the one page visitor of scan_page.cc, which serves
 * bitmap, unordered and ordered scans; ordered scans are the core's
 * best-first search (knn_search.h) with pages read through that visitor.
 */

/* A page an unordered scan has still to read. */
typedef struct GeoidxPageRef
{
	BlockNumber blk;
	XLogRecPtr parent_lsn;
	int level; /* the level the page must be on (geoidx::kAnyLevel for the root) */
} GeoidxPageRef;

/* A row an unordered scan found on the last page it read. */
typedef struct GeoidxScanHit
{
	ItemPointerData tid;
	uint8 kind;   /* GEOIDX_KIND_* */
	bool recheck; /* a shape its box did not decide: the executor tests the heap row */
	double x;
	double y;
	IndexTuple payload; /* its other columns, kept for index-only scans only */
} GeoidxScanHit;

struct GeoidxInList; /* regions.cc */

/* A condition on a column after the point, tested on the entry's payload. */
typedef struct GeoidxScalarKey
{
	ScanKey key;
	struct GeoidxInList *inlist; /* col <@ array, else NULL */
	int8 fast; /* a comparison of integers or booleans done inline (scan_filter.cc), or 0 */
	int64 fast_arg;
	int8 null_test;  /* col IS NULL / IS NOT NULL (GEOIDX_IS_NULL, ...), else 0 */
	int16 fixed_off; /* a fast key's column in a payload with no NULL: offset in its data, or -1 */
} GeoidxScalarKey;

/* What a key of IS NULL or IS NOT NULL asks of a column (0: no such key). */
#define GEOIDX_IS_NULL 1
#define GEOIDX_IS_NOT_NULL 2

/* Where the page visitor sends what it finds. */
typedef enum GeoidxScanSink
{
	GEOIDX_SINK_HITS,   /* amgettuple, unordered: so->hits */
	GEOIDX_SINK_BITMAP, /* amgetbitmap: so->bitmap_tids */
	GEOIDX_SINK_KNN,    /* amgettuple, ordered: the frontier of so->knn */
} GeoidxScanSink;

/* The large arrays of a scan, kept by the backend for its next scan (scan_memory.cc). */
typedef enum GeoidxScanArray
{
	GEOIDX_SCAN_FRONTIER, /* the k-NN search's heap */
	GEOIDX_SCAN_HITS,     /* an unordered scan's rows of one batch */
	GEOIDX_SCAN_ORDER,    /* their heap order keys, and room to sort them */
	GEOIDX_SCAN_SORTED,   /* the rows of the batch in that order */
	GEOIDX_SCAN_NARRAYS
} GeoidxScanArray;

typedef struct GeoidxScanOpaqueData
{
	MemoryContext cxt;                /* everything of one rescan (scan_memory.cc) */
	void *array[GEOIDX_SCAN_NARRAYS]; /* outside cxt, given back when cxt is reset */
	Size array_bytes[GEOIDX_SCAN_NARRAYS];
	MemoryContext batch_cxt; /* payload copies of one batch's hits (unordered scans) */
	MemoryContext tuple_cxt; /* the index tuple of an index-only scan, one at a time */
	bool no_match;           /* a key no row satisfies (NULL argument, empty IN list) */
	int8 point_null_test;    /* pos IS NULL / IS NOT NULL on the point column, else 0 */

	/* the spatial keys: all must hold */
	int nregions;
	geoidx::RegionTest *regions;
	geoidx::SpatialKeys keys;
	/* the keys' chord tests around the first key's centre (an unordered scan's chord models) */
	geoidx::ChordKeys chord_keys;
	geoidx::Vec3 chord_centre;
	/*
	 * Every region key is a candidate disc, whose answer for a shape is its
	 * box's (circle.cc): the index holds that box, so no shape needs a recheck.
	 */
	bool shapes_exact;
	/*
	 * The keys of the shape operators (~@>, <@~, ~&&): each has its region
	 * above (region_probe[i] >= 0 names the probe of region i, which is the
	 * candidate disc of the other argument) and is decided per entry by
	 * scan_probe.cc. With any, every entry is decided there.
	 */
	int nprobes;
	struct GeoidxProbe *probes;
	int *region_probe; /* or GEOIDX_REGION_PLAIN, GEOIDX_REGION_CANDIDATE */

	/* the keys on the columns after the point */
	int nscalar;
	GeoidxScalarKey *scalar;
	bool fixed_filter; /* every key is fast, at a fixed offset (scan_filter.h) */
	int16 fixed_end;   /* where the last such column ends in the payload's data */
	/*
	 * A key asks the first column after the point for a value (category = 7)
	 * or for one of a list: an entry whose tag (format.h) is none of those
	 * values' tags holds no row that passes, and a chunk of such entries is
	 * skipped. tag_one is the tag of a single value (-1 for a list), and
	 * tags_decide says that a tag's match alone decides every key (that key
	 * is the only one, and each of its values is its own tag), so that no
	 * payload is read.
	 */
	bool tag_filter;
	bool tags_decide;
	int16 tag_one;
	geoidx::TagSet tag_set;
	TupleDesc payload_desc; /* NULL: the index has only the point */
	bool keep_payloads;     /* an index-only scan of an index with payloads */

	/*
	 * ORDER BY d0, d1, ...: the search orders by the first key whose point is
	 * not NULL or EMPTY (the primary; the keys before it are NULL for every
	 * row). The keys after it break its ties: the rows of one primary distance
	 * are gathered into a run and sorted by them (scan_get.cc).
	 */
	bool ordered;
	int primary;                      /* -1: no key, or every key NULL */
	bool *key_ok;                     /* the key's point is neither NULL nor EMPTY */
	geoidx::GeoPoint *key_center;     /* where key_ok */
	bool *key_sphere;                 /* the key is geography's <-> (metres on the sphere) */
	bool *key_planar;                 /* the key is geometry's <-> (planar degrees) ... */
	geoidx::PlanarTarget *key_target; /* ... to this target */
	geoidx::LonLat order_centre;      /* the primary's point */
	geoidx::RawPoint order_raw;       /* ... as its argument holds it (distance_memo.cc) */
	bool tie_keys;                    /* some key after the primary is key_ok */
	/*
	 * Some ORDER BY argument is a shape: every row goes to the executor with
	 * lower bounds (xs_recheckorderby), the primary's distance to the centre
	 * of the shape's box less order_slack metres.
	 */
	bool order_recheck;
	double order_slack;
	geoidx::KnnSearch knn;
	/*
	 * An ordered scan with a key that keeps the near side out, and no
	 * payloads, filters or probes, leaves a leaf's chunks wholly in the
	 * keys' region on the page (scan_page.cc): a keyset page's leaves
	 * straddle its bound, and what lies wholly beyond it seldom surfaces.
	 */
	bool leave_rest;
	geoidx::SearchItem *run;
	int nrun;
	int caprun;
	int runpos;

	bool started;
	GeoidxScanSink sink;
	GeoidxPageRef *stack; /* unordered: pages still to read, depth first */
	int nstack;
	int capstack;
	/*
	 * unordered: the rows of the last batch of pages read, handed over in heap
	 * order (sorted[], copied in the order of src/core/heap_order.h) unless the
	 * scan is index-only. A batch is one page, then grows to batch_target
	 * rows, which grows with each batch (next_batch_target): a LIMIT reads
	 * little, an answer spread over the heap is ordered in two batches.
	 */
	GeoidxScanHit *hits;
	int nhits;
	int caphits;
	int pos;
	GeoidxScanHit *sorted; /* NULL: the rows go in the order they were found */
	int batch_target;
	/*
	 * the heap pages the last batch read (0: it sets no next size), which size
	 * the next batch when the scan asks for one: a scan that stops after a
	 * batch (a small answer, a LIMIT) never reads the heap's size
	 */
	BlockNumber batch_blocks;
	BlockNumber heap_blocks;      /* the heap's size, once a batch needs it */
	ItemPointerData *bitmap_tids; /* bitmap: the TIDs of the last page read */
	int nbitmap;
	int capbitmap;
	ItemPointerData *bitmap_recheck; /* ... of its shapes that need the exact test */
	int nrecheck;
	int caprecheck;

	uint64 pages_visited; /* against loops in a corrupted index */
	uint64 page_limit;

	bool can_return;       /* the column's type modifier promises Point, SRID 4326, 2-D */
	bool return_geography; /* ... of geography: rebuilt with the geodetic flag */
} GeoidxScanOpaqueData;

typedef GeoidxScanOpaqueData *GeoidxScanOpaque;

/* The scan lives in PostgreSQL memory across calls that may ereport: nothing to destroy. */
static_assert(std::is_trivially_destructible_v<GeoidxScanOpaqueData>);
static_assert(std::is_trivially_destructible_v<geoidx::SearchItem>);
static_assert(geoidx::kSearchChunk == GEOIDX_CHUNK, "a search chunk is a leaf's chunk");

/* A heap TID as the core search carries a row, and back. */
static inline uint64
geoidx_tid_to_row(const ItemPointerData *tid)
{
	return ((uint64) ItemPointerGetBlockNumberNoCheck(tid) << 16) |
		   ItemPointerGetOffsetNumberNoCheck(tid);
}

static inline void
geoidx_row_to_tid(uint64 row, ItemPointerData *tid)
{
	ItemPointerSet(tid, (BlockNumber) (row >> 16), (OffsetNumber) (row & 0xFFFF));
}

/* scan.cc */
extern IndexScanDesc geoidx_beginscan(Relation index, int nkeys, int norderbys);
extern void geoidx_rescan(IndexScanDesc scan, ScanKey keys, int nkeys, ScanKey orderbys,
						  int norderbys);
extern void geoidx_endscan(IndexScanDesc scan);

/* scan_memory.cc: the memory a backend keeps from one scan to the next */
extern MemoryContext geoidx_scan_memory_take(void);
extern void geoidx_scan_memory_reset(GeoidxScanOpaque so);
extern void geoidx_scan_memory_end(GeoidxScanOpaque so);
extern void *geoidx_scan_array(GeoidxScanOpaque so, GeoidxScanArray which, Size bytes);

/* scan_filter.cc: the keys on the columns after the point */
extern void geoidx_null_key_init(GeoidxScalarKey *sk, ScanKey key);
extern void geoidx_scalar_key_init(GeoidxScalarKey *sk, ScanKey key, TupleDesc payload_desc,
								   MemoryContext cxt);
extern bool geoidx_scalar_keys_match(const GeoidxScanOpaqueData *so, IndexTuple payload);
extern void geoidx_fixed_filter_init(GeoidxScanOpaqueData *so);
extern void geoidx_tag_filter_init(GeoidxScanOpaqueData *so);

/*
 * scan_pieces.cc: what a large shape's pieces (format.h, the _PIECES kinds)
 * decide where its box does not. An entry's pieces are read from its page
 * the first time a test of it asks for them.
 */
typedef struct GeoidxEntryPieces
{
	bool read;
	bool has;
	geoidx::ShapePieces p;
	geoidx::InteriorGrid grids[geoidx::kMaxPieces];
} GeoidxEntryPieces;

extern bool geoidx_pieces_of(GeoidxEntryPieces *ep, Page page, const GeoidxLeafEntry *e);
extern geoidx::Verdict geoidx_shape_verdict(GeoidxScanOpaque so, Page page,
											const GeoidxLeafEntry *e, bool *by_box);
extern double geoidx_shape_knn_bound(GeoidxScanOpaque so, Page page, const GeoidxLeafEntry *e);
extern void geoidx_count_piece_decision(void);

/* scan_page.cc: the one page visitor */
extern void geoidx_scan_page(IndexScanDesc scan, BlockNumber blk, int level, XLogRecPtr parent_lsn,
							 const geoidx::SearchItem *knn_page);
extern geoidx::KnnCallbacks geoidx_knn_callbacks(IndexScanDesc scan);

/* scan_get.cc */
extern bool geoidx_gettuple(IndexScanDesc scan, ScanDirection dir);
extern int64 geoidx_getbitmap(IndexScanDesc scan, TIDBitmap *tbm);

/*
 * scan_result.cc: what a returned row hands the executor; dist_exact false: dist is
 * only a lower bound of a point's distance, returned in order (KnnSearch::order_only)
 */
extern void geoidx_scan_set_result(IndexScanDesc scan, const ItemPointerData *tid, int kind,
								   double x, double y, double dist, IndexTuple payload,
								   bool recheck, bool dist_exact = true);
extern double geoidx_entry_distance(const geoidx::GeoPoint &center, double x, double y);
/* ORDER BY key k's distance of a stored point: metres (<~>) or planar degrees (<->) */
extern double geoidx_key_distance(GeoidxScanOpaque so, int k, double x, double y);
/* distance_memo.cc: the exact distance of the row a k-NN scan returned last, for <~> */
extern void geoidx_distance_memo_note(double x, double y, geoidx::RawPoint centre, double dist);
extern bool geoidx_distance_memo_find(double x, double y, geoidx::RawPoint centre, double *dist);
extern void geoidx_distance_memo_note_unknown(double x, double y, geoidx::RawPoint centre);
extern bool geoidx_distance_memo_take_wanted(void);

/* vacuum.cc */
extern IndexBulkDeleteResult *geoidx_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
												IndexBulkDeleteCallback callback,
												void *callback_state);
extern IndexBulkDeleteResult *geoidx_vacuumcleanup(IndexVacuumInfo *info,
												   IndexBulkDeleteResult *stats);

/*
 * catalog.cc: the OIDs of geoidx's and PostGIS's objects, found by exact
 * signature in their extension's schema (never through search_path), cached
 * per backend until pg_proc or pg_operator change. Arrays of two are [0]
 * geometry, [1] geography; InvalidOid where an object is absent.
 */
typedef struct GeoidxCatalog
{
	bool valid;
	bool present;  /* geoidx and PostGIS are installed (what the planner hook checks) */
	bool complete; /* everything geoidx_catalog() promises is there */
	Oid geometry_type;
	Oid geography_type;
	Oid circle_type;
	Oid circle_fn[2];   /* geoidx_circle(t, float8, boolean) */
	Oid within_op[2];   /* <@ (t, geoidx_circle) */
	Oid distance_op[2]; /* <~> (t, t) */
	Oid overlap_op[2];  /* PostGIS's && (t, t) */
	Oid dwithin_fn[2];
	Oid beyond_fn[2];
	Oid nearer_fn[2];
	Oid outside_fn[2];
	Oid ring_fn[2];
	Oid circle_outside_fn[2];
	Oid circle_distance_fn[2];
	Oid candidate_fn[2];        /* geoidx_candidate_circle(t, float8) */
	Oid candidate_beyond_fn[2]; /* geoidx_candidate_beyond(t, text, float8) */
	Oid covers_op[2];           /* ~@> (t, t): geoidx_covers */
	Oid coveredby_op[2];        /* <@~ (t, t): geoidx_coveredby */
	Oid intersects_op[2];       /* ~&& (t, t): geoidx_intersects */
	Oid covers_fn[2];           /* geoidx_covers(t, t) */
	Oid coveredby_fn[2];        /* geoidx_coveredby(t, t) */
	Oid intersects_fn[2];       /* geoidx_intersects(t, t) */
	Oid box_fn;                 /* geoidx_search_box(geometry, float8, boolean) */
	Oid cell_fn;                /* geoidx_cell(geometry, int4) */
	Oid covering_bound_fn;      /* geoidx_covering_bound(geoidx_circle, int4, int4) */
	Oid int8_ge_op;             /* int8 >= int8 */
	Oid int8_lt_op;             /* int8 < int8 */
	Oid geog_expand_fn;         /* PostGIS's _ST_Expand(geography, float8) */
	Oid geography_input;
	Oid geography_ioparam;
	Oid envelope_fn; /* PostGIS's ST_MakeEnvelope(float8 x4, int4) */
	Oid float8_plus_op;
	Oid float8_cmp[4]; /* float8 > >= < <= */
	Oid float8_eq_op;  /* float8 = (NaN = NaN holds) */
	Oid in_op;         /* <@ (anyelement, anyarray) */
	Oid geoidx_am;
	bool envelope_ready;
	FmgrInfo envelope; /* envelope_fn, set up on first use */
	/* PostGIS's geography functions, the exact answers for shapes (postgis_calls.cc) */
	Oid pg_geography_fn;        /* geography(geometry): the cast */
	Oid pg_geometry_fn;         /* geometry(geography): the cast back */
	Oid pg_geography_typmod_fn; /* geography(geography, int4, boolean): a cast to geography(T, S) */
	Oid pg_dwithin_fn;          /* ST_DWithin(geography, geography, float8, boolean) */
	Oid pg_distance_fn;         /* ST_Distance(geography, geography, boolean) */
	Oid pg_covers_fn;           /* ST_Covers(geography, geography) */
	Oid pg_coveredby_fn;        /* ST_CoveredBy(geography, geography) */
	Oid pg_intersects_fn;       /* ST_Intersects(geography, geography) */
	/* PostGIS's planar predicates (geometry, geometry), which rewrite.cc gives an index condition
	 */
	Oid planar_contains_fn;
	Oid planar_covers_fn;
	Oid planar_intersects_fn;
	Oid planar_within_fn;
	Oid pg_box2d_fn;    /* PostGIS's box2d(geometry): the box its && compares, as doubles */
	Oid pg_geog_knn_op; /* PostGIS's <-> (geography, geography) */
	Oid pg_geog_knn_fn; /* ... its function */
	Oid sphere_knn_op;  /* geoidx's <~~> (geometry, geometry): that of the casts */
	Oid planar_knn_op;  /* PostGIS's <-> (geometry, geometry): planar degrees */
	Oid planar_coveredby_fn;
	Oid planar_dwithin_fn; /* ST_DWithin(geometry, geometry, float8) */
	Oid pg_expand_fn;      /* ST_Expand(geometry, float8): PostGIS's box for ST_DWithin */
	Oid box_within_op;     /* PostGIS's @ (geometry, geometry) */
	Oid box_contains_op;   /* PostGIS's ~ (geometry, geometry) */
	/* geoidx's functions of the planar predicates (planar_functions.cc) */
	Oid gx_planar_contains_fn;
	Oid gx_planar_within_fn;
	Oid gx_planar_covers_fn;
	Oid gx_planar_coveredby_fn;
	Oid gx_planar_dwithin_fn;
	/* geoidx's operators of those (geometry, geometry), what rewrite.cc puts in their place */
	Oid planar_contains_op;   /* ##@> */
	Oid planar_within_op;     /* ##<@ */
	Oid planar_covers_op;     /* ##~@> */
	Oid planar_intersects_op; /* ##&& */
} GeoidxCatalog;

extern Oid geoidx_function_oid(const char *name, Oid nsp, int nargs, const Oid *argtypes,
							   bool missing_ok);
extern Oid geoidx_operator_oid(const char *name, Oid left, Oid right, Oid nsp, bool missing_ok);
extern const GeoidxCatalog &geoidx_catalog_if_present(void);
extern const GeoidxCatalog &geoidx_catalog(void);
extern Oid geoidx_geometry_type(void);
extern Oid geoidx_geography_type(void); /* InvalidOid if absent */
extern const FmgrInfo *geoidx_envelope_function(void);

/* covers_cache.cc: polygons prepared for ST_Covers of a point, per backend */
namespace geoidx
{
struct CoverShape;
struct CoverCounts;
} // namespace geoidx

/* What finds a prepared polygon again without reading the value. */
struct GeoidxShapeKey
{
	uint32 kind;  /* 1: a TOAST pointer, 2: the bytes */
	Oid db;       /* kind 1: the database (the shared cache serves them all) */
	Oid rel;      /* kind 1: the TOAST table */
	Oid value;    /* kind 1: the value's OID in it */
	uint32 size;  /* kind 1: its raw size; kind 2: the length of the bytes */
	uint32 extra; /* kind 1: its stored size; kind 2: the hash of the bytes */
};

extern void geoidx_cover_cache_init(void);
/* The key of a value, and for a value in line its bytes (*bytes, *len; else NULL, 0). */
extern GeoidxShapeKey geoidx_shape_key(struct varlena *v, const char **bytes, Size *len);
extern bool geoidx_cover_shape_finite(const geoidx::CoverShape &s,
									  const geoidx::CoverCounts &counts);
/*
 * The prepared polygon of a value (NULL: none, PostGIS answers); the caller
 * calls geoidx_cover_shape_done() when it has used it, before anything that
 * may raise an error or prepare another.
 */
extern const geoidx::CoverShape *geoidx_cover_shape(Datum value, const char *what);
extern const geoidx::CoverShape *geoidx_prepare_cover_shape(Datum value, MemoryContext cxt);
extern const geoidx::CoverShape *
geoidx_prepare_serialized(const uint8 *data, const geoidx::SerializedHeader &h, MemoryContext cxt);

/* covers_shared.cc: the prepared polygons in shared memory, when geoidx is preloaded */
extern void geoidx_cover_shared_init(void);
extern const geoidx::CoverShape *geoidx_cover_shared(struct varlena *v, int *state);
extern void geoidx_cover_shape_done(void);

/* postgis_calls.cc: PostGIS's geography functions, the exact answers for shapes */
#define GEOIDX_PG_DWITHIN 0
#define GEOIDX_PG_DISTANCE 1
#define GEOIDX_PG_COVERS 2
#define GEOIDX_PG_COVEREDBY 3
#define GEOIDX_PG_INTERSECTS 4
#define GEOIDX_PG_KNN 5 /* geography <-> geography: PostGIS's k-NN distance, on its sphere */
#define GEOIDX_PG_NFUNCTIONS 6
extern bool geoidx_datum_is_shape(Datum d);
extern bool geoidx_datum_is_geography(const struct varlena *v);
extern bool geoidx_postgis_call(int fn, Datum a, const char *what_a, Datum b, const char *what_b,
								double r, bool use_spheroid, Datum *result);

/* functions.cc: the distance functions (regions.cc's geoidx_outside calls geoidx_dwithin) */
extern "C" Datum geoidx_distance_op(PG_FUNCTION_ARGS);
extern "C" Datum geoidx_distance(PG_FUNCTION_ARGS);
extern "C" Datum geoidx_dwithin(PG_FUNCTION_ARGS);
extern "C" Datum geoidx_circle_distance(PG_FUNCTION_ARGS);
/* functions.cc: the per-call-site memo of geoidx_dwithin's cheap tests (geoidx_nearer's too) */
namespace geoidx
{
struct DwithinMemo;
}
extern geoidx::DwithinMemo *geoidx_call_dwithin_memo(FunctionCallInfo fcinfo);

/* search_box.cc: geoidx_search_box, and boxes as PostGIS polygons */
namespace geoidx
{
struct DegreeBox;
}
extern Datum geoidx_box_geometry(const geoidx::DegreeBox *box);

/* shape_functions.cc: the shape predicates' index condition (also geoidx_dwithin's for shapes) */
struct SupportRequestIndexCondition;
extern double geoidx_shape_reach_metres(const GeoidxPoint *shape);
extern int geoidx_prepared_covers(Datum poly, const char *what_poly, Datum pt, const char *what_pt);
extern bool geoidx_prepared_distance_bounds(Datum poly, const char *what_poly, Datum pt,
											const char *what_pt, bool use_spheroid, double *lo,
											double *hi);
extern bool geoidx_prepared_distance(Datum poly, const char *what_poly, Datum pt,
									 const char *what_pt, bool use_spheroid, double *metres,
									 bool knn = false);
extern int geoidx_prepared_dwithin(Datum poly, const char *what_poly, Datum pt, const char *what_pt,
								   double metres, bool use_spheroid);
extern int geoidx_prepared_intersects(Datum poly, const char *what_poly, Datum pt,
									  const char *what_pt);
extern bool geoidx_is_point_for_every_row(Node *other, const GeoidxCatalog &o);
extern List *geoidx_shape_index_condition(struct SupportRequestIndexCondition *req, Node *column,
										  Node *other, Node *metres);

/* support.cc: the support functions, and the index conditions of geoidx_dwithin */
struct SupportRequestIndexCondition;
struct SupportRequestSelectivity;
extern bool geoidx_is_true_const(Node *n);
extern Node *geoidx_widen_radius(Node *metres, const GeoidxCatalog &o);

/* support_regions.cc: the index conditions of the region predicates */
enum class GeoidxPred
{
	none,
	beyond,
	nearer,
	outside,
	ring,
};

extern GeoidxPred geoidx_which_pred(Oid fn, int *g);
extern List *geoidx_region_index_conditions(SupportRequestIndexCondition *req);
extern List *geoidx_dwithin_index_conditions(SupportRequestIndexCondition *req);

/* selectivity.cc: the estimates of the support functions (and of <@, col <@ array) */
extern double geoidx_dwithin_selectivity(SupportRequestSelectivity *req);
extern double geoidx_region_pred_selectivity(SupportRequestSelectivity *req);
/* tree_estimate.cc: the rows in a disc, counted in a geoidx index on the column */
/* The pages one estimate of a disc may read: tens of microseconds on cached pages. */
constexpr int kGeoidxEstimatePages = 48;
extern bool geoidx_tree_estimate(PlannerInfo *root, Node *column, geoidx::LonLat centre,
								 double radius, bool use_spheroid, double *rows, double *total,
								 int max_pages = kGeoidxEstimatePages);
extern int geoidx_tree_sample_points(PlannerInfo *root, Node *column, geoidx::LonLat *out, int max);

/* rewrite.cc: the planner hook that rewrites conditions into indexable ones */
extern void geoidx_install_rewrite_hook(void);

/* nearest_append.cc: k-NN over partitions on geoidx_cell, nearest partitions first */
extern void geoidx_install_nearest_append(void);
/* junk_distance.cc: no junk ORDER BY distance above an ordered geoidx scan */
extern void geoidx_install_junk_distance(void);
/* partition_prune.cc: radius queries prune partitions on geoidx_cell */
extern void geoidx_install_partition_prune(void);
extern void geoidx_prune_cells_at_plan_time(struct PlannerInfo *root, struct RelOptInfo *rel);
extern void geoidx_keep_cell_bounds_from_partitions(struct PlannerInfo *root,
													struct RelOptInfo *rel);
extern int geoidx_cell_call(const GeoidxCatalog &o, Node *e, struct Var **col);
extern struct Var *geoidx_cell_partition_key(const GeoidxCatalog &o, struct RelOptInfo *rel,
											 int *level);
extern uint64 geoidx_relation_info_calls;
extern bool geoidx_rewrite_postgis;
extern bool geoidx_leads_index(const GeoidxCatalog &o, Oid relid, AttrNumber attno,
							   bool *unconditional);
/* rewrite_geography.cc: PostGIS's geography forms on a geoidx-indexed column, as geoidx's calls */
extern Node *geoidx_disc_radius(const GeoidxCatalog &o, PlannerInfo *root, struct RelOptInfo *rel,
								Node *n);
extern Node *geoidx_rewrite_geography_forms(const GeoidxCatalog &o, PlannerInfo *root, Node *expr,
											struct RelOptInfo *rel, Oid relid, bool *changed);
extern Node *geoidx_sphere_distance_candidates(const GeoidxCatalog &o, PlannerInfo *root,
											   Node *qual, struct RelOptInfo *rel, Oid relid);
extern void geoidx_rewrite_geography_order(const GeoidxCatalog &o, PlannerInfo *root,
										   struct RelOptInfo *rel, Oid relid);

/* validate.cc */
extern bool geoidx_validate(Oid opclassoid);

/* handler.cc */
extern "C" void _PG_init(void);
extern bool geoidx_canreturn(Relation index, int attno);
extern bool geoidx_index_is_geography(Relation index);
extern void geoidx_costestimate(PlannerInfo *root, IndexPath *path, double loop_count,
								Cost *indexStartupCost, Cost *indexTotalCost,
								Selectivity *indexSelectivity, double *indexCorrelation,
								double *indexPages);

/* build phases reported in pg_stat_progress_create_index */
#define GEOIDX_PHASE_LOAD 2
#define GEOIDX_PHASE_SORT 3
#define GEOIDX_PHASE_WRITE 4

/* strategies */
#define GEOIDX_STRATEGY_WITHIN 1
#define GEOIDX_STRATEGY_DISTANCE 2
/* The shape operators: geoidx_covers, _coveredby and _intersects with the column first. */
#define GEOIDX_REGION_PLAIN (-1)
#define GEOIDX_REGION_CANDIDATE (-2)
#define GEOIDX_STRATEGY_COVERS 3
#define GEOIDX_STRATEGY_COVEREDBY 4
#define GEOIDX_STRATEGY_INTERSECTS 5
/* PostGIS's planar predicates with the column first, as rewrite.cc puts them: ##@> ##~@> ##&& */
#define GEOIDX_STRATEGY_PLANAR_CONTAINS 6
#define GEOIDX_STRATEGY_PLANAR_COVERS 7
#define GEOIDX_STRATEGY_PLANAR_INTERSECTS 8
/* PostGIS's own box operators, col && q, col @ q, col ~ q (planar_box.h): the map viewport */
#define GEOIDX_STRATEGY_BOX_OVERLAPS 9
#define GEOIDX_STRATEGY_BOX_WITHIN 10
#define GEOIDX_STRATEGY_BOX_CONTAINS 11
/* PostGIS's planar distance, ORDER BY col <-> g (geometry, degrees) */
#define GEOIDX_STRATEGY_PLANAR_DISTANCE 12
/* PostGIS's geography <-> (the sphere): <~~> on geometry, geography's own <-> */
#define GEOIDX_STRATEGY_SPHERE_DISTANCE 13
/* scalar operator classes (the columns after the point) number as btree: < <= = >= > */
#define GEOIDX_SCALAR_STRATEGIES 6 /* and 6: <@ (anyelement, anyarray), "is one of" */
#define GEOIDX_SCALAR_IN 6
#define GEOIDX_NSTRATEGIES 13
#define GEOIDX_DECODE_PROC 1
#define GEOIDX_NPROCS 1

/*
 * The circle type (geoidx_circle): fixed 32 bytes. Despite the name it is one
 * of the regions of src/core/region.h around the centre: the disc (mode 0,
 * what geoidx_circle() makes), its complement, or a comparison of the distance
 * with the radius (keyset paging).
 */
typedef struct GeoidxCircle
{
	double lon; /* centre, degrees, normalised as the geography cast does */
	double lat;
	double radius; /* metres: >= 0, may be +Infinity; any double for the distance modes */
	int32 use_spheroid;
	int16 mode;  /* geoidx::RegionMode */
	int16 flags; /* GEOIDX_CIRCLE_POINT_FIRST */
} GeoidxCircle;

/* within/outside: decided as ST_DWithin(point, centre), not (centre, point) */
#define GEOIDX_CIRCLE_POINT_FIRST 0x0001
/*
 * A candidate disc (geoidx_candidate_circle): for a shape, <@ asks only whether
 * its box reaches into the disc. It is the lossy index condition of the shape
 * predicates, whose own call stays as the filter.
 */
#define GEOIDX_CIRCLE_CANDIDATE 0x0002

/* circle.cc: the circle type, its constructors' common part, pos <@ circle */
extern void geoidx_check_radius(double metres);
/*
 * Whether ST_DWithin holds for no pair at this radius: PostGIS compares
 * distance <= radius, false for NaN and below zero (an answer, not an error).
 */
static inline bool
geoidx_radius_holds_nothing(double metres)
{
	return std::isnan(metres) || metres < 0.0;
}
extern Datum geoidx_make_circle(FunctionCallInfo fcinfo, double metres, bool use_spheroid, int mode,
								bool point_first);
extern geoidx::RegionTest geoidx_circle_region(const GeoidxCircle *c);
extern Datum geoidx_point_datum(double x, double y, bool empty, bool geography);
extern "C" Datum geoidx_circle_make(PG_FUNCTION_ARGS);
extern "C" Datum geoidx_within_circle(PG_FUNCTION_ARGS);

/* regions.cc: col <@ array (strategy 6 of the scalar operator classes) */
typedef struct GeoidxInList
{
	char *source; /* the array it was made from */
	Size source_size;
	Datum *elems;
	bool *nulls;
	int n;
	int nvalues; /* elements that are not NULL */
	bool any_null;
	FmgrInfo eq;
	Oid collation;
} GeoidxInList;

extern GeoidxInList *geoidx_in_list_make(ArrayType *arr, Oid collation, MemoryContext cxt);
extern int geoidx_in_list_test(const GeoidxInList *list, Datum value);

static_assert(sizeof(GeoidxCircle) == 32, "geoidx_circle is INTERNALLENGTH 32");

/*
 * A key of a shape operator, col OP g (scan_probe.cc): g's candidate disc
 * prunes; then a point g is looked up in a shape entry's grid (covers and
 * intersects), a polygonal g covers or not a point entry (coveredby), and
 * what neither decides goes to the executor's recheck of the operator.
 */
typedef struct GeoidxProbe
{
	int strategy;
	bool point;  /* g is a point: v is PostGIS's vector of it */
	bool planar; /* a planar strategy whose g a planar grid may decide (SRID 4326, in range) */
	geoidx::Vec3 v;
	const geoidx::CoverShape
		*polygon;                  /* coveredby a polygonal g: its prepared form, in scan memory */
	bool box;                      /* a box operator's key (scan_box.cc) */
	geoidx::PointBoxTest box_test; /* ... which decides a point entry */
} GeoidxProbe;

/* The verdict on one entry. */
typedef enum GeoidxEntryVerdict
{
	GEOIDX_ENTRY_REJECT,
	GEOIDX_ENTRY_MATCH,
	GEOIDX_ENTRY_RECHECK,
} GeoidxEntryVerdict;

/* scan_box.cc: the keys of PostGIS's box operators */
extern void geoidx_box_key(GeoidxScanOpaque so, ScanKey key);
extern bool geoidx_postgis_box(Datum g, double *xmin, double *xmax, double *ymin, double *ymax);

/* scan_probe.cc: the shape operators' keys */
extern void geoidx_probe_key(GeoidxScanOpaque so, ScanKey key);
extern GeoidxEntryVerdict geoidx_probe_entry(GeoidxScanOpaque so, Page page,
											 const GeoidxLeafEntry *e, bool *by_box);
extern void geoidx_candidate_disc(const GeoidxPoint *p, const char *what, double metres,
								  geoidx::LonLat *centre, double *radius);
extern void geoidx_count_decision(GeoidxEntryVerdict v, bool shape, bool by_box);
