/*
 * The one cache of catalog OIDs: every type, function and operator of the
 * geoidx and postgis extensions that the glue refers to, looked up by exact
 * signature in the extension's own schema (never through search_path, which
 * the user controls), once per backend, and forgotten whenever pg_proc or
 * pg_operator change (CREATE / DROP / ALTER EXTENSION change both).
 *
 * Two ways in. geoidx_catalog_if_present() never fails for a missing object:
 * the planner hook asks it in every database, with or without geoidx, and
 * reads `present`. geoidx_catalog() is for code that only runs where geoidx is
 * installed (support functions, estimators, the SQL functions): it raises the
 * error naming the first missing object, as each lookup by itself would.
 */
#include "geoidx.h"

extern "C"
{
#include "access/table.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "parser/parse_func.h"
#include "utils/lsyscache.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/syscache.h"
}

#include <type_traits>

static_assert(std::is_trivially_destructible_v<GeoidxCatalog>,
			  "the catalog cache is static memory that no destructor may own");

namespace
{

GeoidxCatalog catalog;
bool callbacks_registered = false;

/* Forget every OID: an extension may have been dropped, created or moved. */
void
invalidate_catalog(Datum arg, int cacheid, uint32 hashvalue)
{
	catalog.valid = false;
}

/* Return the schema an extension was created in, or InvalidOid (PG15 exports no lookup of it). */
Oid
extension_schema_if_exists(const char *extname)
{
	Oid extoid = get_extension_oid(extname, true);
	Oid nsp = InvalidOid;
	if (!OidIsValid(extoid))
		return InvalidOid;
	ScanKeyData key;

	Relation rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extoid));
	SysScanDesc scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	HeapTuple tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return nsp;
}

/* Return the schema of an extension; raise the usual error if it is not installed. */
Oid
extension_schema(const char *extname)
{
	get_extension_oid(extname, false);
	Oid nsp = extension_schema_if_exists(extname);
	if (!OidIsValid(nsp))
		elog(ERROR, "could not find the schema of extension \"%s\"", extname);
	return nsp;
}

/* Return the OID of a type in one schema. */
Oid
type_oid(const char *name, Oid nsp, bool missing_ok)
{
	Oid t = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum(name),
							ObjectIdGetDatum(nsp));
	if (!OidIsValid(t) && !missing_ok)
		elog(ERROR, "geoidx: type %s.%s not found", get_namespace_name(nsp), name);
	return t;
}

/* Return the OID of a function of one schema if type t exists, else InvalidOid. */
Oid
function_if(Oid t, const char *name, Oid nsp, int nargs, const Oid *argtypes)
{
	return OidIsValid(t) ? geoidx_function_oid(name, nsp, nargs, argtypes, true) : InvalidOid;
}

/* Fill in the OIDs of one point type (g: 0 geometry, 1 geography) t, InvalidOid if absent. */
void
load_point_type(GeoidxCatalog *c, int g, Oid t, Oid ours, Oid postgis)
{
	const Oid circle3[3] = {t, FLOAT8OID, BOOLOID};
	const Oid pred4[4] = {t, t, FLOAT8OID, BOOLOID};
	const Oid ring5[5] = {t, t, FLOAT8OID, FLOAT8OID, BOOLOID};
	const Oid outside4[4] = {t, FLOAT8OID, BOOLOID, BOOLOID};
	const Oid distance3[3] = {t, TEXTOID, FLOAT8OID};
	bool have = OidIsValid(t);

	c->circle_fn[g] = function_if(t, "geoidx_circle", ours, 3, circle3);
	c->within_op[g] = have ? geoidx_operator_oid("<@", t, c->circle_type, ours, true) : InvalidOid;
	c->distance_op[g] = have ? geoidx_operator_oid("<~>", t, t, ours, true) : InvalidOid;
	c->overlap_op[g] = have ? geoidx_operator_oid("&&", t, t, postgis, true) : InvalidOid;
	c->dwithin_fn[g] = function_if(t, "geoidx_dwithin", ours, 4, pred4);
	c->beyond_fn[g] = function_if(t, "geoidx_beyond", ours, 4, pred4);
	c->nearer_fn[g] = function_if(t, "geoidx_nearer", ours, 4, pred4);
	c->outside_fn[g] = function_if(t, "geoidx_outside", ours, 4, pred4);
	c->ring_fn[g] = function_if(t, "geoidx_ring", ours, 5, ring5);
	c->circle_outside_fn[g] = function_if(t, "geoidx_circle_outside", ours, 4, outside4);
	c->circle_distance_fn[g] = function_if(t, "geoidx_circle_distance", ours, 3, distance3);
	const Oid candidate2[2] = {t, FLOAT8OID};
	c->candidate_fn[g] = function_if(t, "geoidx_candidate_circle", ours, 2, candidate2);
	c->candidate_beyond_fn[g] = function_if(t, "geoidx_candidate_beyond", ours, 3, distance3);
	c->covers_op[g] = have ? geoidx_operator_oid("~@>", t, t, ours, true) : InvalidOid;
	c->coveredby_op[g] = have ? geoidx_operator_oid("<@~", t, t, ours, true) : InvalidOid;
	c->intersects_op[g] = have ? geoidx_operator_oid("~&&", t, t, ours, true) : InvalidOid;
	const Oid pair[2] = {t, t};
	c->covers_fn[g] = function_if(t, "geoidx_covers", ours, 2, pair);
	c->coveredby_fn[g] = function_if(t, "geoidx_coveredby", ours, 2, pair);
	c->intersects_fn[g] = function_if(t, "geoidx_intersects", ours, 2, pair);
}

/* Look everything up again, failing for nothing that is missing. */
void
load_catalog(GeoidxCatalog *c)
{
	memset(c, 0, sizeof(*c)); /* every OID InvalidOid, the envelope function not set up */
	Oid ours = extension_schema_if_exists("geoidx");
	Oid postgis = extension_schema_if_exists("postgis");
	if (OidIsValid(ours) && OidIsValid(postgis))
	{
		c->geometry_type = type_oid("geometry", postgis, true);
		c->geography_type = type_oid("geography", postgis, true);
		c->circle_type = type_oid("geoidx_circle", ours, true);
		load_point_type(c, 0, c->geometry_type, ours, postgis);
		load_point_type(c, 1, c->geography_type, ours, postgis);

		const Oid box3[3] = {c->geometry_type, FLOAT8OID, BOOLOID};
		c->box_fn = function_if(c->geometry_type, "geoidx_search_box", ours, 3, box3);
		const Oid cell2[2] = {c->geometry_type, INT4OID};
		c->cell_fn = function_if(c->geometry_type, "geoidx_cell", ours, 2, cell2);
		const Oid bound3[3] = {c->circle_type, INT4OID, INT4OID};
		c->covering_bound_fn =
			function_if(c->circle_type, "geoidx_covering_bound", ours, 3, bound3);
		c->int8_ge_op = geoidx_operator_oid(">=", INT8OID, INT8OID, PG_CATALOG_NAMESPACE, true);
		c->int8_lt_op = geoidx_operator_oid("<", INT8OID, INT8OID, PG_CATALOG_NAMESPACE, true);
		const Oid expand2[2] = {c->geography_type, FLOAT8OID};
		c->geog_expand_fn = function_if(c->geography_type, "_st_expand", postgis, 2, expand2);
		if (OidIsValid(c->geography_type))
			getTypeInputInfo(c->geography_type, &c->geography_input, &c->geography_ioparam);
		const Oid envelope5[5] = {FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, INT4OID};
		c->envelope_fn = geoidx_function_oid("st_makeenvelope", postgis, 5, envelope5, true);

		c->float8_plus_op =
			geoidx_operator_oid("+", FLOAT8OID, FLOAT8OID, PG_CATALOG_NAMESPACE, true);
		const char *const cmp[4] = {">", ">=", "<", "<="};
		for (int i = 0; i < 4; i++)
			c->float8_cmp[i] =
				geoidx_operator_oid(cmp[i], FLOAT8OID, FLOAT8OID, PG_CATALOG_NAMESPACE, true);
		c->in_op = geoidx_operator_oid("<@", ANYELEMENTOID, ANYARRAYOID, ours, true);
		c->float8_eq_op =
			geoidx_operator_oid("=", FLOAT8OID, FLOAT8OID, PG_CATALOG_NAMESPACE, true);
		if (OidIsValid(c->geography_type) && OidIsValid(c->geometry_type))
		{
			const Oid g = c->geography_type;
			const Oid cast1[1] = {c->geometry_type};
			c->pg_geography_fn = geoidx_function_oid("geography", postgis, 1, cast1, true);
			const Oid back1[1] = {g};
			c->pg_geometry_fn = geoidx_function_oid("geometry", postgis, 1, back1, true);
			const Oid typmod3[3] = {g, INT4OID, BOOLOID};
			c->pg_geography_typmod_fn = geoidx_function_oid("geography", postgis, 3, typmod3, true);
			const Oid dw[4] = {g, g, FLOAT8OID, BOOLOID};
			c->pg_dwithin_fn = geoidx_function_oid("st_dwithin", postgis, 4, dw, true);
			const Oid dist[3] = {g, g, BOOLOID};
			c->pg_distance_fn = geoidx_function_oid("st_distance", postgis, 3, dist, true);
			c->pg_covers_fn = geoidx_function_oid("st_covers", postgis, 2, dw, true);
			c->pg_coveredby_fn = geoidx_function_oid("st_coveredby", postgis, 2, dw, true);
			c->pg_intersects_fn = geoidx_function_oid("st_intersects", postgis, 2, dw, true);
			const Oid gg[2] = {c->geometry_type, c->geometry_type};
			c->planar_contains_fn = geoidx_function_oid("st_contains", postgis, 2, gg, true);
			c->planar_covers_fn = geoidx_function_oid("st_covers", postgis, 2, gg, true);
			c->planar_intersects_fn = geoidx_function_oid("st_intersects", postgis, 2, gg, true);
			c->planar_within_fn = geoidx_function_oid("st_within", postgis, 2, gg, true);
			c->pg_box2d_fn = geoidx_function_oid("box2d", postgis, 1, gg, true);
			c->pg_geog_knn_op = geoidx_operator_oid("<->", g, g, postgis, true);
			c->pg_geog_knn_fn =
				OidIsValid(c->pg_geog_knn_op) ? get_opcode(c->pg_geog_knn_op) : InvalidOid;
			c->sphere_knn_op = geoidx_operator_oid("<~~>", gg[0], gg[1], ours, true);
			c->planar_knn_op = geoidx_operator_oid("<->", gg[0], gg[1], postgis, true);
			c->planar_coveredby_fn = geoidx_function_oid("st_coveredby", postgis, 2, gg, true);
			const Oid ggr[3] = {c->geometry_type, c->geometry_type, FLOAT8OID};
			c->planar_dwithin_fn = geoidx_function_oid("st_dwithin", postgis, 3, ggr, true);
			const Oid gr[2] = {c->geometry_type, FLOAT8OID};
			c->pg_expand_fn = geoidx_function_oid("st_expand", postgis, 2, gr, true);
			c->box_within_op = geoidx_operator_oid("@", gg[0], gg[1], postgis, true);
			c->box_contains_op = geoidx_operator_oid("~", gg[0], gg[1], postgis, true);
			c->gx_planar_contains_fn =
				geoidx_function_oid("geoidx_planar_contains", ours, 2, gg, true);
			c->gx_planar_within_fn = geoidx_function_oid("geoidx_planar_within", ours, 2, gg, true);
			c->gx_planar_covers_fn = geoidx_function_oid("geoidx_planar_covers", ours, 2, gg, true);
			c->gx_planar_coveredby_fn =
				geoidx_function_oid("geoidx_planar_coveredby", ours, 2, gg, true);
			c->gx_planar_dwithin_fn =
				geoidx_function_oid("geoidx_planar_dwithin", ours, 3, ggr, true);
			const Oid t = c->geometry_type;
			c->planar_contains_op = geoidx_operator_oid("##@>", t, t, ours, true);
			c->planar_within_op = geoidx_operator_oid("##<@", t, t, ours, true);
			c->planar_covers_op = geoidx_operator_oid("##~@>", t, t, ours, true);
			c->planar_intersects_op = geoidx_operator_oid("##&&", t, t, ours, true);
		}
		c->geoidx_am = get_am_oid("geoidx", true);
	}
	c->present = OidIsValid(c->distance_op[0]) && OidIsValid(c->beyond_fn[0]);
	c->complete = OidIsValid(c->geometry_type) && OidIsValid(c->circle_type) &&
				  OidIsValid(c->circle_fn[0]) && OidIsValid(c->box_fn) &&
				  OidIsValid(c->within_op[0]) && OidIsValid(c->overlap_op[0]) &&
				  OidIsValid(c->float8_plus_op);
	c->valid = true;
}

/*
 * Raise the error of the first object geoidx_catalog() needs that is missing,
 * by looking them up again in order, each with the error of its own lookup.
 */
void
report_missing(void)
{
	Oid ours = extension_schema("geoidx");
	Oid postgis = extension_schema("postgis");
	Oid geometry = type_oid("geometry", postgis, false);
	Oid circle = type_oid("geoidx_circle", ours, false);
	const Oid circle3[3] = {geometry, FLOAT8OID, BOOLOID};
	geoidx_function_oid("geoidx_circle", ours, 3, circle3, false);
	geoidx_function_oid("geoidx_search_box", ours, 3, circle3, false);
	geoidx_operator_oid("<@", geometry, circle, ours, false);
	geoidx_operator_oid("&&", geometry, geometry, postgis, false);
	geoidx_operator_oid("+", FLOAT8OID, FLOAT8OID, PG_CATALOG_NAMESPACE, false);
	elog(ERROR, "geoidx: catalog lookups disagree");
}

/* Return the cache, loaded; registers the invalidation callbacks on first use. */
GeoidxCatalog *
loaded_catalog(void)
{
	if (!callbacks_registered)
	{
		CacheRegisterSyscacheCallback(PROCOID, invalidate_catalog, (Datum) 0);
		CacheRegisterSyscacheCallback(OPEROID, invalidate_catalog, (Datum) 0);
		callbacks_registered = true;
	}
	if (!catalog.valid)
		load_catalog(&catalog);
	return &catalog;
}

} // namespace

/* Return the OID of a function by exact signature in one schema. */
Oid
geoidx_function_oid(const char *name, Oid nsp, int nargs, const Oid *argtypes, bool missing_ok)
{
	oidvector *args = buildoidvector(argtypes, nargs);
	Oid f = GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid, CStringGetDatum(name),
							PointerGetDatum(args), ObjectIdGetDatum(nsp));
	if (!OidIsValid(f) && !missing_ok)
		elog(ERROR, "geoidx: function %s.%s not found", get_namespace_name(nsp), name);
	return f;
}

/* Return the OID of an operator by exact operand types in one schema. */
Oid
geoidx_operator_oid(const char *name, Oid left, Oid right, Oid nsp, bool missing_ok)
{
	Oid o = GetSysCacheOid4(OPERNAMENSP, Anum_pg_operator_oid, CStringGetDatum(name),
							ObjectIdGetDatum(left), ObjectIdGetDatum(right), ObjectIdGetDatum(nsp));
	if (!OidIsValid(o) && !missing_ok)
		elog(ERROR, "geoidx: operator %s.%s not found", get_namespace_name(nsp), name);
	return o;
}

/* Return the catalog cache, whatever is installed; `present` says whether geoidx is. */
const GeoidxCatalog &
geoidx_catalog_if_present(void)
{
	return *loaded_catalog();
}

/* Return the catalog cache; raise an error if geoidx, PostGIS or an object of theirs is missing. */
const GeoidxCatalog &
geoidx_catalog(void)
{
	const GeoidxCatalog &c = *loaded_catalog();
	if (unlikely(!c.complete))
		report_missing();
	return c;
}

/* Return PostGIS's geometry type. */
Oid
geoidx_geometry_type(void)
{
	return geoidx_catalog().geometry_type;
}

/* Return PostGIS's geography type, or InvalidOid. */
Oid
geoidx_geography_type(void)
{
	return geoidx_catalog().geography_type;
}

/*
 * Return PostGIS's ST_MakeEnvelope, set up once per backend. It needs PostGIS
 * only, not geoidx's objects; when missing, the lookup by name raises its own
 * error.
 */
const FmgrInfo *
geoidx_envelope_function(void)
{
	GeoidxCatalog *c = loaded_catalog();
	if (!c->envelope_ready)
	{
		Oid fn = c->envelope_fn;
		if (!OidIsValid(fn))
		{
			const Oid envelope5[5] = {FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, INT4OID};
			Oid nsp = extension_schema("postgis");
			List *name = list_make2(makeString(get_namespace_name(nsp)),
									makeString(pstrdup("st_makeenvelope")));
			fn = LookupFuncName(name, 5, envelope5, false);
		}
		fmgr_info_cxt(fn, &c->envelope, TopMemoryContext);
		c->envelope_ready = true;
	}
	return &c->envelope;
}
