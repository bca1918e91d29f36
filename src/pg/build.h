/*
 * The bulk build's state and the steps that build.cc and build_parallel.cc
 * share: one participant's load of heap rows into its sort.
 */
#pragma once

#include "build_sort.h"

#include <type_traits>

#include "geoidx.h"

extern "C"
{
#include "utils/tuplesort.h"
}

struct GeoidxBuildState
{
	Relation index;
	const char *what;
	/* the flat path: NULL once the rows went to the tuplesort */
	geoidx::BuildPoint *points;
	int64 npoints;
	int64 cappoints;
	int64 maxpoints; /* what maintenance_work_mem holds */
	int64 next;      /* write phase: the next sorted record */
	/* the tuplesort path (payloads, or more rows than the flat path holds) */
	Tuplesortstate *sort;
	TupleDesc desc;
	TupleTableSlot *slot;
	double indtuples;
	MemoryContext buildcxt; /* the build's: the array and the tuplesort live as long as it */
	MemoryContext tmpcxt;
	/* a participant of a parallel build of points: a full array becomes a sorted run */
	struct GeoidxRunSink *runs;
	/* the leader of a parallel build of points: the write phase reads the merged runs */
	struct GeoidxRunMerge *merge;
};
static_assert(std::is_trivially_destructible_v<GeoidxBuildState>,
			  "lives in palloc'd memory or on the stack across ereport: no destructor");

/* A participant's state for index (its own contexts under CurrentMemoryContext). */
extern void geoidx_build_state_init(GeoidxBuildState *state, Relation index);
/* Begin the tuplesort path: alone (coordinate NULL) or as a participant of a parallel build. */
extern void geoidx_build_begin_sort(GeoidxBuildState *state, SortCoordinate coordinate,
									int work_mem);
/* table_index_build_scan's callback: one heap row into the flat array or the sort. */
extern void geoidx_build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
								  bool tupleIsAlive, void *state);

/* A parallel build of points: sort the participant's array and write it out as one run. */
extern void geoidx_build_write_run(GeoidxBuildState *state);
/* The leader's next record of the merged runs, in the build order; false at the end. */
extern bool geoidx_build_merge_next(struct GeoidxRunMerge *merge, geoidx::BuildPoint *r);

/*
 * The parallel load (build_parallel.cc): when the planner's rule (or, for a
 * TOASTed column, the same rule over the TOAST table's size) grants workers,
 * the workers and the leader scan the heap into one shared sort, and the
 * leader's state then reads the merged rows as the serial tuplesort path
 * does; *reltuples the heap tuples seen. NULL, and nothing done, when the
 * build is serial. geoidx_parallel_build_end after the rows are read.
 */
struct GeoidxParallelBuild;
extern GeoidxParallelBuild *geoidx_parallel_build_load(Relation heap, Relation index,
													   IndexInfo *indexInfo,
													   GeoidxBuildState *state, double *reltuples);
extern void geoidx_parallel_build_end(GeoidxParallelBuild *pb);
