/*
 * Parallel bulk build, as PostgreSQL's btree does it: the leader and its
 * workers each scan part of the heap (a parallel table scan) into their own
 * tuplesort, those sorts' runs go to a shared fileset, and the leader merges
 * them into one sorted stream, which build.cc writes as it writes the serial
 * tuplesort's. Rows sort by (key, TID), a total order, so the merged stream
 * and so the index are the same bytes whatever the number of participants.
 *
 * How many workers: PostgreSQL 15 plans workers only for btree, so the build
 * asks plan_create_index_workers itself, as pgvector does. Its rule weighs the
 * heap's main fork, but a shape column lives mostly in the TOAST table (a
 * zone of 540 vertices is an 8.6 kB value), where the build's time goes: when
 * the planner finds no reason against workers but too few blocks, the same
 * rule (a worker from min_parallel_table_scan_size on, one more each time the
 * size triples) is applied to the main fork and the TOAST table together. A
 * column of points (its typmod says Point) stays serial: its flat sort of
 * 32-byte records beats any tuplesort.
 */
#include "build.h"

extern "C"
{
#include "access/parallel.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "executor/tuptable.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "pgstat.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
}

#include <cmath>

namespace
{

constexpr uint64 kKeyShared = UINT64CONST(0xB1D0000000000001);
constexpr uint64 kKeySort = UINT64CONST(0xB1D0000000000002);

/* What every participant reads and reports, in the DSM segment; the parallel scan follows it. */
struct BuildShared
{
	Oid heaprelid;
	Oid indexrelid;
	bool isconcurrent;
	int participants; /* the shared sort's: launched workers and the leader, at most */
	int sortmem;      /* kB of each participant's sort */
	ConditionVariable donecv;
	slock_t mutex;
	int done; /* participants whose sort is performed */
	double reltuples;
	double indtuples;
};
static_assert(std::is_trivially_destructible_v<BuildShared>, "lives in shared memory");

ParallelTableScanDesc
scan_of(BuildShared *shared)
{
	return (ParallelTableScanDesc) ((char *) shared + MAXALIGN(sizeof(BuildShared)));
}

/* Scan this participant's part of the heap into its sort, perform it and report. */
void
participate(Relation heap, Relation index, IndexInfo *indexInfo, BuildShared *shared,
			Sharedsort *sharedsort, bool progress)
{
	GeoidxBuildState state;
	geoidx_build_state_init(&state, index);
	SortCoordinate coordinate = (SortCoordinate) palloc0(sizeof(SortCoordinateData));
	coordinate->isWorker = true;
	coordinate->nParticipants = -1;
	coordinate->sharedsort = sharedsort;
	geoidx_build_begin_sort(&state, coordinate, shared->sortmem);
	TableScanDesc scan = table_beginscan_parallel(heap, scan_of(shared));
	double reltuples = table_index_build_scan(heap, index, indexInfo, true, progress,
											  geoidx_build_callback, &state, scan);
	tuplesort_performsort(state.sort);
	SpinLockAcquire(&shared->mutex);
	shared->done++;
	shared->reltuples += reltuples;
	shared->indtuples += state.indtuples;
	SpinLockRelease(&shared->mutex);
	ConditionVariableSignal(&shared->donecv);
	tuplesort_end(state.sort);
	ExecDropSingleTupleTableSlot(state.slot);
	MemoryContextDelete(state.tmpcxt);
}

/* A column of points: the serial flat sort is the faster build. */
bool
column_holds_points(Relation index)
{
	int32 typmod = TupleDescAttr(RelationGetDescr(index), 0)->atttypmod;
	return typmod >= 0 && GeoidxTypmodType(typmod) == 1;
}

/*
 * The planner's worker count for this build, and where the planner saw only
 * the main fork of a TOASTed table, its rule over main fork and TOAST.
 */
int
workers_for(Relation heap, Relation index)
{
	if (column_holds_points(index))
		return 0;
	int workers = plan_create_index_workers(RelationGetRelid(heap), RelationGetRelid(index));
	if (workers > 0 || !IsUnderPostmaster || max_parallel_maintenance_workers == 0 ||
		heap->rd_rel->relpersistence == RELPERSISTENCE_TEMP ||
		RelationGetIndexExpressions(index) != NIL || RelationGetIndexPredicate(index) != NIL ||
		RelationGetParallelWorkers(heap, -1) != -1 || !OidIsValid(heap->rd_rel->reltoastrelid))
		return workers;
	Relation toast = relation_open(heap->rd_rel->reltoastrelid, AccessShareLock);
	double blocks = (double) RelationGetNumberOfBlocks(heap) + RelationGetNumberOfBlocks(toast);
	relation_close(toast, AccessShareLock);
	double threshold = Max((double) min_parallel_table_scan_size, 1.0);
	if (blocks < threshold)
		return 0;
	for (workers = 1; blocks >= threshold * 3 && workers < max_parallel_maintenance_workers;
		 workers++)
		threshold *= 3;
	/* as the planner: each participant's sort keeps at least 32 MB */
	while (workers > 0 && maintenance_work_mem / (workers + 1) < 32768L)
		workers--;
	return workers;
}

} // namespace

struct GeoidxParallelBuild
{
	ParallelContext *pcxt;
	Snapshot snapshot;
};

GeoidxParallelBuild *
geoidx_parallel_build_load(Relation heap, Relation index, IndexInfo *indexInfo,
						   GeoidxBuildState *state, double *reltuples)
{
	int workers = workers_for(heap, index);
	if (workers <= 0)
		return NULL;

	EnterParallelMode();
	ParallelContext *pcxt = CreateParallelContext("geoidx", "geoidx_parallel_build_main", workers);
	Snapshot snapshot =
		indexInfo->ii_Concurrent ? RegisterSnapshot(GetTransactionSnapshot()) : SnapshotAny;
	int participants = workers + 1;
	Size shared_size = MAXALIGN(sizeof(BuildShared)) + table_parallelscan_estimate(heap, snapshot);
	Size sort_size = tuplesort_estimate_shared(participants);
	shm_toc_estimate_chunk(&pcxt->estimator, shared_size);
	shm_toc_estimate_chunk(&pcxt->estimator, sort_size);
	shm_toc_estimate_keys(&pcxt->estimator, 2);
	InitializeParallelDSM(pcxt);
	if (pcxt->seg == NULL)
	{
		/* no DSM segment to be had: serial */
		if (IsMVCCSnapshot(snapshot))
			UnregisterSnapshot(snapshot);
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return NULL;
	}

	BuildShared *shared = (BuildShared *) shm_toc_allocate(pcxt->toc, shared_size);
	shared->heaprelid = RelationGetRelid(heap);
	shared->indexrelid = RelationGetRelid(index);
	shared->isconcurrent = indexInfo->ii_Concurrent;
	shared->participants = participants;
	shared->sortmem = Max(64, maintenance_work_mem / participants);
	ConditionVariableInit(&shared->donecv);
	SpinLockInit(&shared->mutex);
	shared->done = 0;
	shared->reltuples = 0.0;
	shared->indtuples = 0.0;
	table_parallelscan_initialize(heap, scan_of(shared), snapshot);
	Sharedsort *sharedsort = (Sharedsort *) shm_toc_allocate(pcxt->toc, sort_size);
	tuplesort_initialize_shared(sharedsort, participants, pcxt->seg);
	shm_toc_insert(pcxt->toc, kKeyShared, shared);
	shm_toc_insert(pcxt->toc, kKeySort, sharedsort);

	LaunchParallelWorkers(pcxt);
	if (pcxt->nworkers_launched == 0)
	{
		/* no worker slot free: serial, as btree does */
		WaitForParallelWorkersToFinish(pcxt);
		if (IsMVCCSnapshot(snapshot))
			UnregisterSnapshot(snapshot);
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return NULL;
	}
	ereport(DEBUG1, (errmsg_internal("geoidx: building index \"%s\" with %d parallel workers",
									 RelationGetRelationName(index), pcxt->nworkers_launched)));
	participate(heap, index, indexInfo, shared, sharedsort, true);
	/* after the leader's share, as btree: a worker that failed to start raises here, not hangs */
	WaitForParallelWorkersToAttach(pcxt);
	int joined = pcxt->nworkers_launched + 1;
	for (;;)
	{
		SpinLockAcquire(&shared->mutex);
		bool all = shared->done == joined;
		SpinLockRelease(&shared->mutex);
		if (all)
			break;
		ConditionVariableSleep(&shared->donecv, WAIT_EVENT_PARALLEL_CREATE_INDEX_SCAN);
	}
	ConditionVariableCancelSleep();

	/* the leader's sort merges the participants' runs */
	SortCoordinate coordinate = (SortCoordinate) palloc0(sizeof(SortCoordinateData));
	coordinate->isWorker = false;
	coordinate->nParticipants = joined;
	coordinate->sharedsort = sharedsort;
	geoidx_build_begin_sort(state, coordinate, maintenance_work_mem);
	state->indtuples = shared->indtuples;
	*reltuples = shared->reltuples;

	GeoidxParallelBuild *pb = (GeoidxParallelBuild *) palloc(sizeof(GeoidxParallelBuild));
	pb->pcxt = pcxt;
	pb->snapshot = snapshot;
	return pb;
}

void
geoidx_parallel_build_end(GeoidxParallelBuild *pb)
{
	WaitForParallelWorkersToFinish(pb->pcxt);
	if (IsMVCCSnapshot(pb->snapshot))
		UnregisterSnapshot(pb->snapshot);
	DestroyParallelContext(pb->pcxt);
	ExitParallelMode();
}

/* A parallel build's worker: its part of the heap into its sort (CreateParallelContext's entry). */
extern "C" PGDLLEXPORT void
geoidx_parallel_build_main(dsm_segment *seg, shm_toc *toc)
{
	BuildShared *shared = (BuildShared *) shm_toc_lookup(toc, kKeyShared, false);
	Sharedsort *sharedsort = (Sharedsort *) shm_toc_lookup(toc, kKeySort, false);
	/* the leader's locks, which group locking lets its workers share */
	LOCKMODE heap_lock = shared->isconcurrent ? ShareUpdateExclusiveLock : ShareLock;
	LOCKMODE index_lock = shared->isconcurrent ? RowExclusiveLock : AccessExclusiveLock;
	Relation heap = table_open(shared->heaprelid, heap_lock);
	Relation index = index_open(shared->indexrelid, index_lock);
	IndexInfo *indexInfo = BuildIndexInfo(index);
	indexInfo->ii_Concurrent = shared->isconcurrent;
	tuplesort_attach_shared(sharedsort, seg);
	participate(heap, index, indexInfo, shared, sharedsort, false);
	index_close(index, index_lock);
	table_close(heap, heap_lock);
}
