/*
 * Reading an index page through the buffer this backend last found it in.
 *
 * ReadBuffer finds a page's buffer in the shared buffer mapping table: a
 * hash of the page's tag, a partition lock taken and released, and a probe
 * that misses the CPU cache in a table sized for all of shared_buffers. A
 * k-NN query of 10 rows reads ~20 index pages, and those lookups were 6 % of
 * a filtered k-NN backend (bench/PROFILES.md). The same pages (the root, the
 * upper levels, the leaves of a busy area) are read by query after query, so
 * this backend remembers the buffer each page was last found in, and asks
 * PostgreSQL's ReadRecentBuffer to pin it there: it checks the buffer's tag
 * under the buffer header's lock, so a remembered buffer that has since been
 * evicted or reused (or an index rewritten by REINDEX, which has a new
 * relfilenode) is only a miss, and the page is then read the usual way.
 *
 * PostgreSQL 15.20's ReadRecentBuffer counts a hit in the buffer usage
 * EXPLAIN (BUFFERS) reports but not in the statistics (pg_statio_*_indexes),
 * and the function has not counted alike in every release: a hit is counted
 * here wherever it was not, so both say what ReadBuffer would have said.
 * Temporary indexes (local buffers) are read the usual way: their lookup is
 * the backend's own, with no shared table to miss.
 */
#include "geoidx.h"

extern "C"
{
#include "executor/instrument.h"
#include "pgstat.h"
#include "storage/buf_internals.h"
}

namespace
{

/*
 * A power of two; 16 bytes a slot, 256 kB a backend (only the slots it uses
 * are ever touched). Direct-mapped: a collision only costs a ReadBuffer. A
 * page finds its slot still its own about 1 / (1 + pages / slots) of the time
 * when a backend reads pages at random, so 2,048 slots served the 6,000-page
 * index of KF a quarter of its reads; 16,384 serve ~3/4 (bench/PROFILES.md).
 */
constexpr uint32 kSlots = 16384;

struct RecentSlot
{
	Oid rel; /* relfilenode; with the database's, enough to tell indexes apart */
	Oid db;  /* database of the relfilenode (0 when the slot is empty) */
	BlockNumber blk;
	Buffer buf;
};

RecentSlot recent[kSlots];

inline RecentSlot &
slot_of(const RelFileNode &node, BlockNumber blk)
{
	uint32 h = (blk * 0x9E3779B1u) ^ (node.relNode * 0x85EBCA77u);
	return recent[(h >> 16) & (kSlots - 1)];
}

} // namespace

Buffer
geoidx_read_page_buffer(Relation index, BlockNumber blk)
{
	if (RelationUsesLocalBuffers(index) || blk == P_NEW)
		return ReadBuffer(index, blk);
	const RelFileNode &node = index->rd_node;
	RecentSlot &s = slot_of(node, blk);
	/* the tablespace is not compared: ReadRecentBuffer compares the whole tag */
	int64 hits = pgBufferUsage.shared_blks_hit;
	if (s.db == node.dbNode && s.rel == node.relNode && s.blk == blk && BufferIsValid(s.buf) &&
		ReadRecentBuffer(node, MAIN_FORKNUM, blk, s.buf))
	{
		if (pgBufferUsage.shared_blks_hit == hits)
			pgBufferUsage.shared_blks_hit++;
		pgstat_count_buffer_read(index);
		pgstat_count_buffer_hit(index);
		return s.buf;
	}
	Buffer buf = ReadBuffer(index, blk);
	s.rel = node.relNode;
	s.db = node.dbNode;
	s.blk = blk;
	s.buf = buf;
	return buf;
}

/*
 * Ask the CPU for the lines of an index page that a visit reads first: the
 * header and the page box, and the last tail bytes (the chunk boxes, tags and
 * special space), so that their misses overlap.
 */
void
geoidx_prefetch_page_lines(Page page, int tail)
{
	for (int off = 0; off < (int) GEOIDX_ENTRIES_OFFSET; off += 64)
		__builtin_prefetch((const char *) page + off);
	for (int off = BLCKSZ - tail; off < BLCKSZ; off += 64)
		__builtin_prefetch((const char *) page + off);
}

/*
 * The same for page blk, where this backend last found it, and its buffer
 * header (which the pin reads), before the scan reads it: a k-NN scan asks
 * for the page it will likely read next while it works on the current one
 * (bench/PROFILES.md, page 100). Only a hint: nothing is pinned or locked, and
 * a slot gone stale only asks for another page's memory.
 */
void
geoidx_prefetch_recent_page(Relation index, BlockNumber blk, int tail)
{
	if (RelationUsesLocalBuffers(index) || blk == InvalidBlockNumber)
		return;
	const RelFileNode &node = index->rd_node;
	const RecentSlot &s = slot_of(node, blk);
	if (s.db != node.dbNode || s.rel != node.relNode || s.blk != blk || s.buf <= 0 ||
		s.buf > NBuffers)
		return;
	__builtin_prefetch(GetBufferDescriptor(s.buf - 1));
	geoidx_prefetch_page_lines((Page) BufferGetBlock(s.buf), tail);
}
