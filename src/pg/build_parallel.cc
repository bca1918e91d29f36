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
 * size triples) is applied to the main fork and the TOAST table together.
 *
 * A column of points (its typmod says Point, no payload) keeps the flat
 * records of the serial build, which beat any tuplesort: each participant
 * sorts its share in an array of 32-byte records, a share of
 * maintenance_work_mem, and writes each full array as a sorted run to a
 * shared fileset; the leader merges the runs (src/core/build_merge.h) into
 * the write phase.
 */
#include "build.h"
#include "build_merge.h"

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
#include "storage/buffile.h"
#include "storage/condition_variable.h"
#include "storage/sharedfileset.h"
#include "storage/spin.h"
#include "utils/guc.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
}

#include <cmath>

namespace
{

constexpr uint64 kKeyShared = UINT64CONST(0xB1D0000000000001);
constexpr uint64 kKeySort = UINT64CONST(0xB1D0000000000002);
constexpr uint64 kKeyRuns = UINT64CONST(0xB1D0000000000003);

/* Records a merge reads from a run at a time (64 kB). */
constexpr size_t kRunBuffer = 2048;

/* geoidx.build_run_records: at most this many records a run, 0 for a participant's memory share. */
int run_records = 0;

/* What every participant reads and reports, in the DSM segment; the parallel scan follows it. */
struct BuildShared
{
	Oid heaprelid;
	Oid indexrelid;
	bool isconcurrent;
	bool flat;        /* points: flat runs in the fileset instead of the shared tuplesort */
	int run_records;  /* geoidx.build_run_records */
	int participants; /* the shared sort's: launched workers and the leader, at most */
	int sortmem;      /* kB of each participant's sort */
	ConditionVariable donecv;
	slock_t mutex;
	int done; /* participants whose sort is performed */
	double reltuples;
	double indtuples;
	SharedFileSet fileset; /* the flat runs, named by participant and run (run_name) */
};
static_assert(std::is_trivially_destructible_v<BuildShared>, "lives in shared memory");

/* A flat participant's runs: where they go and how many it wrote. */
struct RunSinkState
{
	BuildShared *shared;
	int participant; /* 0 the leader, 1 + ParallelWorkerNumber a worker */
	int nruns;
};

void
run_name(char *name, int participant, int run)
{
	snprintf(name, MAXPGPATH, "geoidx.%d.%d", participant, run);
}

ParallelTableScanDesc
scan_of(BuildShared *shared)
{
	return (ParallelTableScanDesc) ((char *) shared + MAXALIGN(sizeof(BuildShared)));
}

/*
 * Scan this participant's part of the heap into its sort, perform it and
 * report: the shared tuplesort, or for points flat runs (runs[participant]
 * says how many), the leader's last one left in memory (leader_run).
 */
void
participate(Relation heap, Relation index, IndexInfo *indexInfo, BuildShared *shared,
			Sharedsort *sharedsort, int *runs, int participant, geoidx::BuildRunHead *leader_run,
			bool progress)
{
	GeoidxBuildState state;
	geoidx_build_state_init(&state, index);
	RunSinkState sink = {shared, participant, 0};
	if (shared->flat)
	{
		state.maxpoints =
			Max((int64) 1024, (int64) shared->sortmem * 1024 / (int64) sizeof(geoidx::BuildPoint));
		if (shared->run_records > 0)
			state.maxpoints = shared->run_records;
		state.runs = (GeoidxRunSink *) &sink;
	}
	else
	{
		SortCoordinate coordinate = (SortCoordinate) palloc0(sizeof(SortCoordinateData));
		coordinate->isWorker = true;
		coordinate->nParticipants = -1;
		coordinate->sharedsort = sharedsort;
		geoidx_build_begin_sort(&state, coordinate, shared->sortmem);
	}
	TableScanDesc scan = table_beginscan_parallel(heap, scan_of(shared));
	double reltuples = table_index_build_scan(heap, index, indexInfo, true, progress,
											  geoidx_build_callback, &state, scan);
	if (shared->flat)
	{
		if (participant == 0 && leader_run != NULL)
		{
			/* the leader's last run stays in memory for its merge: half the files not written */
			geoidx::sort_build_points(state.points, (size_t) state.npoints);
			leader_run->next = state.points;
			leader_run->end = state.points + state.npoints;
			state.points = NULL;
		}
		else if (state.npoints > 0)
			geoidx_build_write_run(&state);
		runs[participant] = sink.nruns;
	}
	else
		tuplesort_performsort(state.sort);
	/* the spinlock orders runs[participant] before done for the leader */
	SpinLockAcquire(&shared->mutex);
	shared->done++;
	shared->reltuples += reltuples;
	shared->indtuples += state.indtuples;
	SpinLockRelease(&shared->mutex);
	ConditionVariableSignal(&shared->donecv);
	if (shared->flat)
	{
		if (state.points != NULL)
			pfree(state.points);
	}
	else
	{
		tuplesort_end(state.sort);
		ExecDropSingleTupleTableSlot(state.slot);
	}
	MemoryContextDelete(state.tmpcxt);
}

/* A column of points without payloads: every row is a flat record. */
bool
flat_records(Relation index)
{
	int32 typmod = TupleDescAttr(RelationGetDescr(index), 0)->atttypmod;
	return typmod >= 0 && GeoidxTypmodType(typmod) == 1 &&
		   geoidx_rel_info(index)->payload_desc == NULL;
}

/*
 * The planner's worker count for this build, and where the planner saw only
 * the main fork of a TOASTed table, its rule over main fork and TOAST.
 */
int
workers_for(Relation heap, Relation index)
{
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

/*
 * The leader's merge of the flat runs: each run's file and what of it is
 * buffered; the last run, without a file, is the leader's own in memory.
 */
struct GeoidxRunMerge
{
	int nruns;
	BufFile **files; /* nruns - 1 of them */
	geoidx::BuildRunHead *heads;
	geoidx::BuildPoint *buffers; /* kRunBuffer records a run */
	geoidx::BuildPoint *leader_points;
};

void
geoidx_build_write_run(GeoidxBuildState *state)
{
	RunSinkState *sink = (RunSinkState *) state->runs;
	geoidx::sort_build_points(state->points, (size_t) state->npoints);
	char name[MAXPGPATH];
	run_name(name, sink->participant, sink->nruns);
	BufFile *file = BufFileCreateFileSet(&sink->shared->fileset.fs, name);
	BufFileWrite(file, state->points, sizeof(geoidx::BuildPoint) * (size_t) state->npoints);
	BufFileClose(file);
	sink->nruns++;
	state->npoints = 0;
}

namespace
{

/* Fill run i's buffer from its file; an exhausted run's head stays empty. */
void
refill(GeoidxRunMerge *m, int i)
{
	if (i == m->nruns - 1)
		return; /* the leader's run in memory: exhausted */
	geoidx::BuildPoint *buf = m->buffers + (size_t) i * kRunBuffer;
	size_t bytes = BufFileRead(m->files[i], buf, sizeof(geoidx::BuildPoint) * kRunBuffer);
	if (bytes % sizeof(geoidx::BuildPoint) != 0)
		ereport(ERROR, (errcode_for_file_access(),
						errmsg("could not read run %d of a parallel geoidx build: read %zu bytes",
							   i, bytes)));
	m->heads[i].next = buf;
	m->heads[i].end = buf + bytes / sizeof(geoidx::BuildPoint);
}

/* Open every participant's runs for the leader's merge. */
GeoidxRunMerge *
open_runs(BuildShared *shared, const int *runs, int joined, geoidx::BuildRunHead leader_run)
{
	GeoidxRunMerge *m = (GeoidxRunMerge *) palloc0(sizeof(GeoidxRunMerge));
	m->nruns = 1;
	for (int p = 0; p < joined; p++)
		m->nruns += runs[p];
	int n = m->nruns;
	m->files = (BufFile **) palloc0(sizeof(BufFile *) * n);
	m->heads = (geoidx::BuildRunHead *) palloc0(sizeof(geoidx::BuildRunHead) * n);
	m->buffers = (geoidx::BuildPoint *) palloc_extended(sizeof(geoidx::BuildPoint) * kRunBuffer * n,
														MCXT_ALLOC_HUGE);
	int i = 0;
	for (int p = 0; p < joined; p++)
		for (int r = 0; r < runs[p]; r++, i++)
		{
			char name[MAXPGPATH];
			run_name(name, p, r);
			m->files[i] = BufFileOpenFileSet(&shared->fileset.fs, name, O_RDONLY, false);
			refill(m, i);
		}
	m->heads[i] = leader_run;
	m->leader_points = (geoidx::BuildPoint *) leader_run.next;
	return m;
}

} // namespace

bool
geoidx_build_merge_next(GeoidxRunMerge *m, geoidx::BuildPoint *r)
{
	size_t i = geoidx::build_merge_pick(m->heads, (size_t) m->nruns);
	if (i == (size_t) m->nruns)
		return false;
	*r = *m->heads[i].next++;
	if (m->heads[i].next == m->heads[i].end)
		refill(m, (int) i);
	return true;
}

struct GeoidxParallelBuild
{
	ParallelContext *pcxt;
	Snapshot snapshot;
	GeoidxRunMerge *merge;
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
	Size runs_size = sizeof(int) * participants;
	shm_toc_estimate_chunk(&pcxt->estimator, shared_size);
	shm_toc_estimate_chunk(&pcxt->estimator, sort_size);
	shm_toc_estimate_chunk(&pcxt->estimator, runs_size);
	shm_toc_estimate_keys(&pcxt->estimator, 3);
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
	shared->flat = flat_records(index);
	shared->run_records = run_records;
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
	int *runs = (int *) shm_toc_allocate(pcxt->toc, runs_size);
	memset(runs, 0, runs_size);
	SharedFileSetInit(&shared->fileset, pcxt->seg);
	shm_toc_insert(pcxt->toc, kKeyShared, shared);
	shm_toc_insert(pcxt->toc, kKeySort, sharedsort);
	shm_toc_insert(pcxt->toc, kKeyRuns, runs);

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
	geoidx::BuildRunHead leader_run = {NULL, NULL};
	participate(heap, index, indexInfo, shared, sharedsort, runs, 0, &leader_run, true);
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

	GeoidxParallelBuild *pb = (GeoidxParallelBuild *) palloc0(sizeof(GeoidxParallelBuild));
	pb->pcxt = pcxt;
	pb->snapshot = snapshot;
	if (shared->flat)
	{
		/* the leader merges the participants' runs as the write phase reads them */
		pb->merge = open_runs(shared, runs, joined, leader_run);
		state->merge = pb->merge;
	}
	else
	{
		/* the leader's sort merges the participants' sorted tapes */
		SortCoordinate coordinate = (SortCoordinate) palloc0(sizeof(SortCoordinateData));
		coordinate->isWorker = false;
		coordinate->nParticipants = joined;
		coordinate->sharedsort = sharedsort;
		geoidx_build_begin_sort(state, coordinate, maintenance_work_mem);
	}
	state->indtuples = shared->indtuples;
	*reltuples = shared->reltuples;
	return pb;
}

void
geoidx_parallel_build_end(GeoidxParallelBuild *pb)
{
	if (pb->merge != NULL)
	{
		for (int i = 0; i < pb->merge->nruns - 1; i++)
			BufFileClose(pb->merge->files[i]);
		if (pb->merge->leader_points != NULL)
			pfree(pb->merge->leader_points);
	}
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
	int *runs = (int *) shm_toc_lookup(toc, kKeyRuns, false);
	/* the leader's locks, which group locking lets its workers share */
	LOCKMODE heap_lock = shared->isconcurrent ? ShareUpdateExclusiveLock : ShareLock;
	LOCKMODE index_lock = shared->isconcurrent ? RowExclusiveLock : AccessExclusiveLock;
	Relation heap = table_open(shared->heaprelid, heap_lock);
	Relation index = index_open(shared->indexrelid, index_lock);
	IndexInfo *indexInfo = BuildIndexInfo(index);
	indexInfo->ii_Concurrent = shared->isconcurrent;
	if (shared->flat)
		SharedFileSetAttach(&shared->fileset, seg);
	else
		tuplesort_attach_shared(sharedsort, seg);
	participate(heap, index, indexInfo, shared, sharedsort, runs, 1 + ParallelWorkerNumber, NULL,
				false);
	index_close(index, index_lock);
	table_close(heap, heap_lock);
}

void
geoidx_build_parallel_init(void)
{
	DefineCustomIntVariable(
		"geoidx.build_run_records",
		"For tests only: the most records a participant of a parallel build of points sorts into "
		"one run.",
		"0 sorts a participant's share of maintenance_work_mem into each run; a small number "
		"makes many runs for the leader to merge.",
		&run_records, 0, 0, INT_MAX, PGC_SUSET, GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL, NULL, NULL,
		NULL);
}
