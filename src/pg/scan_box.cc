/*
 * The keys of PostGIS's box operators on a geometry column: col && q (the map
 * viewport), col @ q and col ~ q, members of geoidx's operator family as they
 * are of GiST's (strategies 9 to 11), so that the SQL apps send for GiST is
 * an index condition here unchanged.
 *
 * q's box is PostGIS's own (its box2d, which reads the box stored in q or
 * computes it as && does), rounded to floats as && rounds it; each point
 * entry is then decided exactly from the heap's coordinates it keeps, and a
 * shape entry that the tree cannot rule out goes to the executor's recheck of
 * the operator (planar_box.h says why neither can be decided from the tree).
 */
#include "planar_box.h"

#include "geoidx.h"

namespace
{

/* PostGIS's GBOX, the value of its box2d type: the four doubles && rounds. */
struct PostgisBox
{
	uint16 flags;
	double xmin;
	double xmax;
	double ymin;
	double ymax;
};

static_assert(offsetof(PostgisBox, xmin) == 8, "liblwgeom's GBOX puts xmin after 8 bytes");

geoidx::BoxOp
box_op_of(int strategy)
{
	switch (strategy)
	{
		case GEOIDX_STRATEGY_BOX_WITHIN:
			return geoidx::BoxOp::within;
		case GEOIDX_STRATEGY_BOX_CONTAINS:
			return geoidx::BoxOp::contains;
		default:
			return geoidx::BoxOp::overlaps;
	}
}

} // namespace

/* g's box as PostGIS's box2d gives it (exact, or the float box g keeps); false for EMPTY. */
bool
geoidx_postgis_box(Datum g, double *xmin, double *xmax, double *ymin, double *ymax)
{
	const GeoidxCatalog &c = geoidx_catalog();
	if (!OidIsValid(c.pg_box2d_fn))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FUNCTION),
						errmsg("geoidx: PostGIS's box2d(geometry) is missing"),
						errhint("geoidx needs PostGIS 3.")));
	FmgrInfo f;
	fmgr_info(c.pg_box2d_fn, &f);
	LOCAL_FCINFO(fcinfo, 1);
	InitFunctionCallInfoData(*fcinfo, &f, 1, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = g;
	fcinfo->args[0].isnull = false;
	Datum box = FunctionCallInvoke(fcinfo);
	if (fcinfo->isnull)
		return false;
	const PostgisBox *b = (const PostgisBox *) DatumGetPointer(box);
	*xmin = b->xmin;
	*xmax = b->xmax;
	*ymin = b->ymin;
	*ymax = b->ymax;
	return true;
}

namespace
{

/* q's box as PostGIS's && sees it; false for an EMPTY q, which has none. */
bool
key_box(Datum q, geoidx::FloatBox *out)
{
	double xmin, xmax, ymin, ymax;
	if (!geoidx_postgis_box(q, &xmin, &xmax, &ymin, &ymax))
		return false;
	*out = geoidx::float_box(xmin, xmax, ymin, ymax);
	return true;
}

} // namespace

/* Add a box operator's key to the scan: the image of q's box prunes, the probe decides. */
void
geoidx_box_key(GeoidxScanOpaque so, ScanKey key)
{
	geoidx::FloatBox q;
	if (!key_box(key->sk_argument, &q))
	{
		/* PostGIS: an EMPTY geometry has no box, and every box operator is false with it */
		so->no_match = true;
		return;
	}
	GeoidxProbe *probe = &so->probes[so->nprobes];
	memset(probe, 0, sizeof(*probe));
	probe->strategy = key->sk_strategy;
	probe->box = true;
	probe->box_test = geoidx::point_box_test(box_op_of(key->sk_strategy), q);
	if (probe->box_test.constant == 0)
	{
		/* && with a box whose xmin is NaN, which PostGIS 3 reads as EMPTY */
		so->no_match = true;
		return;
	}
	so->region_probe[so->nregions] = so->nprobes++;
	so->regions[so->nregions++] = geoidx::region_box_meets(geoidx::search_image(q));
	so->shapes_exact = false;
}
