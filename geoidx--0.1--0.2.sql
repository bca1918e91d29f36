-- geoidx 0.1 -> 0.2 (ALTER EXTENSION geoidx UPDATE). The on-disk format is
-- unchanged (3): 0.1's indexes are read and written as they are. New in 0.2:
-- the version functions. Objects are created exactly as geoidx--0.2.sql
-- creates them (test/upgrade/run compares the two catalogs).

\echo Use "ALTER EXTENSION geoidx UPDATE TO '0.2'" to load this file. \quit

-- The same search_path rule as geoidx--0.2.sql (see there why).
SELECT pg_catalog.set_config('search_path',
	pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) ', pg_temp', true)
FROM pg_catalog.pg_extension e
	JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
WHERE e.extname OPERATOR(pg_catalog.=) 'postgis';

-- Versions (0.2; README: versions and upgrades): the library's release, the
-- on-disk format it reads and writes, and the format an index was written in,
-- so that after an upgrade a query can list the indexes to REINDEX.
CREATE FUNCTION @extschema@.geoidx_lib_version()
	RETURNS text
	AS 'MODULE_PATHNAME', 'geoidx_lib_version'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_lib_format()
	RETURNS integer
	AS 'MODULE_PATHNAME', 'geoidx_lib_format'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_index_format(index regclass)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'geoidx_index_format'
	LANGUAGE C STRICT PARALLEL RESTRICTED;
