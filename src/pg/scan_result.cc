/*
 * What a returned row hands the executor: its heap TID, for an index-only
 * scan the index tuple rebuilt from the entry (the point as PostGIS would
 * serialise it, and the payload's columns), and the ORDER BY distances.
 */
#include <cmath>
#include <limits>

#include "geoidx.h"

namespace
{

/*
 * Build the point as a PostGIS geometry (GSERIALIZED v2: header, SRID,
 * flags, type POINT, one point, x, y), for index-only scans of
 * geometry(Point, 4326); as a geography (the same with the geodetic flag,
 * 0x08) for geography(Point, 4326). POINT EMPTY is the same with no point and
 * no coordinates.
 */
Datum
point_datum(double x, double y, bool empty, bool geography)
{
	return geoidx_point_datum(x, y, empty, geography);
}

} // namespace

/* A point as PostGIS serializes it (SRID 4326, 2-D, no box). */
Datum
geoidx_point_datum(double x, double y, bool empty, bool geography)
{
	const Size size = VARHDRSZ + 4 + 8 + (empty ? 0 : 16);
	char *p = (char *) palloc0(size);
	SET_VARSIZE(p, size);
	uint8 *d = (uint8 *) VARDATA(p);
	d[0] = (4326 >> 16) & 0xFF;
	d[1] = (4326 >> 8) & 0xFF;
	d[2] = 4326 & 0xFF;
	d[3] = 0x40; /* version 2, no Z, M, box */
	if (geography)
		d[3] |= 0x08;
	uint32 type = 1, npoints = empty ? 0 : 1;
	memcpy(d + 4, &type, 4);
	memcpy(d + 8, &npoints, 4);
	if (!empty)
	{
		memcpy(d + 12, &x, 8);
		memcpy(d + 20, &y, 8);
	}
	return PointerGetDatum(p);
}

namespace
{

/* Rebuild the index tuple of an index-only scan from the entry and its payload. */
void
form_index_tuple(IndexScanDesc scan, GeoidxScanOpaque so, int kind, double x, double y,
				 IndexTuple payload)
{
	/*
	 * The planner also asks for index-only scans that need no column at all
	 * (count(*)); then the value is NULL, as nothing reads it.
	 */
	MemoryContextReset(so->tuple_cxt);
	MemoryContext old = MemoryContextSwitchTo(so->tuple_cxt);
	TupleDesc desc = RelationGetDescr(scan->indexRelation);
	Datum values[INDEX_MAX_KEYS];
	bool isnull[INDEX_MAX_KEYS];
	/* a shape is never returned: only columns typed Point can be (geoidx_canreturn) */
	isnull[0] = !so->can_return || kind == GEOIDX_KIND_NULL || kind == GEOIDX_KIND_SHAPE;
	values[0] =
		isnull[0] ? (Datum) 0 : point_datum(x, y, kind == GEOIDX_KIND_EMPTY, so->return_geography);
	if (so->payload_desc != NULL)
	{
		if (payload == NULL)
			elog(ERROR, "geoidx: index-only scan of \"%s\" lost a payload",
				 RelationGetRelationName(scan->indexRelation));
		index_deform_tuple(payload, so->payload_desc, values + 1, isnull + 1);
	}
	scan->xs_itup = index_form_tuple(desc, values, isnull);
	MemoryContextSwitchTo(old);
}

} // namespace

/* Compute the ST_Distance of a stored point to center, as col <~> center computes it. */
double
geoidx_entry_distance(const geoidx::GeoPoint &center, double x, double y)
{
	geoidx::LonLat ll = geoidx::stored_lonlat(x, y);
	return geoidx::st_distance(geoidx::geographic_point(ll), center, true);
}

double
geoidx_key_distance(GeoidxScanOpaque so, int k, double x, double y)
{
	if (so->key_planar[k])
		return geoidx::planar_point_distance(so->key_target[k], x, y);
	if (so->key_sphere[k])
		return geoidx::sphere_knn_distance(geoidx::geographic_point(geoidx::stored_lonlat(x, y)),
										   so->key_center[k]);
	return geoidx_entry_distance(so->key_center[k], x, y);
}

/*
 * Set the scan's current row: tid, its entry's kind (a NULL or EMPTY row has
 * NULL distances), its coordinates, the primary ORDER BY distance, and its
 * payload (kept for index-only scans only).
 */
void
geoidx_scan_set_result(IndexScanDesc scan, const ItemPointerData *tid, int kind, double x, double y,
					   double dist, IndexTuple payload, bool recheck, bool dist_exact)
{
	GeoidxScanOpaque so = (GeoidxScanOpaque) scan->opaque;
	scan->xs_heaptid = *tid;
	if (scan->xs_want_itup)
		form_index_tuple(scan, so, kind, x, y, payload);
	scan->xs_recheck = recheck;
	if (scan->numberOfOrderBys == 0)
		return;
	if (kind == GEOIDX_KIND_SHAPE || so->order_recheck)
	{
		/*
		 * Lower bounds, for the executor to replace by the distances it
		 * computes: dist for the primary key (less the slack of a shape to
		 * order by), -Infinity for the later ones (anything is at least that),
		 * NULL before the primary as for every row.
		 */
		scan->xs_recheckorderby = true;
		for (int k = 0; k < scan->numberOfOrderBys; k++)
		{
			bool null = so->primary < 0 || k < so->primary;
			scan->xs_orderbynulls[k] = null;
			/* an infinite slack leaves NaN: nothing is known, and 0 for every row is in order */
			double bound = so->order_recheck ? std::max(0.0, dist - so->order_slack) : dist;
			if (std::isnan(bound))
				bound = 0.0;
			scan->xs_orderbyvals[k] =
				Float8GetDatum(null               ? 0.0
							   : k == so->primary ? bound
												  : -std::numeric_limits<double>::infinity());
		}
		return;
	}
	/* exact: the keys before the primary are NULL, the primary is dist, the rest computed */
	scan->xs_recheckorderby = false;
	if (so->primary >= 0 && kind == GEOIDX_KIND_POINT && !so->key_planar[so->primary] &&
		!so->key_sphere[so->primary])
	{
		if (dist_exact)
			geoidx_distance_memo_note(x, y, so->order_raw, dist);
		else
			geoidx_distance_memo_note_unknown(x, y, so->order_raw);
	}
	for (int k = 0; k < scan->numberOfOrderBys; k++)
	{
		bool null =
			so->primary < 0 || k < so->primary || !so->key_ok[k] || kind != GEOIDX_KIND_POINT;
		scan->xs_orderbynulls[k] = null;
		scan->xs_orderbyvals[k] =
			null ? Float8GetDatum(0.0)
				 : Float8GetDatum(k == so->primary ? dist : geoidx_key_distance(so, k, x, y));
	}
}
