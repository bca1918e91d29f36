/*
 * scan_memory.cc: the memory a backend keeps from one scan to the next.
 *
 * A k-NN scan of page 100 allocates ~250 kB (its frontier array and a few
 * hundred chunk copies) and frees it when the statement ends; glibc hands
 * that back to the kernel at once (it trims the heap's top beyond 128 kB), so
 * the next statement page-faults the same memory in again. Measured on the
 * benchmark machine with 2 clients, that was two thirds of a page-100 query's
 * time (bench/PROFILES.md). So a backend keeps, for its next scan, the
 * memory context of the last scan that ended (reset, with a keeper block the
 * size of a typical scan) and the large arrays it grew, up to a bound; AllocSet
 * alone would not do: it gives every chunk over 8 kB a malloc of its own.
 *
 * Scans that run at once (a nested loop, two indexes) share nothing: the
 * first takes what is kept, the others allocate, and the first to end keeps
 * its memory. What a scan holds returns when its context is reset or deleted,
 * through a reset callback, so a statement that fails gives it back as well.
 */
#include "geoidx.h"

namespace
{

/* The keeper block of a scan's context: what a k-NN page 100 needs besides its frontier. */
constexpr Size kKeeperBytes = 256 * 1024;
/* A larger array is freed at the scan's end: one big query does not pin memory for good. */
constexpr Size kKeepArrayBytes = 1024 * 1024;

struct KeptMemory
{
	MemoryContext cxt; /* a reset scan context under TopMemoryContext, or NULL */
	void *array[GEOIDX_SCAN_NARRAYS];
	Size bytes[GEOIDX_SCAN_NARRAYS];
};
static_assert(std::is_trivially_destructible_v<KeptMemory>, "a static of the backend");

KeptMemory kept;
MemoryContext arrays_cxt; /* where the arrays live, under TopMemoryContext */

/* Give the scan's arrays back to what the backend keeps, or free them. */
void
return_arrays(void *arg)
{
	GeoidxScanOpaque so = (GeoidxScanOpaque) arg;
	for (int i = 0; i < GEOIDX_SCAN_NARRAYS; i++)
	{
		if (so->array[i] == NULL)
			continue;
		if (kept.array[i] == NULL && so->array_bytes[i] <= kKeepArrayBytes)
		{
			kept.array[i] = so->array[i];
			kept.bytes[i] = so->array_bytes[i];
		}
		else
			pfree(so->array[i]);
		so->array[i] = NULL;
		so->array_bytes[i] = 0;
	}
}

} // namespace

/* Give a new scan its memory context: the one kept from the last scan, or a new one. */
MemoryContext
geoidx_scan_memory_take(void)
{
	MemoryContext cxt = kept.cxt;
	if (cxt != NULL)
	{
		kept.cxt = NULL;
		MemoryContextSetParent(cxt, CurrentMemoryContext);
		return cxt;
	}
	return AllocSetContextCreate(CurrentMemoryContext, "geoidx scan", 0, kKeeperBytes,
								 ALLOCSET_DEFAULT_MAXSIZE);
}

/*
 * Reset the scan's context for a new run of it: its arrays go back first
 * (through the callback), and the callback is armed again for this run.
 */
void
geoidx_scan_memory_reset(GeoidxScanOpaque so)
{
	MemoryContextReset(so->cxt);
	MemoryContextCallback *cb =
		(MemoryContextCallback *) MemoryContextAlloc(so->cxt, sizeof(MemoryContextCallback));
	cb->func = return_arrays;
	cb->arg = so;
	MemoryContextRegisterResetCallback(so->cxt, cb);
}

/* End a scan's use of its context: keep it, reset, for the next scan, or delete it. */
void
geoidx_scan_memory_end(GeoidxScanOpaque so)
{
	MemoryContextReset(so->cxt);
	if (kept.cxt == NULL)
	{
		MemoryContextSetParent(so->cxt, TopMemoryContext);
		kept.cxt = so->cxt;
	}
	else
		MemoryContextDelete(so->cxt);
	so->cxt = NULL;
}

/*
 * Make the scan's array `which` at least `bytes` long, keeping its contents:
 * from what the backend kept when the scan has none yet, else grown in place
 * or moved by repalloc.
 */
void *
geoidx_scan_array(GeoidxScanOpaque so, GeoidxScanArray which, Size bytes)
{
	if (so->array_bytes[which] >= bytes)
		return so->array[which];
	if (so->array[which] == NULL && kept.array[which] != NULL)
	{
		so->array[which] = kept.array[which];
		so->array_bytes[which] = kept.bytes[which];
		kept.array[which] = NULL;
		kept.bytes[which] = 0;
		if (so->array_bytes[which] >= bytes)
			return so->array[which];
	}
	if (so->array[which] == NULL)
	{
		if (arrays_cxt == NULL)
			arrays_cxt =
				AllocSetContextCreate(TopMemoryContext, "geoidx scan arrays", ALLOCSET_SMALL_SIZES);
		so->array[which] = MemoryContextAllocHuge(arrays_cxt, bytes);
	}
	else
		so->array[which] = repalloc_huge(so->array[which], bytes);
	so->array_bytes[which] = bytes;
	return so->array[which];
}
