-- Security (issue 3): the SQL surface's markings, search_path hijacking at
-- CREATE EXTENSION time and at query time, and a plain role that uses geoidx
-- end to end with no superuser help. Everything it creates is dropped at the end.
SET client_min_messages = warning;
SET jit = off;

-- Every function: no SECURITY DEFINER, no proconfig, and the markings the
-- planner and parallel query rely on (i = immutable, s = stable, v = volatile;
-- s = parallel safe, r = restricted, u = unsafe).
SELECT p.oid::regprocedure AS function, p.provolatile AS vol, p.proisstrict AS strict, p.proparallel AS par,
	p.prosecdef AS secdef, p.proconfig AS config
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'geoidx'
ORDER BY p.oid::regprocedure::text;
-- every geometry they take or return is PostGIS's own type
SELECT count(*) AS geometry_args_not_postgis
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'geoidx',
	LATERAL unnest(p.proargtypes || p.prorettype) t(typ) JOIN pg_type ty ON ty.oid = t.typ
WHERE ty.typname = 'geometry'
	AND ty.typnamespace <> (SELECT extnamespace FROM pg_extension WHERE extname = 'postgis');

-- A planted "geometry": someone who may CREATE in the schema geoidx is
-- installed into puts a domain over PostGIS's geometry there, whose CHECK
-- records who runs it. The script must not pick it up (it would then run as
-- every caller of geoidx, superusers included).
DROP EXTENSION geoidx;
CREATE ROLE regress_geoidx_planter;
CREATE SCHEMA regress_geoidx_app AUTHORIZATION regress_geoidx_planter;
SET ROLE regress_geoidx_planter;
CREATE TABLE regress_geoidx_app.caught (who name);
CREATE FUNCTION regress_geoidx_app.spy(public.geometry) RETURNS boolean LANGUAGE sql
	AS $$ INSERT INTO regress_geoidx_app.caught VALUES (current_user); SELECT true $$;
CREATE DOMAIN regress_geoidx_app.geometry AS public.geometry CHECK (regress_geoidx_app.spy(VALUE));
RESET ROLE;
CREATE EXTENSION geoidx SCHEMA regress_geoidx_app;
SELECT count(*) AS functions_on_the_domain
FROM pg_proc p, unnest(p.proargtypes || p.prorettype) t(typ)
WHERE p.pronamespace = 'regress_geoidx_app'::regnamespace AND t.typ = 'regress_geoidx_app.geometry'::regtype;
SELECT opcintype::regtype AS opclass_type FROM pg_opclass WHERE opcname = 'geoidx_geometry_ops';
SELECT round(regress_geoidx_app.geoidx_distance('SRID=4326;POINT(0 0)', 'SRID=4326;POINT(1 1)')) AS metres;
SELECT count(*) AS spy_calls FROM regress_geoidx_app.caught;
-- CREATE EXTENSION gave the caller's search_path back
SHOW search_path;
DROP EXTENSION geoidx;
DROP SCHEMA regress_geoidx_app CASCADE;
DROP ROLE regress_geoidx_planter;
CREATE EXTENSION geoidx;

-- A plain role, no superuser, no special grant: its own schema, table, index,
-- writes (with page splits), queries, VACUUM, REINDEX, CLUSTER, geoidx_verify
-- and geoidx_stats.
CREATE ROLE regress_geoidx_owner;
CREATE ROLE regress_geoidx_reader;
CREATE ROLE regress_geoidx_stranger;
CREATE SCHEMA regress_geoidx_sec AUTHORIZATION regress_geoidx_owner;
SET ROLE regress_geoidx_owner;
SELECT rolsuper FROM pg_roles WHERE rolname = current_user;
SET search_path = regress_geoidx_sec, public;
CREATE TABLE outlets (id int PRIMARY KEY, pos geometry(Point, 4326));
INSERT INTO outlets SELECT i, ST_SetSRID(ST_MakePoint((i * 37) % 360 - 180, (i * 11) % 170 - 85), 4326)
FROM generate_series(1, 500) i;
CREATE INDEX outlets_pos ON outlets USING geoidx (pos);
INSERT INTO outlets SELECT i, ST_SetSRID(ST_MakePoint((i * 37) % 360 - 180 + 0.5, (i * 11) % 170 - 85 + 0.25), 4326)
FROM generate_series(501, 5000) i;
SELECT depth >= 2 AS split, entries FROM geoidx_stats('outlets_pos');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 10)', 1e6);
SELECT (SELECT array_agg(id ORDER BY id) FROM outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 10)', 1e6))
	 = (SELECT array_agg(id ORDER BY id) FROM outlets WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(10 10)'::geography, 1e6)) AS radius_same;
SELECT (SELECT array_agg(d) FROM (SELECT pos <~> 'SRID=4326;POINT(10 10)' AS d FROM outlets ORDER BY pos <~> 'SRID=4326;POINT(10 10)' LIMIT 20) s)
	 = (SELECT array_agg(d) FROM (SELECT ST_Distance(pos::geography, 'SRID=4326;POINT(10 10)'::geography) AS d FROM outlets ORDER BY 1 LIMIT 20) s) AS knn_same;
RESET enable_seqscan;
RESET enable_bitmapscan;
DELETE FROM outlets WHERE id % 4 = 0;
VACUUM outlets;
SELECT geoidx_verify('outlets_pos');
REINDEX INDEX outlets_pos;
CLUSTER outlets USING outlets_pos;
CREATE INDEX CONCURRENTLY outlets_pos2 ON outlets USING geoidx (pos);
SELECT geoidx_verify('outlets_pos'), geoidx_verify('outlets_pos2');
DROP INDEX outlets_pos2;
CREATE TEMP TABLE t (pos geometry(Point, 4326));
CREATE INDEX ON t USING geoidx (pos);
INSERT INTO t SELECT pos FROM outlets;
CREATE UNLOGGED TABLE u (pos geometry(Point, 4326));
CREATE INDEX u_pos ON u USING geoidx (pos);
INSERT INTO u SELECT pos FROM outlets;
SELECT geoidx_verify('u_pos');
SELECT (SELECT count(*) FROM t WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(0 0)', 3e6))
	 = (SELECT count(*) FROM u WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(0 0)'::geography, 3e6)) AS temp_and_unlogged;
DROP TABLE t;

-- search_path hijacking at query time: the role plants look-alikes of what
-- geoidx's C code calls (PostGIS's ST_MakeEnvelope and &&, geoidx's <@ and
-- geoidx_circle) first in its search_path; geoidx must keep using the real ones.
CREATE FUNCTION st_makeenvelope(float8, float8, float8, float8, int4) RETURNS geometry LANGUAGE sql IMMUTABLE
	AS $$ SELECT 'SRID=4326;POINT(0 0)'::public.geometry $$;
CREATE FUNCTION fake_overlap(geometry, geometry) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$ SELECT false $$;
CREATE OPERATOR && (LEFTARG = geometry, RIGHTARG = geometry, FUNCTION = fake_overlap);
CREATE FUNCTION geoidx_circle(geometry, float8, boolean) RETURNS public.geoidx_circle LANGUAGE sql IMMUTABLE
	AS $$ SELECT 'CIRCLE(0 0, 0)'::public.geoidx_circle $$;
CREATE FUNCTION fake_within(geometry, public.geoidx_circle) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$ SELECT false $$;
CREATE OPERATOR <@ (LEFTARG = geometry, RIGHTARG = public.geoidx_circle, FUNCTION = fake_within);
SELECT ST_AsText(geoidx_search_box('SRID=4326;POINT(10 50)', 100000), 3) AS search_box;
CREATE TABLE g (id int, pos geometry(Point, 4326));
INSERT INTO g SELECT id, pos FROM outlets;
CREATE INDEX g_gist ON g USING gist (pos);
ANALYZE g;
SET enable_seqscan = off;
-- the index conditions the planner support function builds name PostGIS's && and geoidx's own function
EXPLAIN (COSTS OFF) SELECT id FROM g WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 10)', 1e6);
SELECT count(*) = (SELECT count(*) FROM g WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(10 10)'::geography, 1e6)) AS gist_same
FROM g WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 10)', 1e6);
EXPLAIN (COSTS OFF) SELECT id FROM outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 10)', 1e6);
SELECT count(*) = (SELECT count(*) FROM outlets WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(10 10)'::geography, 1e6)) AS geoidx_same
FROM outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 10)', 1e6);
RESET enable_seqscan;
GRANT USAGE ON SCHEMA regress_geoidx_sec TO regress_geoidx_reader, regress_geoidx_stranger;
GRANT SELECT ON outlets TO regress_geoidx_reader;
RESET ROLE;

-- A role that may read the table: queries and geoidx_stats, but geoidx_verify
-- (which locks the table against writes) is the owner's.
SET ROLE regress_geoidx_reader;
SET enable_seqscan = off;
SELECT count(*) AS reader_rows FROM regress_geoidx_sec.outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 10)', 1e6);
RESET enable_seqscan;
SELECT entries > 0 AS reader_stats FROM geoidx_stats('regress_geoidx_sec.outlets_pos');
SELECT geoidx_index_format('regress_geoidx_sec.outlets_pos') = geoidx_lib_format() AS reader_format;
SELECT geoidx_verify('regress_geoidx_sec.outlets_pos');
INSERT INTO regress_geoidx_sec.outlets VALUES (0, 'SRID=4326;POINT(0 0)');
RESET ROLE;
-- A role with no right on the table: neither function (both check before any lock).
SET ROLE regress_geoidx_stranger;
SELECT geoidx_stats('regress_geoidx_sec.outlets_pos');
SELECT geoidx_index_format('regress_geoidx_sec.outlets_pos');
SELECT geoidx_verify('regress_geoidx_sec.outlets_pos');
RESET ROLE;

RESET search_path;
DROP SCHEMA regress_geoidx_sec CASCADE;
DROP ROLE regress_geoidx_owner;
DROP ROLE regress_geoidx_reader;
DROP ROLE regress_geoidx_stranger;
SELECT count(*) AS roles_left FROM pg_roles WHERE rolname LIKE 'regress_geoidx%';
