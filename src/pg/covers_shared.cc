/*
 * The prepared polygons in shared memory, for a server that preloads geoidx
 * (shared_preload_libraries = 'geoidx'): one zone prepared by any backend
 * serves every backend, and a new connection starts warm.
 *
 * Why: the per-backend cache (covers_cache.cc) makes each connection prepare
 * every zone it meets again (at ~50 µs and 43 bytes a vertex), so a pool of
 * fresh connections spends its first seconds preparing (G1 ran at 4,450 tps in
 * its first second and 39,000 after five), and n backends keep n copies.
 *
 * The memory is a region of the main shared segment, which every backend maps
 * at the same address (they are forked from the postmaster), so a prepared
 * polygon's pointers are valid in all of them. It is a bump allocator with an
 * index (a shared dynahash keyed as the per-backend cache is), emptied as a
 * whole when a new polygon does not fit, as the per-backend one is.
 *
 * One LWLock guards it:
 *   - a reader holds it shared from the lookup until it has used the polygon
 *     (geoidx_cover_shape_done), so the region is never emptied under it; the
 *     tests it runs meanwhile are the core's, which raise no error;
 *   - a miss reserves its bytes and an entry marked "building" under the lock
 *     held exclusively, builds without the lock (no other backend reads a
 *     building entry, and the region is not emptied while one is in flight),
 *     then publishes the entry. A backend that finds an entry building, or a
 *     region it may not empty, uses its own per-backend cache instead.
 */
#include <cmath>

#include "covers_shape.h"
#include "serialized_shape.h"

#include "geoidx.h"

extern "C"
{
#include "access/detoast.h"
#include "funcapi.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
}

namespace
{

/* geoidx.shared_prepared_memory, in kB; 0 turns the shared cache off */
int shared_kb = 256 * 1024;

/*
 * The share of the region an entry of its index stands for: a polygon of ~95
 * vertices. An entry takes ~170 bytes of shared memory whether used or not,
 * so the index costs ~4 % of the region; a region of smaller polygons fills
 * its index first and is emptied then.
 */
constexpr Size kBytesPerEntry = 4096;

enum EntryState : uint8
{
	kBuilding = 0,
	kReady = 1,     /* shape holds the prepared polygon */
	kNoPrepared = 2 /* not polygonal, or refused: PostGIS's path answers */
};

struct SharedEntry
{
	GeoidxShapeKey key; /* first: dynahash's key */
	uint8 state;
	geoidx::CoverShape shape;
	const char *bytes; /* a value in line: its copy in the region, for collisions */
};

struct SharedCache
{
	LWLock *lock;
	Size capacity; /* bytes of the region */
	Size used;
	int inflight;          /* entries being built: the region may not be emptied */
	pg_atomic_uint64 hits; /* counted under the shared lock */
	uint64 prepared, resets, fallbacks;
	char *region;
};

SharedCache *shared = NULL;
HTAB *index_htab = NULL;
shmem_request_hook_type prev_request = NULL;
shmem_startup_hook_type prev_startup = NULL;

Size
region_bytes()
{
	return (Size) shared_kb * 1024;
}

long
max_entries()
{
	return (long) Max(region_bytes() / kBytesPerEntry, 1024);
}

void
request_shmem()
{
	if (prev_request)
		prev_request();
	if (shared_kb == 0)
		return;
	RequestAddinShmemSpace(add_size(MAXALIGN(sizeof(SharedCache)), region_bytes()));
	RequestAddinShmemSpace(hash_estimate_size(max_entries(), sizeof(SharedEntry)));
	RequestNamedLWLockTranche("geoidx prepared polygons", 1);
}

void
startup_shmem()
{
	if (prev_startup)
		prev_startup();
	if (shared_kb == 0)
		return;
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	bool found;
	shared = (SharedCache *) ShmemInitStruct(
		"geoidx prepared polygons", add_size(MAXALIGN(sizeof(SharedCache)), region_bytes()),
		&found);
	if (!found)
	{
		memset(shared, 0, sizeof(SharedCache));
		shared->lock = &(GetNamedLWLockTranche("geoidx prepared polygons"))->lock;
		shared->capacity = region_bytes();
		shared->region = (char *) shared + MAXALIGN(sizeof(SharedCache));
		pg_atomic_init_u64(&shared->hits, 0);
	}
	HASHCTL info;
	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(GeoidxShapeKey);
	info.entrysize = sizeof(SharedEntry);
	index_htab = ShmemInitHash("geoidx prepared polygon index", max_entries(), max_entries(), &info,
							   HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
	LWLockRelease(AddinShmemInitLock);
}

/* Empty the region (the lock held exclusively, nothing in flight). */
void
empty_region()
{
	HASH_SEQ_STATUS seq;
	hash_seq_init(&seq, index_htab);
	SharedEntry *e;
	while ((e = (SharedEntry *) hash_seq_search(&seq)) != NULL)
		hash_search(index_htab, &e->key, HASH_REMOVE, NULL);
	shared->used = 0;
	shared->resets++;
}

/* What a lookup found: the polygon (the lock held shared), none, or ask the backend's cache. */
enum class Found
{
	ready,
	no_prepared,
	miss,
	elsewhere
};

/* Look key up, the lock held shared; on ready the lock stays held. */
Found
lookup(const GeoidxShapeKey &key, const char *bytes, Size len, const geoidx::CoverShape **out)
{
	LWLockAcquire(shared->lock, LW_SHARED);
	SharedEntry *e = (SharedEntry *) hash_search(index_htab, &key, HASH_FIND, NULL);
	Found f = Found::miss;
	if (e != NULL)
	{
		if (e->state == kBuilding || (bytes != NULL && memcmp(e->bytes, bytes, len) != 0))
			f = Found::elsewhere;
		else if (e->state == kNoPrepared)
			f = Found::no_prepared;
		else
		{
			*out = &e->shape;
			pg_atomic_fetch_add_u64(&shared->hits, 1);
			return Found::ready;
		}
	}
	LWLockRelease(shared->lock);
	return f;
}

/*
 * Reserve room for a polygon of need bytes (and a copy of an in-line value)
 * and its entry, marked building; NULL (lock released) if another backend
 * entered it first or the region cannot take it now.
 */
SharedEntry *
reserve(const GeoidxShapeKey &key, Size need, const char *bytes, Size len, char **mem)
{
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	bool found;
	SharedEntry *e = (SharedEntry *) hash_search(index_htab, &key, HASH_FIND, &found);
	if (e != NULL)
	{
		/* another backend entered it since our lookup: the caller looks again */
		LWLockRelease(shared->lock);
		return NULL;
	}
	Size total = MAXALIGN(need) + MAXALIGN(len);
	if (total <= shared->capacity)
	{
		if (shared->used + total > shared->capacity && shared->inflight == 0)
			empty_region();
		if (shared->used + total <= shared->capacity)
		{
			e = (SharedEntry *) hash_search(index_htab, &key, HASH_ENTER_NULL, &found);
			if (e == NULL && shared->inflight == 0)
			{
				/* the index is full before the region: many small polygons */
				empty_region();
				e = (SharedEntry *) hash_search(index_htab, &key, HASH_ENTER_NULL, &found);
			}
			if (e != NULL)
			{
				e->state = kBuilding;
				e->bytes = NULL;
				*mem = shared->region + shared->used;
				if (bytes != NULL)
				{
					char *copy = *mem + MAXALIGN(need);
					memcpy(copy, bytes, len);
					e->bytes = copy;
				}
				shared->used += total;
				shared->inflight++;
				LWLockRelease(shared->lock);
				return e;
			}
		}
	}
	shared->fallbacks++;
	LWLockRelease(shared->lock);
	return NULL;
}

/* Publish a built entry. */
void
publish(SharedEntry *e, bool ok, const geoidx::CoverShape &shape)
{
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	if (ok)
		e->shape = shape;
	e->state = ok ? kReady : kNoPrepared;
	shared->inflight--;
	shared->prepared++;
	LWLockRelease(shared->lock);
}

} // namespace

/* Define geoidx.shared_prepared_memory, and when preloaded ask for the shared memory. */
void
geoidx_cover_shared_init(void)
{
	/* a PGC_POSTMASTER setting can only be defined while preloading, as pg_stat_statements's */
	if (!process_shared_preload_libraries_in_progress)
	{
		shared_kb = 0;
		return;
	}
	DefineCustomIntVariable(
		"geoidx.shared_prepared_memory",
		"How much shared memory keeps prepared polygons for every backend.",
		"Only with geoidx in shared_preload_libraries; 0 turns it off, and then each backend "
		"keeps its own (geoidx.prepared_shapes_memory). A polygon of n vertices takes about 43 n "
		"bytes; when a new one does not fit, the shared memory starts again with none.",
		&shared_kb, 256 * 1024, 0, MAX_KILOBYTES, PGC_POSTMASTER, GUC_UNIT_KB, NULL, NULL, NULL);
	prev_request = shmem_request_hook;
	shmem_request_hook = request_shmem;
	prev_startup = shmem_startup_hook;
	shmem_startup_hook = startup_shmem;
}

/*
 * The prepared polygon of a value from the shared memory, prepared now if it
 * is not there; *state says which: 1 a polygon (the lock held until
 * geoidx_cover_shape_done), 0 no prepared form, -1 the shared cache cannot
 * serve it (off, or busy with it): the caller asks the backend's own cache.
 */
const geoidx::CoverShape *
geoidx_cover_shared(struct varlena *v, int *state)
{
	*state = -1;
	/* a pointer into this backend's memory (indirect, expanded) names nothing shared */
	if (shared == NULL || index_htab == NULL ||
		(VARATT_IS_EXTERNAL(v) && !VARATT_IS_EXTERNAL_ONDISK(v)))
		return NULL;
	Assert(!LWLockHeldByMe(shared->lock));
	const char *bytes;
	Size len;
	GeoidxShapeKey key = geoidx_shape_key(v, &bytes, &len);
	const geoidx::CoverShape *shape = NULL;
	switch (lookup(key, bytes, len, &shape))
	{
		case Found::ready:
			*state = 1;
			return shape;
		case Found::no_prepared:
			*state = 0;
			return NULL;
		case Found::elsewhere:
			return NULL;
		case Found::miss:
			break;
	}

	struct varlena *d = pg_detoast_datum(v);
	const uint8 *data = (const uint8 *) VARDATA_ANY(d);
	geoidx::SerializedHeader h;
	geoidx::WalkError err;
	geoidx::CoverCounts counts;
	counts.polygonal = false;
	bool countable = geoidx::read_serialized_header(data, VARSIZE_ANY_EXHDR(d), &h, &err) &&
					 (h.srid == 4326 || h.srid == 0) &&
					 geoidx::count_cover_shape(data, h, &counts, &err);
	Size need = countable && counts.polygonal ? geoidx::cover_shape_bytes(counts) : 0;
	char *mem;
	SharedEntry *e = reserve(key, need, bytes, len, &mem);
	if (e != NULL)
	{
		geoidx::CoverShape built;
		bool ok = need > 0 && geoidx::build_cover_shape(data, h, counts, mem, &built, &err) &&
				  geoidx_cover_shape_finite(built, counts);
		publish(e, ok, built);
	}
	if ((Pointer) d != (Pointer) v)
		pfree(d);
	/*
	 * Ours, or another backend's that entered it first; the entry stays until
	 * the region is emptied, which may have happened since.
	 */
	switch (lookup(key, bytes, len, &shape))
	{
		case Found::ready:
			*state = 1;
			return shape;
		case Found::no_prepared:
			*state = 0;
			return NULL;
		default:
			return NULL;
	}
}

/* Let go of the shared polygon geoidx_cover_shared returned, if it returned one. */
void
geoidx_cover_shape_done(void)
{
	if (shared != NULL && LWLockHeldByMe(shared->lock))
		LWLockRelease(shared->lock);
}

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_prepared_shapes);
}

/*
 * geoidx_prepared_shapes(): the shared memory of prepared polygons: whether
 * there is one, its polygons, bytes used of its capacity, and since the
 * server started how many lookups found a polygon, how many it prepared, how
 * often it started again, and how many times a backend used its own cache.
 */
extern "C" Datum
geoidx_prepared_shapes(PG_FUNCTION_ARGS)
{
	TupleDesc desc;
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "geoidx_prepared_shapes: a composite result type is needed");
	Datum values[8];
	bool nulls[8] = {false, false, false, false, false, false, false, false};
	values[0] = BoolGetDatum(shared != NULL);
	int64 n = 0, used = 0, cap = 0, hits = 0, prepared = 0, resets = 0, fallbacks = 0;
	if (shared != NULL)
	{
		LWLockAcquire(shared->lock, LW_SHARED);
		n = hash_get_num_entries(index_htab);
		used = (int64) shared->used;
		cap = (int64) shared->capacity;
		hits = (int64) pg_atomic_read_u64(&shared->hits);
		prepared = (int64) shared->prepared;
		resets = (int64) shared->resets;
		fallbacks = (int64) shared->fallbacks;
		LWLockRelease(shared->lock);
	}
	values[1] = Int64GetDatum(n);
	values[2] = Int64GetDatum(used);
	values[3] = Int64GetDatum(cap);
	values[4] = Int64GetDatum(hits);
	values[5] = Int64GetDatum(prepared);
	values[6] = Int64GetDatum(resets);
	values[7] = Int64GetDatum(fallbacks);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
