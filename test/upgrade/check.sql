-- One phase of the upgrade test: every index still used, its answers equal to
-- PostGIS's (computed with no index at all), writes through the loaded library,
-- and each index verified. psql -v phase=... names the phase in the messages.
\set ON_ERROR_STOP on
SET client_min_messages = warning;

-- Run q (which must use an index named idx) and PostGIS's ref with no index
-- scans; their answers (as one text each) must be equal.
CREATE OR REPLACE FUNCTION pg_temp.same(phase text, idx text, q text, ref text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	plan text;
	got text;
	want text;
BEGIN
	FOR plan IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		EXIT WHEN plan LIKE '%Index%Scan%' || idx || '%';
		plan := NULL;
	END LOOP;
	IF plan IS NULL THEN
		RAISE EXCEPTION '%: the query does not use index %: %', phase, idx, q;
	END IF;
	EXECUTE q INTO got;
	SET LOCAL enable_indexscan = off;
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_indexonlyscan = off;
	EXECUTE ref INTO want;
	RESET enable_indexscan;
	RESET enable_bitmapscan;
	RESET enable_indexonlyscan;
	IF got IS DISTINCT FROM want OR got IS NULL THEN
		RAISE EXCEPTION '%: index % answers % where PostGIS answers %; query: %',
			phase, idx, left(got, 200), left(want, 200), q;
	END IF;
END $$;

-- The ids within r metres of wkt from table tbl (geometry, or geography when
-- geog): geoidx's on index idx against ST_DWithin's.
CREATE OR REPLACE FUNCTION pg_temp.radius(phase text, idx text, tbl text, geog bool, wkt text, r int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	centre text := format('%L', 'SRID=4326;' || wkt) || CASE WHEN geog THEN '::geography' ELSE '' END;
	col text := CASE WHEN geog THEN 'pos' ELSE 'pos::geography' END;
BEGIN
	PERFORM pg_temp.same(phase, idx,
		format('SELECT string_agg(id::text, '','' ORDER BY id) FROM %I WHERE geoidx_dwithin(pos, %s, %s)',
			tbl, centre, r),
		format('SELECT string_agg(id::text, '','' ORDER BY id) FROM %I WHERE ST_DWithin(%s, %L::geography, %s)',
			tbl, col, 'SRID=4326;' || wkt, r));
END $$;

-- The k nearest distances to wkt in geometry table tbl where filter holds:
-- geoidx's on index idx against ORDER BY ST_Distance's.
CREATE OR REPLACE FUNCTION pg_temp.knn(phase text, idx text, tbl text, filter text, wkt text, k int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	centre text := format('%L', 'SRID=4326;' || wkt);
BEGIN
	PERFORM pg_temp.same(phase, idx,
		format('SELECT string_agg(d::text, '','') FROM (SELECT pos <~> %s AS d FROM %I WHERE %s
			ORDER BY pos <~> %s LIMIT %s) s', centre, tbl, filter, centre, k),
		format('SELECT string_agg(d::text, '','') FROM (SELECT d FROM (SELECT
			ST_Distance(pos::geography, %s::geography) AS d FROM %I WHERE %s) a
			WHERE d IS NOT NULL ORDER BY d LIMIT %s) s', centre, tbl, filter, k));
END $$;

-- Radius ids, nearest-k distances and a filtered nearest-k on each index, at
-- centres on the antimeridian, near the pole and in the dense cluster.
CREATE OR REPLACE FUNCTION pg_temp.check_all(phase text) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	c record;
	n int := 0;
BEGIN
	FOR c IN SELECT * FROM (VALUES ('POINT(180 0)', 300000), ('POINT(-20 89)', 200000),
			('POINT(3 49)', 20000), ('POINT(-179.9 30)', 150000)) v(wkt, r) LOOP
		PERFORM pg_temp.radius(phase, 'pts_pos', 'pts', false, c.wkt, c.r);
		PERFORM pg_temp.knn(phase, 'pts_pos', 'pts', 'true', c.wkt, 25);
		PERFORM pg_temp.knn(phase, 'pts_pos_cat', 'pts', 'cat = 7', c.wkt, 10);
		PERFORM pg_temp.radius(phase, 'geog_pos', 'geog', true, c.wkt, c.r);
		PERFORM pg_temp.knn(phase, 'part_1_pos_idx', 'part', 'true', c.wkt, 25);
		PERFORM pg_temp.radius(phase, 'unlogged_pos', 'unlogged', false, c.wkt, c.r);
		n := n + 6;
	END LOOP;
	RETURN n;
END $$;

-- Writes through this phase's library into the indexes the old one built.
INSERT INTO pts
SELECT i, i % 50, 'w' || i, ST_SetSRID(ST_MakePoint(3 + random() / 10, 49 + random() / 10), 4326)
FROM generate_series((SELECT max(id) + 1 FROM pts), (SELECT max(id) + 500 FROM pts)) i;
UPDATE pts SET pos = ST_SetSRID(ST_MakePoint(179.9, 0.1 * (id % 100)), 4326) WHERE id % 101 = 0;
DELETE FROM pts WHERE id % 103 = 0;
INSERT INTO geog SELECT (SELECT max(id) FROM geog) + row_number() OVER (), pos::geography
FROM pts WHERE id % 211 = 0 AND pos IS NOT NULL;
INSERT INTO part SELECT id + 10000, pos FROM pts WHERE id < 300;
INSERT INTO unlogged SELECT (SELECT max(id) FROM unlogged) + row_number() OVER (), pos FROM pts WHERE id % 7 = 1;
VACUUM pts;
ANALYZE;

SELECT pg_temp.check_all(:'phase') AS "comparisons with PostGIS";
WITH geoidx_indexes AS MATERIALIZED (
	SELECT c.oid FROM pg_class c JOIN pg_am a ON a.oid = c.relam
	WHERE a.amname = 'geoidx' AND c.relkind = 'i')
SELECT count(geoidx_verify(oid::regclass)) AS "indexes verified" FROM geoidx_indexes;
