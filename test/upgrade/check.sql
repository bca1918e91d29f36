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
		PERFORM pg_temp.same(phase, 'pts_pos',
			format($q$SELECT string_agg(id::text, ',' ORDER BY id) FROM pts
				WHERE geoidx_dwithin(pos, 'SRID=4326;%s', %s)$q$, c.wkt, c.r),
			format($q$SELECT string_agg(id::text, ',' ORDER BY id) FROM pts
				WHERE ST_DWithin(pos::geography, 'SRID=4326;%s'::geography, %s)$q$, c.wkt, c.r));
		PERFORM pg_temp.same(phase, 'pts_pos',
			format($q$SELECT string_agg(d::text, ',') FROM (SELECT pos <~> 'SRID=4326;%s' AS d
				FROM pts ORDER BY pos <~> 'SRID=4326;%s' LIMIT 25) s$q$, c.wkt, c.wkt),
			format($q$SELECT string_agg(d::text, ',') FROM (SELECT d FROM (SELECT
				ST_Distance(pos::geography, 'SRID=4326;%s'::geography) AS d FROM pts) a
				WHERE d IS NOT NULL ORDER BY d LIMIT 25) s$q$, c.wkt));
		PERFORM pg_temp.same(phase, 'pts_pos_cat',
			format($q$SELECT string_agg(d::text, ',') FROM (SELECT
				pos <~> 'SRID=4326;%s' AS d FROM pts WHERE cat = 7
				ORDER BY pos <~> 'SRID=4326;%s' LIMIT 10) s$q$, c.wkt, c.wkt),
			format($q$SELECT string_agg(d::text, ',') FROM (SELECT
				ST_Distance(pos::geography, 'SRID=4326;%s'::geography) AS d FROM pts
				WHERE cat = 7 AND pos IS NOT NULL ORDER BY 1 LIMIT 10) s$q$, c.wkt));
		PERFORM pg_temp.same(phase, 'geog_pos',
			format($q$SELECT string_agg(id::text, ',' ORDER BY id) FROM geog
				WHERE geoidx_dwithin(pos, 'SRID=4326;%s'::geography, %s)$q$, c.wkt, c.r),
			format($q$SELECT string_agg(id::text, ',' ORDER BY id) FROM geog
				WHERE ST_DWithin(pos, 'SRID=4326;%s'::geography, %s)$q$, c.wkt, c.r));
		PERFORM pg_temp.same(phase, 'part_1_pos_idx',
			format($q$SELECT string_agg(d::text, ',') FROM (SELECT pos <~> 'SRID=4326;%s' AS d
				FROM part ORDER BY pos <~> 'SRID=4326;%s' LIMIT 25) s$q$, c.wkt, c.wkt),
			format($q$SELECT string_agg(d::text, ',') FROM (SELECT d FROM (SELECT
				ST_Distance(pos::geography, 'SRID=4326;%s'::geography) AS d FROM part) a
				WHERE d IS NOT NULL ORDER BY d LIMIT 25) s$q$, c.wkt));
		PERFORM pg_temp.same(phase, 'unlogged_pos',
			format($q$SELECT string_agg(id::text, ',' ORDER BY id) FROM unlogged
				WHERE geoidx_dwithin(pos, 'SRID=4326;%s', %s)$q$, c.wkt, c.r),
			format($q$SELECT string_agg(id::text, ',' ORDER BY id) FROM unlogged
				WHERE ST_DWithin(pos::geography, 'SRID=4326;%s'::geography, %s)$q$, c.wkt, c.r));
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
