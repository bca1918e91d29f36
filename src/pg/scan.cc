/*
 * Starting, restarting and ending scans: what gistscan.c is to GiST. A rescan
 * turns the executor's scan keys into what scan_get.cc runs: the region keys
 * of the point (all must hold), the conditions on the columns after it, and
 * the ORDER BY centres; nothing is read from the index here but the metapage.
 */
#include "geoidx.h"

namespace
{

/* Turn the WHERE keys into region keys and payload filters; a key no row satisfies ends it. */
void
setup_keys(IndexScanDesc scan, GeoidxScanOpaque so)
{
	int nkeys = Max(1, scan->numberOfKeys);
	so->no_match = false;
	so->point_null_test = 0;
	so->nregions = 0;
	so->shapes_exact = true;
	so->regions = (geoidx::RegionTest *) palloc(sizeof(geoidx::RegionTest) * nkeys);
	so->nscalar = 0;
	so->scalar = (GeoidxScalarKey *) palloc(sizeof(GeoidxScalarKey) * nkeys);
	so->nprobes = 0;
	so->probes = (GeoidxProbe *) palloc(sizeof(GeoidxProbe) * nkeys);
	so->region_probe = (int *) palloc(sizeof(int) * nkeys);
	for (int i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey key = &scan->keyData[i];
		if (key->sk_flags & (SK_SEARCHNULL | SK_SEARCHNOTNULL))
		{
			if (key->sk_attno > 1)
			{
				geoidx_null_key_init(&so->scalar[so->nscalar++], key);
				continue;
			}
			int8 want = (key->sk_flags & SK_SEARCHNULL) ? GEOIDX_IS_NULL : GEOIDX_IS_NOT_NULL;
			/* pos IS NULL AND pos IS NOT NULL */
			if (so->point_null_test != 0 && so->point_null_test != want)
				so->no_match = true;
			so->point_null_test = want;
			continue;
		}
		if (key->sk_flags & SK_ISNULL)
		{
			so->no_match = true;
			continue;
		}
		if (key->sk_attno > 1)
		{
			GeoidxScalarKey *sk = &so->scalar[so->nscalar++];
			geoidx_scalar_key_init(sk, key, so->payload_desc, so->cxt);
			/* an empty list, or one of NULLs only, matches nothing: no need to look */
			if (sk->inlist != NULL && sk->inlist->nvalues == 0)
				so->no_match = true;
			continue;
		}
		if (key->sk_strategy >= GEOIDX_STRATEGY_COVERS &&
			key->sk_strategy <= GEOIDX_STRATEGY_PLANAR_INTERSECTS)
		{
			geoidx_probe_key(so, key);
			continue;
		}
		if (key->sk_strategy >= GEOIDX_STRATEGY_BOX_OVERLAPS &&
			key->sk_strategy <= GEOIDX_STRATEGY_BOX_CONTAINS)
		{
			geoidx_box_key(so, key);
			continue;
		}
		if (key->sk_strategy != GEOIDX_STRATEGY_WITHIN)
			elog(ERROR, "geoidx: unexpected strategy %d in a scan key", key->sk_strategy);
		const GeoidxCircle *c = (const GeoidxCircle *) DatumGetPointer(key->sk_argument);
		bool candidate = (c->flags & GEOIDX_CIRCLE_CANDIDATE) != 0;
		so->region_probe[so->nregions] = candidate ? GEOIDX_REGION_CANDIDATE : GEOIDX_REGION_PLAIN;
		so->regions[so->nregions++] = geoidx_circle_region(c);
		if (!candidate)
			so->shapes_exact = false;
	}
	so->keys = geoidx::spatial_keys(so->regions, so->nregions);
	so->chord_keys = geoidx::ChordKeys{};
	for (int i = 0; i < so->nregions; i++)
		if (so->regions[i].mode != geoidx::RegionMode::box_meets && so->regions[i].constant < 0)
		{
			so->chord_centre = so->regions[i].circle.q;
			so->chord_keys = geoidx::chord_keys(so->keys, so->chord_centre);
			break;
		}
	geoidx_fixed_filter_init(so);
	geoidx_tag_filter_init(so);
}

/*
 * An ORDER BY key of PostGIS's planar <-> (geometry, degrees): its target is
 * g's box as PostGIS has it; a point's distances are exact, anything else's
 * box gives lower bounds for the executor to recheck, as GiST's do. NULL and
 * EMPTY give every row a NULL distance (PostGIS's ST_Distance of EMPTY).
 */
void
setup_planar_order(GeoidxScanOpaque so, ScanKey key, int k)
{
	geoidx::PlanarTarget t;
	if ((key->sk_flags & SK_ISNULL) ||
		!geoidx_postgis_box(key->sk_argument, &t.xmin, &t.xmax, &t.ymin, &t.ymax))
		return;
	t.point = !geoidx_datum_is_shape(key->sk_argument);
	so->key_ok[k] = true;
	so->key_planar[k] = true;
	so->key_target[k] = t;
	if (!t.point)
		so->order_recheck = true;
	if (so->primary < 0)
	{
		so->primary = k;
		so->ordered = true;
	}
	else
		so->tie_keys = true;
}

/*
 * Read the ORDER BY keys: the first whose point is neither NULL nor EMPTY
 * orders the scan (the primary), the later ones break its ties.
 */
void
setup_order(IndexScanDesc scan, GeoidxScanOpaque so)
{
	int norder = Max(1, scan->numberOfOrderBys);
	so->ordered = false;
	so->primary = -1;
	so->tie_keys = false;
	so->order_recheck = false;
	so->order_slack = 0.0;
	so->key_ok = (bool *) palloc0(sizeof(bool) * norder);
	so->key_center = (geoidx::GeoPoint *) palloc0(sizeof(geoidx::GeoPoint) * norder);
	so->key_sphere = (bool *) palloc0(sizeof(bool) * norder);
	so->key_planar = (bool *) palloc0(sizeof(bool) * norder);
	so->key_target = (geoidx::PlanarTarget *) palloc0(sizeof(geoidx::PlanarTarget) * norder);
	for (int k = 0; k < scan->numberOfOrderBys; k++)
	{
		ScanKey key = &scan->orderByData[k];
		if (key->sk_strategy == GEOIDX_STRATEGY_PLANAR_DISTANCE)
		{
			setup_planar_order(so, key, k);
			continue;
		}
		const bool sphere = key->sk_strategy == GEOIDX_STRATEGY_SPHERE_DISTANCE;
		if (key->sk_strategy != GEOIDX_STRATEGY_DISTANCE && !sphere)
			elog(ERROR, "geoidx: unexpected strategy %d in an ORDER BY key", key->sk_strategy);
		if (key->sk_flags & SK_ISNULL)
			continue;
		GeoidxPoint p;
		geoidx_decode_any(key->sk_argument, "the geometry to order by distance to", &p);
		if (p.empty)
			continue;
		geoidx::LonLat ll;
		double slack = 0.0;
		if (p.shape)
		{
			/*
			 * A shape: the search runs around the centre of its box, and a row's
			 * distance to the shape is at least its distance to that centre less
			 * the reach of the box from it (the triangle inequality), which is
			 * the lower bound the executor gets, to compute and reorder.
			 */
			ll = geoidx::LonLat{p.x, p.y};
			slack = geoidx_shape_reach_metres(&p);
			so->order_recheck = true;
		}
		else
			geoidx_point_unit(&p, "the geometry to order by distance to", &ll, NULL);
		so->key_ok[k] = true;
		so->key_sphere[k] = sphere;
		so->key_center[k] = geoidx::geographic_point(ll);
		if (so->primary < 0)
		{
			so->primary = k;
			so->order_centre = ll;
			so->order_raw = geoidx::RawPoint{p.x, p.y};
			so->order_slack = slack;
			so->ordered = true;
		}
		else
			so->tie_keys = true;
	}
	so->run = NULL;
	so->nrun = so->caprun = so->runpos = 0;
}

} // namespace

/* Prepare a scan of the index: the memory contexts and what the column lets it return. */
IndexScanDesc
geoidx_beginscan(Relation index, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);
	GeoidxScanOpaque so = (GeoidxScanOpaque) palloc0(sizeof(GeoidxScanOpaqueData));
	so->cxt = geoidx_scan_memory_take();
	geoidx_scan_memory_reset(so);
	so->tuple_cxt =
		AllocSetContextCreate(CurrentMemoryContext, "geoidx scan tuple", ALLOCSET_SMALL_SIZES);
	so->can_return = geoidx_canreturn(index, 1);
	so->payload_desc = geoidx_rel_info(index)->payload_desc;
	so->return_geography = so->can_return && geoidx_index_is_geography(index);
	scan->opaque = so;
	scan->xs_itupdesc = RelationGetDescr(index);
	if (norderbys > 0)
	{
		scan->xs_orderbyvals = (Datum *) palloc0(sizeof(Datum) * norderbys);
		scan->xs_orderbynulls = (bool *) palloc(sizeof(bool) * norderbys);
		memset(scan->xs_orderbynulls, true, sizeof(bool) * norderbys);
	}
	geoidx_check_metapage(index);
	return scan;
}

/*
 * Restart a scan with new keys: everything of the previous run is freed with
 * its memory context, and the keys become regions, filters and ORDER BY
 * centres. The first gettuple/getbitmap reads the root.
 */
void
geoidx_rescan(IndexScanDesc scan, ScanKey keys, int nkeys, ScanKey orderbys, int norderbys)
{
	GeoidxScanOpaque so = (GeoidxScanOpaque) scan->opaque;

	if (keys && scan->numberOfKeys > 0)
		memmove(scan->keyData, keys, scan->numberOfKeys * sizeof(ScanKeyData));
	if (orderbys && scan->numberOfOrderBys > 0)
		memmove(scan->orderByData, orderbys, scan->numberOfOrderBys * sizeof(ScanKeyData));

	geoidx_scan_memory_reset(so);
	MemoryContext old = MemoryContextSwitchTo(so->cxt);

	setup_keys(scan, so);
	setup_order(scan, so);

	so->capstack = 64;
	so->stack = (GeoidxPageRef *) palloc(sizeof(GeoidxPageRef) * so->capstack);
	so->nstack = 0;
	/* allocated by the first unordered page that matches: ordered and bitmap scans never use it */
	so->caphits = 0;
	so->hits = NULL;
	so->nhits = so->pos = 0;
	so->sorted = NULL;
	so->batch_target = 1;
	so->batch_blocks = 0;
	so->heap_blocks = InvalidBlockNumber;
	so->capbitmap = 0;
	so->bitmap_tids = NULL;
	so->nbitmap = 0;
	so->caprecheck = 0;
	so->bitmap_recheck = NULL;
	so->nrecheck = 0;
	so->keep_payloads = scan->xs_want_itup && so->payload_desc != NULL;
	so->batch_cxt = AllocSetContextCreate(so->cxt, "geoidx scan payloads", ALLOCSET_DEFAULT_SIZES);
	if (so->ordered && so->key_planar[so->primary])
		geoidx::knn_init_planar(&so->knn, geoidx_knn_callbacks(scan), so->keys,
								so->key_target[so->primary]);
	else if (so->ordered)
	{
		geoidx::knn_init(&so->knn, geoidx_knn_callbacks(scan), so->keys, so->order_centre);
		so->knn.use_spheroid = !so->key_sphere[so->primary];
		/*
		 * The executor needs the rows' order, not their distances, until a
		 * shape fills its reorder queue (scan_get.cc); a tie run needs exact
		 * distances to gather, a shape centre's rows are all rechecked.
		 */
		so->knn.order_only = so->knn.use_spheroid && !so->tie_keys && !so->order_recheck;
	}
	so->leave_rest = so->ordered && !so->key_planar[so->primary] && so->keys.near_side_keys &&
					 so->payload_desc == NULL && so->point_null_test == 0 && so->nprobes == 0;
	so->started = false;
	so->pages_visited = 0;
	/*
	 * The loop guard's limit needs the index's size, an lseek: count_page asks
	 * for it only once a scan has read 1,000 pages, not on every rescan.
	 */
	so->page_limit = 1000;

	MemoryContextSwitchTo(old);
}

/* End a scan: free its memory. */
void
geoidx_endscan(IndexScanDesc scan)
{
	GeoidxScanOpaque so = (GeoidxScanOpaque) scan->opaque;
	geoidx_scan_memory_end(so);
	MemoryContextDelete(so->tuple_cxt);
	pfree(so);
	scan->opaque = NULL;
}
