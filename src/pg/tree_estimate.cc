/*
 * The planner's count of the rows in a disc, read from a geoidx index on the
 * column (src/core/disc_estimate.h says why and what is counted).
 *
 * The walk is breadth-first from the root and reads at most
 * kGeoidxEstimatePages pages (or fewer, as the caller asks): the boxes the edge of the disc crosses
 * first (their share is the uncertain part), then the boxes wholly inside. A page it does not read
 * is estimated from its parent's box: the parent's rows split evenly among its entries, times the
 * sampled share of the entry's box in the disc. The root's rows are the planner's row count of the
 * index (the table's).
 *
 * One planning asks for the same disc several times (the table's rows, each
 * index path's conditions): the last few answers are kept for as long as no
 * table is looked up again (geoidx_relation_info_calls), which every new
 * planning does first, so no answer outlives the planning that asked.
 *
 * Pages are read under a share lock one at a time, with no right-link
 * following: a split that runs meanwhile can hide a sibling from the walk,
 * which costs the estimate a page's rows, never a wrong answer.
 */
#include "disc_estimate.h"

#include "geoidx.h"

#include <utility>

extern "C"
{
#include "access/relation.h"
#include "nodes/pathnodes.h"
#include "utils/rel.h"
}

namespace
{

struct PendingPage
{
	BlockNumber blk;
	double rows;  /* the rows under the page, estimated from its parent */
	double share; /* the share of its box in the disc, sampled */
};

/* The entries of a leaf in the disc: whole chunks where their box decides, else entry by entry. */
double
count_leaf(Page page, const geoidx::DiscEstimate &d)
{
	int n = GeoidxPageCount(page);
	const GeoidxLeafEntry *entries = GeoidxLeafEntries(page);
	const GeoidxChunkBox *chunks = GeoidxChunkBoxes(page);
	double count = 0.0;
	for (int c = 0; c * GEOIDX_CHUNK < n; c++)
	{
		int first = c * GEOIDX_CHUNK;
		int last = Min(n, first + GEOIDX_CHUNK);
		geoidx::Box3 box = geoidx_chunk_box(&chunks[c]);
		if (geoidx::box_is_empty(box))
			continue; /* NULL and EMPTY rows only */
		geoidx::Verdict v = geoidx::classify_box(d.test, box);
		if (v == geoidx::Verdict::outside)
			continue;
		for (int i = first; i < last; i++)
		{
			const GeoidxLeafEntry *e = &entries[i];
			if (GeoidxEntryIsPoint(e))
				count += (v == geoidx::Verdict::inside ||
						  geoidx::vector_in_disc(d, geoidx_entry_vector(e)))
							 ? 1.0
							 : 0.0;
			else if (GeoidxEntryIsShape(e))
				count += geoidx::box_reaches_disc(d, GeoidxEntryShapeBox(e)) ? 1.0 : 0.0;
		}
	}
	return count;
}

/* The geoidx index to read for the column: not partial nor hypothetical, the fewest pages. */
IndexOptInfo *
index_on_column(PlannerInfo *root, Node *column)
{
	if (IsA(column, RelabelType))
		column = (Node *) ((RelabelType *) column)->arg;
	if (!IsA(column, Var) || ((Var *) column)->varlevelsup != 0)
		return NULL;
	Var *var = (Var *) column;
	if (var->varno < 1 || var->varno >= root->simple_rel_array_size)
		return NULL;
	RelOptInfo *rel = root->simple_rel_array[var->varno];
	if (rel == NULL || rel->rtekind != RTE_RELATION)
		return NULL;
	Oid am = geoidx_catalog().geoidx_am;
	IndexOptInfo *best = NULL;
	ListCell *lc;
	foreach (lc, rel->indexlist)
	{
		IndexOptInfo *index = (IndexOptInfo *) lfirst(lc);
		if (index->relam != am || index->hypothetical || index->indpred != NIL ||
			index->ncolumns < 1 || index->indexkeys[0] != var->varattno || !(index->tuples > 0.0))
			continue;
		if (best == NULL || index->pages < best->pages)
			best = index;
	}
	return best;
}

/* Read one page of the walk: a leaf's count, or its children queued; returns the rows it decides.
 */
double
read_page(Relation index, const PendingPage &p, const geoidx::DiscEstimate &d, PendingPage *queue,
		  int *queued, int queue_size)
{
	Buffer buf = geoidx_read_page_buffer(index, p.blk);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	Page page = geoidx_locked_page(index, buf);
	double rows = 0.0;
	if (GeoidxPageIsLeaf(page))
		rows = count_leaf(page, d);
	else
	{
		int n = GeoidxPageCount(page);
		const GeoidxInternalEntry *entries = GeoidxInternalEntries(page);
		for (int i = 0; i < n; i++)
		{
			double share = geoidx::box_share_in_disc(d, entries[i].box);
			if (share <= 0.0)
				continue; /* provably outside */
			double child_rows = p.rows / n;
			if (*queued < queue_size)
				queue[(*queued)++] = PendingPage{entries[i].child, child_rows, share};
			else
				rows += child_rows * share; /* no room to read it: estimate it */
		}
	}
	UnlockReleaseBuffer(buf);
	return rows;
}

/* Edge-crossing pages first (share < 1), then those wholly inside. */
int
by_uncertainty(const void *a, const void *b)
{
	bool fa = ((const PendingPage *) a)->share >= 1.0;
	bool fb = ((const PendingPage *) b)->share >= 1.0;
	return (int) fa - (int) fb;
}

/* The last answers, for the same disc asked again within one planning. */
struct MemoEntry
{
	uint64 generation; /* geoidx_relation_info_calls when asked; 0: empty */
	Oid index;
	double lon, lat, radius;
	bool use_spheroid;
	int max_pages;
	double rows;
};

constexpr int kMemoEntries = 4;
MemoEntry memo[kMemoEntries];
int memo_next = 0;

MemoEntry *
memo_find(Oid index, geoidx::LonLat c, double radius, bool use_spheroid, int max_pages)
{
	for (MemoEntry &m : memo)
		if (m.generation == geoidx_relation_info_calls + 1 && m.index == index && m.lon == c.lon &&
			m.lat == c.lat && m.radius == radius && m.use_spheroid == use_spheroid &&
			m.max_pages == max_pages)
			return &m;
	return NULL;
}

} // namespace

/*
 * Estimate the rows of `column` in the disc from a geoidx index on it: true
 * with *rows and the index's row count in *total, false if the column has no
 * such index (the caller then asks PostGIS's statistics).
 */
bool
geoidx_tree_estimate(PlannerInfo *root, Node *column, geoidx::LonLat centre, double radius,
					 bool use_spheroid, double *rows, double *total, int max_pages)
{
	const GeoidxCatalog &o = geoidx_catalog();
	if (!OidIsValid(o.geoidx_am))
		return false;
	IndexOptInfo *info = index_on_column(root, column);
	if (info == NULL)
		return false;

	MemoEntry *m = memo_find(info->indexoid, centre, radius, use_spheroid, max_pages);
	if (m != NULL)
	{
		*rows = m->rows;
		*total = info->tuples;
		return true;
	}

	Relation index = index_open(info->indexoid, AccessShareLock);
	GeoidxRelInfo *rel_info = (GeoidxRelInfo *) geoidx_rel_info(index);
	if (rel_info->format == 0)
		rel_info->format = geoidx_index_format_of(index);
	if (rel_info->format != GEOIDX_FORMAT_VERSION && rel_info->format != GEOIDX_FORMAT_POINTS_ONLY)
	{
		index_close(index, NoLock);
		return false; /* a scan of it would say what is wrong; the planner need not */
	}

	geoidx::DiscEstimate d =
		geoidx::disc_estimate(geoidx::geographic_point(centre), radius, use_spheroid);
	/* the pages queued beyond the budget are estimated, not read: room for a few pages' entries */
	const int queue_size = 4 * GEOIDX_INTERNAL_CAPACITY;
	PendingPage *level = (PendingPage *) palloc(sizeof(PendingPage) * queue_size);
	PendingPage *next = (PendingPage *) palloc(sizeof(PendingPage) * queue_size);
	int nlevel = 1, read = 0;
	level[0] = PendingPage{GEOIDX_ROOT_BLKNO, info->tuples, 1.0};
	double estimate = 0.0;
	while (nlevel > 0)
	{
		qsort(level, nlevel, sizeof(PendingPage), by_uncertainty);
		int nnext = 0;
		for (int i = 0; i < nlevel; i++)
		{
			if (read >= max_pages)
				estimate += level[i].rows * level[i].share;
			else
			{
				estimate += read_page(index, level[i], d, next, &nnext, queue_size);
				read++;
			}
		}
		std::swap(level, next);
		nlevel = nnext;
	}
	pfree(level);
	pfree(next);
	index_close(index, NoLock);
	/* generation + 1, so that a zeroed entry never matches */
	memo[memo_next] = MemoEntry{geoidx_relation_info_calls + 1,
								info->indexoid,
								centre.lon,
								centre.lat,
								radius,
								use_spheroid,
								max_pages,
								estimate};
	memo_next = (memo_next + 1) % kMemoEntries;
	*rows = estimate;
	*total = info->tuples;
	return true;
}

/*
 * Up to max points of the column, spread over a geoidx index on it in the
 * index's own order: sample j is the entry at quantile (j + 0.5) / max, each
 * level's remainder carried into the child it picks. Where the rows are, so
 * where a centre taken from the data (a parameter, a row of another table)
 * most likely lies. Returns how many were found (0: no such index).
 */
int
geoidx_tree_sample_points(PlannerInfo *root, Node *column, geoidx::LonLat *out, int max)
{
	const GeoidxCatalog &o = geoidx_catalog();
	if (!OidIsValid(o.geoidx_am) || max <= 0)
		return 0;
	IndexOptInfo *info = index_on_column(root, column);
	if (info == NULL)
		return 0;
	Relation index = index_open(info->indexoid, AccessShareLock);
	GeoidxRelInfo *rel_info = (GeoidxRelInfo *) geoidx_rel_info(index);
	if (rel_info->format == 0)
		rel_info->format = geoidx_index_format_of(index);
	int found = 0;
	if (rel_info->format == GEOIDX_FORMAT_VERSION || rel_info->format == GEOIDX_FORMAT_POINTS_ONLY)
		for (int j = 0; j < max; j++)
		{
			double frac = (j + 0.5) / max;
			BlockNumber blk = GEOIDX_ROOT_BLKNO;
			/* a tree is a few levels deep; the bound only guards against a corrupted link */
			for (int depth = 0; depth < 32; depth++)
			{
				Buffer buf = geoidx_read_page_buffer(index, blk);
				LockBuffer(buf, BUFFER_LOCK_SHARE);
				Page page = geoidx_locked_page(index, buf);
				int n = GeoidxPageCount(page);
				bool leaf = GeoidxPageIsLeaf(page);
				int i = Min(n - 1, (int) (frac * n));
				if (n > 0 && leaf)
				{
					const GeoidxLeafEntry *e = &GeoidxLeafEntries(page)[i];
					if (GeoidxEntryIsPoint(e))
						out[found++] = geoidx_entry_lonlat(e->x, e->y);
				}
				else if (n > 0)
				{
					frac = frac * n - i;
					blk = GeoidxInternalEntries(page)[i].child;
				}
				UnlockReleaseBuffer(buf);
				if (n == 0 || leaf)
					break;
			}
		}
	index_close(index, NoLock);
	return found;
}
