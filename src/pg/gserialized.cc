/*
 * Reading points out of PostGIS's GSERIALIZED varlena (geometry and geography
 * share it). Debian ships no PostGIS headers, so the layout is decoded here
 * from its documentation (liblwgeom/gserialized.txt):
 *
 *   varlena header | srid (3 bytes, 21-bit signed) | gflags (1 byte)
 *   [v2 with G2FLAG_EXTENDED: 8 bytes of extended flags]
 *   [bbox: float4 pairs, 2 * ndims of them, or 6 for geodetic]
 *   uint32 type | uint32 npoints | npoints * ndims doubles
 *
 * A point is decoded here; any other kind is walked by the core
 * (serialized_shape.h) for its box (shape_bounds.h). A point is never toasted
 * in practice, but a compressed or external value is still detoasted rather
 * than misread.
 */
#include "geodesy.h"
#include "planar_grid.h"
#include "serialized_shape.h"
#include "shape_pieces.h"
#include "shape_bounds.h"

#include "geoidx.h"

extern "C"
{
#include "access/detoast.h"
}

#include <type_traits>

static_assert(std::is_trivially_destructible_v<GeoidxRelInfo>,
			  "rd_amcache is freed with the relcache entry, never destroyed");

namespace
{

constexpr uint8 kFlagZ = 0x01;
constexpr uint8 kFlagM = 0x02;
constexpr uint8 kFlagBbox = 0x04;
constexpr uint8 kFlagGeodetic = 0x08;
constexpr uint8 kFlagExtended = 0x10; /* v2 only */
constexpr uint8 kFlagVersion = 0x40;  /* set in v2 */
constexpr uint32 kPointType = 1;
constexpr int32 kSridWgs84 = 4326;

/* Raise the error of a value that is no valid geometry. */
void
malformed(const char *what, const char *why)
{
	ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("malformed geometry in %s", what),
					errdetail("%s", why)));
}

} // namespace

/* Raise the error for a value of another SRID than 4326 or 0. */
static void
check_srid(int32 srid, const char *what)
{
	if (srid != kSridWgs84 && srid != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s has SRID %d, geoidx needs SRID 4326 (WGS 84 longitude/latitude)", what,
						srid),
				 errhint("Transform it with ST_Transform(geom, 4326); SRID 0 is taken as 4326, "
						 "as the geography cast does.")));
}

/* Raise the error of a walk of a shape that failed. */
static void
walk_failed(const geoidx::WalkError &err, const char *what)
{
	switch (err.status)
	{
		case geoidx::WalkStatus::unsupported_type:
			ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							errmsg("%s is a %s, which geography (and so geoidx) does not support",
								   what, geoidx::geom_type_name(err.type)),
							errhint("Points, lines, polygons, their Multi* forms and "
									"GeometryCollections are supported; ST_CurveToLine turns "
									"curves into lines.")));
			break;
		case geoidx::WalkStatus::not_version_2:
			malformed(what, "the value is in PostGIS 2's serialization (GSERIALIZED v1); "
							"rewrite it (UPDATE t SET col = col) with PostGIS 3");
			break;
		case geoidx::WalkStatus::bad_member:
			malformed(what, psprintf("a Multi* geometry holds a member of another kind (%s) at "
									 "byte %zu",
									 geoidx::geom_type_name(err.type), err.offset));
			break;
		case geoidx::WalkStatus::too_deep:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s nests collections more than %d deep", what, geoidx::kMaxDepth)));
			break;
		default:
			malformed(what, psprintf("the value ends inside its %s at byte %zu",
									 geoidx::geom_type_name(err.type), err.offset));
	}
}

/* Decode a geometry or geography datum that must be a point (or EMPTY) of SRID 4326 or 0. */
void
geoidx_decode_point(Datum value, const char *what, GeoidxPoint *out)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(value);
	struct varlena *copy = NULL;
	const uint8 *data;
	Size len;

	if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
		v = copy = detoast_attr(v);
	if (VARATT_IS_SHORT(v))
	{
		data = (const uint8 *) VARDATA_SHORT(v);
		len = VARSIZE_SHORT(v) - VARHDRSZ_SHORT;
	}
	else
	{
		data = (const uint8 *) VARDATA(v);
		len = VARSIZE(v) - VARHDRSZ;
	}

	if (len < 4 + 8)
		malformed(what, "the value is shorter than a geometry header");

	int32 srid = geoidx::serialized_srid(data);
	uint8 flags = data[3];
	bool v2 = (flags & kFlagVersion) != 0;
	int ndims = 2 + ((flags & kFlagZ) ? 1 : 0) + ((flags & kFlagM) ? 1 : 0);
	Size off = 4;
	if (v2 && (flags & kFlagExtended))
		off += 8;
	if (flags & kFlagBbox)
		off += ((flags & kFlagGeodetic) ? 6 : 2 * ndims) * sizeof(float4);
	if (len < off + 8)
		malformed(what, "the value ends inside its header");

	uint32 type, npoints;
	memcpy(&type, data + off, sizeof(uint32));
	memcpy(&npoints, data + off + 4, sizeof(uint32));
	off += 8;

	if (type != kPointType)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("%s must be a point, not a %s", what, geoidx::geom_type_name(type)),
						errhint("This argument is one position: give a POINT (ST_PointOnSurface of "
								"a shape, if that is what is meant).")));
	check_srid(srid, what);
	if (npoints > 1)
		malformed(what, "a point with more than one coordinate");

	out->empty = (npoints == 0);
	out->shape = false;
	out->x = out->y = 0.0;
	if (!out->empty)
	{
		if (len < off + (Size) ndims * sizeof(double))
			malformed(what, "the value ends inside its coordinates");
		memcpy(&out->x, data + off, sizeof(double));
		memcpy(&out->y, data + off + sizeof(double), sizeof(double));
	}
	if (copy)
		pfree(copy);
}

/* Normalise a point as the geography cast does; raise an error for NaN and infinities. */
void
geoidx_point_unit(const GeoidxPoint *p, const char *what, geoidx::LonLat *ll_out, geoidx::Vec3 *v)
{
	geoidx::LonLat local;
	geoidx::LonLat *ll = ll_out ? ll_out : &local;
	if (geoidx::normalize_like_geography(p->x, p->y, ll) == geoidx::CoordCheck::not_finite)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("%s has a coordinate that is not a finite number (%g %g)", what,
							   p->x, p->y),
						errdetail("Longitude and latitude must be finite; NaN and Infinity have no "
								  "place on the Earth.")));
	if (v)
		*v = geoidx::unit_vector(geoidx::geographic_point(*ll));
}

/*
 * Decode a geometry or geography datum of any kind the geography type has, of
 * SRID 4326 or 0: a point as geoidx_decode_point does, anything else into its
 * box (shape_bounds.h) and that box's centre (out->shape). An EMPTY shape of
 * any kind is empty. Errors as the geography cast's: other SRIDs, kinds it
 * does not have (curves, surfaces), coordinates that are not finite.
 */
static void
decode_any(Datum value, const char *what, GeoidxPoint *out, MemoryContext prepare_cxt,
		   const geoidx::CoverShape **prepared)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(value);
	struct varlena *copy = NULL;
	if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
		v = copy = detoast_attr(v);
	const uint8 *data = (const uint8 *) VARDATA_ANY(v);
	Size len = VARSIZE_ANY_EXHDR(v);

	geoidx::SerializedHeader h;
	geoidx::WalkError err;
	bool v2 = geoidx::read_serialized_header(data, len, &h, &err);
	if (!v2 && err.status != geoidx::WalkStatus::not_version_2)
		walk_failed(err, what);
	/* a point in PostGIS 2's serialization is still read (geoidx_decode_point knows it) */
	if (!v2 || h.type == geoidx::kPointType)
	{
		geoidx_decode_point(PointerGetDatum(v), what, out);
		if (!out->empty)
			geoidx_point_unit(out, what, NULL, NULL);
		if (copy)
			pfree(copy);
		return;
	}
	check_srid(h.srid, what);
	/*
	 * A polygon that an index entry prepares for its grid gives the entry's
	 * box from that same walk (CoverShape::bounds, ShapeBounds's to the bit);
	 * any other value, or one the preparation refuses (a coordinate that is
	 * not finite), is walked for its box alone, which raises the errors.
	 */
	const geoidx::CoverShape *s = NULL;
	if (prepare_cxt != NULL &&
		(h.type == geoidx::kPolygonType || h.type == geoidx::kMultiPolygonType))
		s = geoidx_prepare_serialized(data, h, prepare_cxt);
	if (prepared)
		*prepared = s;
	out->x = out->y = 0.0;
	out->box = geoidx::box_empty();
	if (s != NULL && !geoidx::box_is_empty(s->bounds))
	{
		out->empty = false;
		out->box = s->bounds;
	}
	else
	{
		geoidx::ShapeBounds bounds;
		if (!geoidx::walk_serialized(data, h, &bounds, &err))
			walk_failed(err, what);
		if (bounds.coord_check() == geoidx::CoordCheck::not_finite)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s has a coordinate that is not a finite number", what),
					 errdetail("Longitude and latitude must be finite; NaN and Infinity have no "
							   "place on the Earth.")));
		out->empty = bounds.empty();
		if (!out->empty)
			out->box = bounds.box();
	}
	out->shape = !out->empty;
	if (out->shape)
	{
		/* the centre orders the bulk build (Hilbert): any point of the box would do */
		double c[3], n = 0.0;
		for (int a = 0; a < 3; a++)
		{
			c[a] = 0.5 * (out->box.lo[a] + out->box.hi[a]);
			n += c[a] * c[a];
		}
		if (n > 1e-30)
		{
			out->x = atan2(c[1], c[0]) * (180.0 / M_PI);
			out->y = asin(Max(-1.0, Min(1.0, c[2] / sqrt(n)))) * (180.0 / M_PI);
		}
	}
	if (copy)
		pfree(copy);
}

void
geoidx_decode_any(Datum value, const char *what, GeoidxPoint *out)
{
	decode_any(value, what, out, NULL, NULL);
}

/*
 * The pieces and their grids that a geoidx index entry of value keeps (the
 * _PIECES kinds of format.h), built as the index builds them; false when it
 * keeps none. The candidate disc's operator asks it, so that it says of a heap
 * value what a scan says of the value's entry.
 */
bool
geoidx_value_pieces(Datum value, const char *what, geoidx::ShapePieces *pieces,
					geoidx::InteriorGrid *grids)
{
	MemoryContext cxt =
		AllocSetContextCreate(CurrentMemoryContext, "geoidx value pieces", ALLOCSET_DEFAULT_SIZES);
	GeoidxPoint p;
	const geoidx::CoverShape *prepared = NULL;
	decode_any(value, what, &p, cxt, &prepared);
	int n = 0;
	if (prepared != NULL && !p.empty)
	{
		GeoidxLeafEntry e;
		geoidx::Box3 box;
		geoidx_entry_set_value(&e, &p, &box);
		geoidx::InteriorGrid grid;
		if (geoidx_build_entry_grid(prepared, &e, GEOIDX_GRID_CURRENT, &grid) != GEOIDX_KIND_SHAPE)
		{
			geoidx::StoredPiece stored[geoidx::kMaxPieces];
			n = geoidx_build_entry_pieces(prepared, &e, GEOIDX_GRID_CURRENT, grid, stored);
			geoidx::load_pieces(stored, n, pieces, grids);
		}
	}
	MemoryContextDelete(cxt);
	return n > 0;
}

/* Decode and check one point argument of an SQL function; return false if it is EMPTY. */
bool
geoidx_read_point(Datum d, const char *what, GeoidxPoint *p, geoidx::LonLat *ll)
{
	geoidx_decode_point(d, what, p);
	if (p->empty)
		return false;
	geoidx_point_unit(p, what, ll, NULL);
	return true;
}

extern "C"
{
	PG_FUNCTION_INFO_V1(geoidx_geometry_decode);
}

/*
 * Decode one indexed value (support procedure 1). Its argument is a
 * GeoidxDecodeRequest; a geography operator class would register a twin of it.
 */
extern "C" Datum
geoidx_geometry_decode(PG_FUNCTION_ARGS)
{
	GeoidxDecodeRequest *req = (GeoidxDecodeRequest *) PG_GETARG_POINTER(0);
	decode_any(req->value, req->what, &req->result, req->prepare_cxt, &req->prepared);
	PG_RETURN_POINTER(req);
}

/*
 * Return the index's relcache info: "the value indexed by "name"", for
 * error messages, and the payload descriptor. Every insert needs the text at
 * hand but almost none uses it, so it is built once per relcache entry
 * (rd_amcache is freed, and so rebuilt, when the entry is, e.g. on a rename).
 */
const GeoidxRelInfo *
geoidx_rel_info(Relation index)
{
	if (index->rd_amcache == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(index->rd_indexcxt);
		GeoidxRelInfo *info = (GeoidxRelInfo *) palloc0(sizeof(GeoidxRelInfo));
		info->what = psprintf("the value indexed by \"%s\"", RelationGetRelationName(index));
		TupleDesc desc = RelationGetDescr(index);
		if (desc->natts > 1)
		{
			TupleDesc pd = CreateTemplateTupleDesc(desc->natts - 1);
			for (int i = 1; i < desc->natts; i++)
				TupleDescCopyEntry(pd, (AttrNumber) i, desc, (AttrNumber) (i + 1));
			info->payload_desc = pd;
		}
		MemoryContextSwitchTo(old);
		index->rd_amcache = info;
	}
	return (const GeoidxRelInfo *) index->rd_amcache;
}

/* Return "the value indexed by "name"", for error messages. */
const char *
geoidx_index_what(Relation index)
{
	return geoidx_rel_info(index)->what;
}

/*
 * Form the payload of a row: its values of the columns after the point, as one
 * IndexTuple of GeoidxRelInfo.payload_desc, and for a polygon whose interior
 * grid decides some cell that grid after them (the entry becomes
 * GEOIDX_KIND_SHAPE_GRID or _PLANAR_GRID), preceded by its pieces for a large
 * polygon (the _PIECES kinds, format.h); NULL for a single-column index's row
 * without a grid.
 * prepared is the value's prepared form from geoidx_decode_indexed (NULL: not
 * a polygon), builder how to build its grid (geoidx_grid_builder but in verify).
 */
IndexTuple
geoidx_form_payload(Relation index, Datum *values, bool *isnull, GeoidxLeafEntry *entry,
					const geoidx::CoverShape *prepared, GeoidxGridBuilder builder)
{
	TupleDesc pd = geoidx_rel_info(index)->payload_desc;
	geoidx::InteriorGrid grid;
	int grid_kind = GeoidxEntryKind(entry) == GEOIDX_KIND_SHAPE && !isnull[0]
						? geoidx_build_entry_grid(prepared, entry, builder, &grid)
						: GEOIDX_KIND_SHAPE;
	bool has_grid = grid_kind != GEOIDX_KIND_SHAPE;
	if (pd == NULL && !has_grid)
		return NULL;
	IndexTuple t;
	if (pd != NULL)
	{
		/*
		 * The heap may hold a column compressed (a wide row's toaster does it)
		 * while an INSERT hands it over as written: decompressed first, the
		 * payload is the same bytes whichever path forms it, as geoidx_verify
		 * compares them (index_form_tuple compresses what is long again).
		 */
		Datum cols[INDEX_MAX_KEYS];
		for (int i = 0; i < pd->natts; i++)
		{
			cols[i] = values[i + 1];
			if (!isnull[i + 1] && TupleDescAttr(pd, i)->attlen == -1 &&
				(VARATT_IS_COMPRESSED(DatumGetPointer(cols[i])) ||
				 VARATT_IS_EXTERNAL(DatumGetPointer(cols[i]))))
				cols[i] =
					PointerGetDatum(detoast_attr((struct varlena *) DatumGetPointer(cols[i])));
		}
		t = index_form_tuple(pd, cols, isnull + 1);
		Size sz = IndexTupleSize(t);
		if (sz > GEOIDX_MAX_PAYLOAD_COLUMNS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("index row of \"%s\" needs %zu bytes for the columns after the point, "
							"geoidx allows %zu",
							RelationGetRelationName(index), sz, (Size) GEOIDX_MAX_PAYLOAD_COLUMNS),
					 errhint("Index shorter values (a hash of a long text, say), or move the "
							 "column out of the index.")));
	}
	else
	{
		t = (IndexTuple) palloc0(sizeof(IndexTupleData));
		t->t_info = sizeof(IndexTupleData);
	}
	if (has_grid)
	{
		Size base = MAXALIGN(IndexTupleSize(t));
		geoidx::StoredPiece pieces[geoidx::kMaxPieces];
		uint64 npieces = (uint64) geoidx_build_entry_pieces(prepared, entry, builder, grid, pieces);
		Size pieces_size = npieces * sizeof(geoidx::StoredPiece) + sizeof(npieces);
		/*
		 * Every entry of a large polygon keeps its pieces, whatever the index:
		 * the candidate disc's operator says of a heap value what its entry's
		 * pieces say (geoidx_value_pieces), so none may go without.
		 */
		if (npieces > 0 && base + pieces_size + sizeof(grid) > GEOIDX_MAX_PAYLOAD)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("index row of \"%s\" needs %zu bytes for the columns after the point "
							"and the pieces of a polygon of %llu vertices, geoidx allows %zu",
							RelationGetRelationName(index), base + pieces_size + sizeof(grid),
							(unsigned long long) geoidx::cover_shape_vertices(*prepared),
							(Size) GEOIDX_MAX_PAYLOAD),
					 errdetail("A polygon of %llu or more vertices keeps up to %d pieces of %zu "
							   "bytes each in its index entry.",
							   (unsigned long long) geoidx::kPieceMinVertices, geoidx::kMaxPieces,
							   sizeof(geoidx::StoredPiece)),
					 errhint("Index shorter values (a hash of a long text, say), or move the "
							 "column out of the index.")));
		if (npieces == 0)
			pieces_size = 0;
		Size sz = base + pieces_size + sizeof(grid);
		IndexTuple g = (IndexTuple) palloc0(sz);
		memcpy(g, t, IndexTupleSize(t));
		char *at = (char *) g + base;
		if (npieces > 0)
		{
			memcpy(at, pieces, npieces * sizeof(geoidx::StoredPiece));
			at += npieces * sizeof(geoidx::StoredPiece);
			memcpy(at, &npieces, sizeof(npieces));
			at += sizeof(npieces);
			grid_kind = grid_kind == GEOIDX_KIND_SHAPE_PLANAR_GRID
							? GEOIDX_KIND_SHAPE_PLANAR_GRID_PIECES
							: GEOIDX_KIND_SHAPE_GRID_PIECES;
		}
		memcpy(at, &grid, sizeof(grid));
		g->t_info = (unsigned short) ((g->t_info & ~INDEX_SIZE_MASK) | sz);
		pfree(t);
		t = g;
		entry->flags = (uint16) ((entry->flags & ~GEOIDX_KIND_MASK) | grid_kind);
	}
	return t;
}

/* Decode an indexed value through the operator class's decode procedure, and check it. */
void
geoidx_decode_indexed(Relation index, Datum value, const char *what, GeoidxPoint *out,
					  MemoryContext prepare_cxt, const geoidx::CoverShape **prepared)
{
	GeoidxDecodeRequest req;

	req.value = value;
	req.what = what;
	req.prepare_cxt = prepare_cxt;
	req.prepared = NULL;
	FunctionCall1(index_getprocinfo(index, 1, GEOIDX_DECODE_PROC), PointerGetDatum(&req));
	*out = req.result;
	if (prepared)
		*prepared = req.prepared;
	if (!out->empty && !out->shape)
		geoidx_point_unit(out, what, NULL, NULL);
}

/* Return the SRID a geometry or geography datum carries (0 when it has none). */
int32
geoidx_datum_srid(Datum value)
{
	struct varlena *v = pg_detoast_datum_slice((struct varlena *) DatumGetPointer(value), 0, 3);
	const uint8 *data = (const uint8 *) VARDATA_ANY(v);
	if (VARSIZE_ANY_EXHDR(v) < 3)
		return 0;
	return geoidx::serialized_srid(data);
}
