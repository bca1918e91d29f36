/*
 * The per-backend cache of prepared polygons (src/core/covers_shape.h) behind
 * geoidx_covers and geoidx_coveredby of a polygon and a point.
 *
 * PostGIS keeps its prepared form of an argument in fn_extra, for as long as
 * the same argument comes back call after call: "which zone holds this point"
 * changes the zone on every row, so PostGIS re-reads and re-prepares every
 * candidate zone on every query. Here a zone is prepared once per backend and
 * found again by its identity, without reading it:
 *
 *   - a value stored out of line (TOAST, where a zone of a few hundred
 *     vertices lives) by its TOAST pointer: the TOAST table, the value's OID in
 *     it and its sizes. An UPDATE writes a new value with a new OID; an OID is
 *     reused only after its value was deleted and vacuumed and the OID counter
 *     went round (2^32 OIDs later).
 *   - any other value by its bytes: a hash, then a comparison with a copy.
 *
 * The cache is bounded (geoidx.prepared_shapes_memory); when a new shape does not fit it is
 * emptied and starts again, which keeps it simple and its size certain. A
 * value that has no prepared form (not a Polygon or MultiPolygon) is cached
 * as such, so that it is not walked again either.
 */
#include <cmath>

#include "covers_shape.h"

#include "geoidx.h"

extern "C"
{
#include "access/detoast.h"
#include "common/hashfn.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
}

namespace
{

/* geoidx.prepared_shapes_memory, in kB */
int budget_kb = 256 * 1024;

struct CacheEntry
{
	GeoidxShapeKey key; /* first: dynahash's key */
	bool polygonal;
	geoidx::CoverShape shape;
	const char *bytes; /* kind 2: a copy of the value, to tell hash collisions apart */
};

static_assert(std::is_trivially_destructible_v<CacheEntry>, "dynahash frees, never destroys");

MemoryContext cache_cxt = NULL;
HTAB *cache = NULL;
Size cache_bytes = 0;

void
reset_cache()
{
	if (cache_cxt == NULL)
		cache_cxt = AllocSetContextCreate(TopMemoryContext, "geoidx prepared polygons",
										  ALLOCSET_DEFAULT_SIZES);
	else
		MemoryContextReset(cache_cxt);
	HASHCTL ctl;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(GeoidxShapeKey);
	ctl.entrysize = sizeof(CacheEntry);
	ctl.hcxt = cache_cxt;
	cache =
		hash_create("geoidx prepared polygons", 1024, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	cache_bytes = 0;
}

/* Prepare detoasted bytes in cxt; false if they have no prepared form (see
 * geoidx_prepare_serialized). */
bool
prepare_bytes(const uint8 *data, const geoidx::SerializedHeader &h, MemoryContext cxt,
			  geoidx::CoverShape *out, Size *bytes)
{
	geoidx::WalkError err;
	geoidx::CoverCounts counts;
	*bytes = 0;
	if ((h.srid != 4326 && h.srid != 0) || !geoidx::count_cover_shape(data, h, &counts, &err) ||
		!counts.polygonal)
		return false;
	Size need = geoidx::cover_shape_bytes(counts);
	void *mem = MemoryContextAllocHuge(cxt, need);
	*bytes = need;
	if (!geoidx::build_cover_shape(data, h, counts, mem, out, &err))
		return false;
	return geoidx_cover_shape_finite(*out, counts);
}

/* Prepare a value in cxt (the caller has checked it); false if it has no prepared form. */
bool
prepare_into(struct varlena *stored, MemoryContext cxt, geoidx::CoverShape *out, Size *bytes)
{
	struct varlena *v = pg_detoast_datum(stored);
	const uint8 *data = (const uint8 *) VARDATA_ANY(v);
	Size len = VARSIZE_ANY_EXHDR(v);
	geoidx::SerializedHeader h;
	geoidx::WalkError err;
	*bytes = 0;
	if (!geoidx::read_serialized_header(data, len, &h, &err))
		return false;
	bool ok = prepare_bytes(data, h, cxt, out, bytes);
	if (ok && (Pointer) v != (Pointer) stored)
		pfree(v);
	return ok;
}

/* Prepare a value into entry e, in the cache's memory. */
void
prepare(CacheEntry *e, struct varlena *stored)
{
	Size bytes;
	e->polygonal = prepare_into(stored, cache_cxt, &e->shape, &bytes);
	cache_bytes += bytes;
}

} // namespace

/* The cache key of a value, and for a value in line its bytes (*bytes, *len). */
GeoidxShapeKey
geoidx_shape_key(struct varlena *v, const char **bytes, Size *len)
{
	GeoidxShapeKey k;
	memset(&k, 0, sizeof(k));
	*bytes = NULL;
	*len = 0;
	if (VARATT_IS_EXTERNAL_ONDISK(v))
	{
		varatt_external ext;
		VARATT_EXTERNAL_GET_POINTER(ext, v);
		k.kind = 1;
		k.db = MyDatabaseId;
		k.rel = ext.va_toastrelid;
		k.value = ext.va_valueid;
		k.size = (uint32) ext.va_rawsize;
		k.extra = ext.va_extinfo;
		return k;
	}
	*bytes = (const char *) v;
	*len = VARATT_IS_EXTERNAL(v) ? VARSIZE_EXTERNAL(v) : VARSIZE_ANY(v);
	k.kind = 2;
	k.size = (uint32) *len;
	k.extra = hash_bytes((const unsigned char *) *bytes, (int) *len);
	return k;
}

/* NaN or infinite coordinates: no prepared form, and PostGIS's path raises the error. */
bool
geoidx_cover_shape_finite(const geoidx::CoverShape &s, const geoidx::CoverCounts &counts)
{
	for (uint64 i = 0; i < counts.points; i++)
		if (!std::isfinite(s.points[i].x) || !std::isfinite(s.points[i].y) ||
			!std::isfinite(s.points[i].z))
			return false;
	return true;
}

/* Define geoidx.prepared_shapes_memory (at load). */
void
geoidx_cover_cache_init(void)
{
	DefineCustomIntVariable(
		"geoidx.prepared_shapes_memory",
		"How much memory each backend may keep of prepared polygons.",
		"geoidx_covers, geoidx_coveredby, geoidx_intersects and <~> prepare a polygon once and "
		"keep it for the next rows and queries; past this the backend starts again with none. A "
		"polygon of n vertices takes about 43 n bytes.",
		&budget_kb, 256 * 1024, 1024, MAX_KILOBYTES, PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	geoidx_cover_shared_init();
}

/*
 * The prepared form of a polygonal geometry or geography, from the cache or
 * made now; NULL for any other kind, and for a value geoidx refuses (another
 * SRID, a coordinate that is not finite, a malformed value), which the caller
 * then hands to the path that raises the error (postgis_calls.cc).
 */
const geoidx::CoverShape *
geoidx_cover_shape(Datum value, const char *what)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(value);
	int shared_state;
	const geoidx::CoverShape *shared = geoidx_cover_shared(v, &shared_state);
	if (shared_state >= 0)
		return shared;
	if (cache == NULL)
		reset_cache();
	const char *bytes;
	Size len;
	GeoidxShapeKey key = geoidx_shape_key(v, &bytes, &len);
	bool found;
	CacheEntry *e = (CacheEntry *) hash_search(cache, &key, HASH_FIND, &found);
	if (found && (key.kind == 1 || memcmp(e->bytes, bytes, len) == 0))
		return e->polygonal ? &e->shape : NULL;
	if (found)
		return NULL; /* a hash collision with another value: no cache, PostGIS answers */

	if (cache_bytes > (Size) budget_kb * 1024)
		reset_cache();
	e = (CacheEntry *) hash_search(cache, &key, HASH_ENTER, &found);
	e->polygonal = false;
	e->bytes = NULL;
	if (key.kind == 2)
	{
		char *copy = (char *) MemoryContextAlloc(cache_cxt, len);
		memcpy(copy, bytes, len);
		e->bytes = copy;
		cache_bytes += len;
	}
	cache_bytes += sizeof(CacheEntry);
	prepare(e, v);
	return e->polygonal ? &e->shape : NULL;
}

/*
 * The prepared form of a polygonal value made in cxt, outside the cache, for
 * what must outlive the next cache reset or would only crowd it out: an index
 * entry's grid, a scan's polygon. NULL as geoidx_cover_shape returns it.
 */
const geoidx::CoverShape *
geoidx_prepare_cover_shape(Datum value, MemoryContext cxt)
{
	geoidx::CoverShape *s = (geoidx::CoverShape *) MemoryContextAlloc(cxt, sizeof(*s));
	Size bytes;
	if (prepare_into((struct varlena *) DatumGetPointer(value), cxt, s, &bytes))
		return s;
	return NULL;
}

/*
 * The prepared form of a value's detoasted bytes (h: their header, read),
 * made in cxt: for the decode of an index entry, which has the bytes at hand
 * and takes its box from the same walk (CoverShape::bounds). NULL as
 * geoidx_cover_shape returns it.
 */
const geoidx::CoverShape *
geoidx_prepare_serialized(const uint8 *data, const geoidx::SerializedHeader &h, MemoryContext cxt)
{
	geoidx::CoverShape *s = (geoidx::CoverShape *) MemoryContextAlloc(cxt, sizeof(*s));
	Size bytes;
	if (prepare_bytes(data, h, cxt, s, &bytes))
		return s;
	return NULL;
}
