-- A smoke test of an installed geoidx: the extension comes with PostGIS, the
-- library is the release's, an index is built and used, and its answers are
-- PostGIS geography's. psql -v release=X.Y.Z names the release.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION geoidx CASCADE;
SELECT set_config('smoke.release', :'release', false) IS NOT NULL AS release_set;

CREATE TABLE smoke (id int PRIMARY KEY, pos geometry(Point, 4326));
SELECT setseed(0.5);
INSERT INTO smoke SELECT i, ST_SetSRID(ST_MakePoint(360 * random() - 180, 180 * random() - 90), 4326)
FROM generate_series(1, 50000) i;
CREATE INDEX smoke_pos ON smoke USING geoidx (pos);
ANALYZE smoke;

SET client_min_messages = notice;
DO $$
DECLARE
	c constant text := 'SRID=4326;POINT(179 -60)';
	plan text := '';
	line text;
	got_ids text;
	got_knn text;
	want_ids text;
	want_knn text;
BEGIN
	IF geoidx_lib_version() <> current_setting('smoke.release') THEN
		RAISE EXCEPTION 'the installed library is release %, not %', geoidx_lib_version(),
			current_setting('smoke.release');
	END IF;
	SET LOCAL enable_seqscan = off;
	FOR line IN EXECUTE format('EXPLAIN SELECT id FROM smoke WHERE geoidx_dwithin(pos, %L, 800000)', c) LOOP
		plan := plan || line || E'\n';
	END LOOP;
	IF plan NOT LIKE '%Index%Scan%smoke_pos%' THEN
		RAISE EXCEPTION 'the radius query does not use smoke_pos: %', plan;
	END IF;
	SELECT string_agg(id::text, ',' ORDER BY id) INTO got_ids FROM smoke
	WHERE geoidx_dwithin(pos, c::geometry, 800000);
	SELECT string_agg(d::text, ',') INTO got_knn FROM (SELECT pos <~> c::geometry AS d
		FROM smoke ORDER BY pos <~> c::geometry LIMIT 20) s;
	SET LOCAL enable_seqscan = on;
	SET LOCAL enable_indexscan = off;
	SET LOCAL enable_bitmapscan = off;
	SELECT string_agg(id::text, ',' ORDER BY id) INTO want_ids FROM smoke
	WHERE ST_DWithin(pos::geography, c::geography, 800000);
	SELECT string_agg(d::text, ',') INTO want_knn FROM (SELECT ST_Distance(pos::geography,
		c::geography) AS d FROM smoke ORDER BY 1 LIMIT 20) s;
	IF got_ids IS DISTINCT FROM want_ids OR got_ids IS NULL THEN
		RAISE EXCEPTION 'radius ids % differ from PostGIS %', got_ids, want_ids;
	END IF;
	IF got_knn IS DISTINCT FROM want_knn THEN
		RAISE EXCEPTION 'k-NN distances % differ from PostGIS %', got_knn, want_knn;
	END IF;
	RAISE NOTICE 'smoke test passed: release %, index used, % radius rows and 20 k-NN distances equal PostGIS geography',
		geoidx_lib_version(), array_length(string_to_array(got_ids, ','), 1);
END $$;
