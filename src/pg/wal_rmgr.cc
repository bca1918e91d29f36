/*
 * geoidx's own WAL records, for the two changes an insert makes on nearly
 * every call: the append of one entry to a leaf, and the enlargement of one
 * downlink's box.
 *
 * Generic WAL logs a change by copying the page and comparing every byte
 * outside its hole with the copy: ~5 kB compared, and ~15 % of an upsert's
 * time, to log the ~80 bytes an append writes. A record of geoidx's own logs
 * the entry, its box and its payload, and its redo calls the same
 * page.cc function the insert called, so the replayed page is the original
 * byte for byte (wal_consistency_checking = 'geoidx' checks it).
 *
 * PostgreSQL 15 accepts a resource manager only from a library in
 * shared_preload_libraries, on the primary and on every standby that
 * replays its WAL. So geoidx registers one only when preloaded, and writes
 * these records only while geoidx.own_wal_records is on; everything else
 * (splits, VACUUM, the build) and every index of a server that does not
 * preload geoidx keep generic WAL (wal.cc).
 */
#include "geoidx.h"

extern "C"
{
#include "access/xlog_internal.h"
#include "access/xlogreader.h"
#include "access/xlogutils.h"
#include "utils/guc.h"
}

namespace
{

/*
 * Not in the wiki's list of custom resource managers
 * (wiki.postgresql.org/wiki/CustomWALResourceManagers) when chosen: 128 is
 * everyone's experimental ID, and the list reserved 129-140 and 241. To be
 * reserved there before a release.
 */
constexpr RmgrId GEOIDX_RMGR_ID = 170;

constexpr uint8 XLOG_GEOIDX_LEAF_APPEND = 0x00;
constexpr uint8 XLOG_GEOIDX_ENTRY_ENLARGE = 0x10;

/*
 * A leaf append's block data, read and written with memcpy (the reader's copy
 * is not aligned): a header (the payload's size, uint16, and the box's form,
 * uint8), the entry, the box (one corner when it is a point's, whose corners
 * are equal; none for a NULL or EMPTY row), then the payload. A point's box
 * as one corner keeps the record about as small as the generic WAL delta it
 * replaces.
 */
enum BoxForm : uint8
{
	BOX_NONE = 0,
	BOX_POINT = 1, /* lo == hi: three doubles */
	BOX_FULL = 2,  /* six doubles */
};
constexpr Size LEAF_APPEND_HEADER = sizeof(uint16) + sizeof(uint8);
constexpr Size POINT_BOX = sizeof(double) * 3;

Size
box_bytes(uint8 form)
{
	return form == BOX_FULL ? sizeof(geoidx::Box3) : form == BOX_POINT ? POINT_BOX : 0;
}

/* An enlargement's block data. */
struct EnlargeRecord
{
	int32 entry;
	geoidx::Box3 box;
};

bool rmgr_registered = false;
bool own_wal_records = true;

/* Read the block data of a record, whose copy in the reader is not aligned. */
const char *
block_data(XLogReaderState *record, Size *len)
{
	char *data = XLogRecGetBlockData(record, 0, len);
	if (data == NULL)
		elog(PANIC, "geoidx redo: a record without its block data");
	return data;
}

void
redo_leaf_append(XLogReaderState *record, Page page)
{
	Size len;
	const char *data = block_data(record, &len);
	uint16 payload_size;
	GeoidxLeafEntry entry;
	geoidx::Box3 box;
	/* the payload is read as an IndexTuple: copied to aligned memory first */
	static union
	{
		char bytes[BLCKSZ];
		double align;
	} payload;
	if (len < LEAF_APPEND_HEADER + sizeof(entry))
		elog(PANIC, "geoidx redo: a leaf append of %zu bytes", len);
	memcpy(&payload_size, data, sizeof(payload_size));
	uint8 form = (uint8) data[sizeof(payload_size)];
	if (form > BOX_FULL || payload_size > BLCKSZ ||
		len != LEAF_APPEND_HEADER + sizeof(entry) + box_bytes(form) + payload_size)
		elog(PANIC, "geoidx redo: a leaf append of %zu bytes, box form %u, payload of %u bytes",
			 len, form, payload_size);
	const char *p = data + LEAF_APPEND_HEADER;
	memcpy(&entry, p, sizeof(entry));
	p += sizeof(entry);
	if (form == BOX_FULL)
		memcpy(&box, p, sizeof(box));
	else if (form == BOX_POINT)
	{
		memcpy(box.lo, p, POINT_BOX);
		memcpy(box.hi, p, POINT_BOX);
	}
	p += box_bytes(form);
	memcpy(payload.bytes, p, payload_size);
	if (!GeoidxPageIsLeaf(page) || !geoidx_leaf_fits(page, payload_size))
		elog(PANIC, "geoidx redo: a leaf append to a page that is no leaf or has no room");
	geoidx_leaf_append(page, &entry, payload_size > 0 ? payload.bytes : NULL, payload_size,
					   form != BOX_NONE ? &box : NULL);
}

void
redo_entry_enlarge(XLogReaderState *record, Page page)
{
	Size len;
	const char *data = block_data(record, &len);
	EnlargeRecord rec;
	if (len != sizeof(rec))
		elog(PANIC, "geoidx redo: an enlargement of %zu bytes", len);
	memcpy(&rec, data, sizeof(rec));
	if (GeoidxPageIsLeaf(page) || rec.entry < 0 || rec.entry >= GeoidxPageCount(page))
		elog(PANIC, "geoidx redo: an enlargement of entry %d of a page of %d", rec.entry,
			 GeoidxPageCount(page));
	geoidx_internal_enlarge(page, rec.entry, rec.box);
}

void
geoidx_redo(XLogReaderState *record)
{
	uint8 info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	Buffer buf;
	if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
	{
		Page page = BufferGetPage(buf);
		if (info == XLOG_GEOIDX_LEAF_APPEND)
			redo_leaf_append(record, page);
		else if (info == XLOG_GEOIDX_ENTRY_ENLARGE)
			redo_entry_enlarge(record, page);
		else
			elog(PANIC, "geoidx redo: unknown record type %u", info);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

const char *
geoidx_identify(uint8 info)
{
	switch (info & ~XLR_INFO_MASK)
	{
		case XLOG_GEOIDX_LEAF_APPEND:
			return "LEAF_APPEND";
		case XLOG_GEOIDX_ENTRY_ENLARGE:
			return "ENTRY_ENLARGE";
	}
	return NULL;
}

void
geoidx_desc(StringInfo buf, XLogReaderState *record)
{
	uint8 info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	Size len = 0;
	const char *data = XLogRecGetBlockData(record, 0, &len);
	if (info == XLOG_GEOIDX_LEAF_APPEND && data != NULL &&
		len >= LEAF_APPEND_HEADER + sizeof(GeoidxLeafEntry))
	{
		static const char *const forms[] = {"no box", "a point's box", "a box"};
		uint16 payload_size;
		GeoidxLeafEntry entry;
		memcpy(&payload_size, data, sizeof(payload_size));
		uint8 form = (uint8) data[sizeof(payload_size)];
		memcpy(&entry, data + LEAF_APPEND_HEADER, sizeof(entry));
		appendStringInfo(buf, "heap tid (%u,%u), %s, payload %u bytes",
						 ItemPointerGetBlockNumberNoCheck(&entry.tid),
						 ItemPointerGetOffsetNumberNoCheck(&entry.tid),
						 form <= BOX_FULL ? forms[form] : "?", payload_size);
	}
	else if (info == XLOG_GEOIDX_ENTRY_ENLARGE && data != NULL && len == sizeof(EnlargeRecord))
	{
		EnlargeRecord rec;
		memcpy(&rec, data, sizeof(rec));
		appendStringInfo(buf, "entry %d", rec.entry);
	}
}

/* rm_mask: the same pages as generic WAL's, with nothing more to mask */
RmgrData geoidx_rmgr = {"geoidx", geoidx_redo, geoidx_desc,  geoidx_identify,
						NULL,     NULL,        generic_mask, NULL};

/*
 * Whether this change is logged by a record of geoidx's own: WAL is needed,
 * the resource manager is registered here, and the setting asks for it.
 */
bool
use_own_records(Relation index)
{
	return rmgr_registered && own_wal_records && RelationNeedsWAL(index);
}

} // namespace

/*
 * Define geoidx.own_wal_records and, when preloaded, register the resource
 * manager; called once from _PG_init.
 */
void
geoidx_wal_rmgr_init(void)
{
	DefineCustomBoolVariable(
		"geoidx.own_wal_records",
		"Logs leaf appends and box enlargements with geoidx's own WAL records.",
		"Takes effect only where geoidx is in shared_preload_libraries. Every standby that "
		"replays this server's WAL, and this server's own crash recovery, must then preload "
		"geoidx too. Off: generic WAL, which any server can replay.",
		&own_wal_records, true, PGC_SIGHUP, 0, NULL, NULL, NULL);
	if (process_shared_preload_libraries_in_progress)
	{
		RegisterCustomRmgr(GEOIDX_RMGR_ID, &geoidx_rmgr);
		rmgr_registered = true;
	}
}

/*
 * Append an entry to a leaf under geoidx's own record; false (nothing done)
 * where generic WAL must log it instead. The caller holds the exclusive lock
 * and has checked geoidx_leaf_fits.
 */
bool
geoidx_own_leaf_append(Relation index, Buffer leaf, const GeoidxLeafEntry *entry,
					   const char *payload, Size payload_size, const geoidx::Box3 *box,
					   XLogRecPtr *lsn)
{
	if (!use_own_records(index))
		return false;
	char head[LEAF_APPEND_HEADER];
	uint16 stored_payload = payload != NULL ? (uint16) payload_size : 0;
	uint8 form = BOX_NONE;
	if (box != NULL)
		form = memcmp(box->lo, box->hi, sizeof(box->lo)) == 0 ? BOX_POINT : BOX_FULL;
	memcpy(head, &stored_payload, sizeof(stored_payload));
	head[sizeof(stored_payload)] = (char) form;
	Page page = BufferGetPage(leaf);

	START_CRIT_SECTION();
	geoidx_leaf_append(page, entry, payload, payload_size, box);
	MarkBufferDirty(leaf);
	XLogBeginInsert();
	XLogRegisterBuffer(0, leaf, REGBUF_STANDARD);
	XLogRegisterBufData(0, head, LEAF_APPEND_HEADER);
	XLogRegisterBufData(0, (char *) entry, sizeof(*entry));
	if (form != BOX_NONE)
		XLogRegisterBufData(0, (char *) box, box_bytes(form));
	if (stored_payload > 0)
		XLogRegisterBufData(0, const_cast<char *>(payload), stored_payload);
	*lsn = XLogInsert(GEOIDX_RMGR_ID, XLOG_GEOIDX_LEAF_APPEND);
	PageSetLSN(page, *lsn);
	END_CRIT_SECTION();
	return true;
}

/* Enlarge downlink i of an internal page under geoidx's own record; false as above. */
bool
geoidx_own_entry_enlarge(Relation index, Buffer buf, int i, const geoidx::Box3 &b, XLogRecPtr *lsn)
{
	if (!use_own_records(index))
		return false;
	EnlargeRecord rec;
	memset(&rec, 0, sizeof(rec));
	rec.entry = i;
	rec.box = b;
	Page page = BufferGetPage(buf);

	START_CRIT_SECTION();
	geoidx_internal_enlarge(page, i, b);
	MarkBufferDirty(buf);
	XLogBeginInsert();
	XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
	XLogRegisterBufData(0, (char *) &rec, sizeof(rec));
	*lsn = XLogInsert(GEOIDX_RMGR_ID, XLOG_GEOIDX_ENTRY_ENLARGE);
	PageSetLSN(page, *lsn);
	END_CRIT_SECTION();
	return true;
}
