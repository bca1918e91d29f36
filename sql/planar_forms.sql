-- PostGIS's planar (geometry, degrees) forms as apps send them for a GiST
-- index (issue 11), on a geoidx index instead: the box operators && @ ~ (the
-- map viewport; in geoidx's operator family, no rewrite), and ST_Within,
-- ST_Contains, ST_Covers, ST_CoveredBy, ST_Intersects and ST_DWithin in
-- degrees with the column on either side (the rewrite). Each form's rows
-- through a geoidx index against PostGIS's own answer (no index scan, the
-- rewrite off), on points and on shapes, around the antimeridian and the
-- poles, with raw coordinates a turn away or beyond a pole, NULL, EMPTY,
-- SRID 0, boxes of NaN, of huge and of tiny size, and parameters.
SET client_min_messages = warning;
SET geoidx.rewrite_postgis = on;
CREATE TABLE vpts (id int PRIMARY KEY, pos geometry);
-- a lattice over the whole sphere, poles and both sides of the antimeridian
INSERT INTO vpts SELECT 10000 + 1000 * i + j, ST_SetSRID(ST_MakePoint(-180 + i * 7.5, -90 + j * 5), 4326)
	FROM generate_series(0, 48) i, generate_series(0, 36) j;
-- a dense city whose coordinates are not floats: the float rounding of the boxes decides
INSERT INTO vpts SELECT 100000 + 100 * i + j, ST_SetSRID(ST_MakePoint(-74.1 + i * 0.004, 40.6 + j * 0.004), 4326)
	FROM generate_series(0, 49) i, generate_series(0, 49) j;
INSERT INTO vpts VALUES (1, NULL), (2, 'SRID=4326;POINT EMPTY'), (3, 'POINT(-73.95 40.7)'),  -- SRID 0
	(4, 'SRID=4326;POINT(190 10)'), (5, 'SRID=4326;POINT(-180 10)'), (6, 'SRID=4326;POINT(180 10.01)'),
	(7, 'SRID=4326;POINT(10 95)'), (8, 'SRID=4326;POINT(-190 -10)'), (9, 'SRID=4326;POINT(550 20)'),
	(10, 'SRID=4326;POINT(-73.96 40.724)'), (11, 'SRID=4326;POINT(33 90)'), (12, 'SRID=4326;POINT(12 -100)');
CREATE INDEX vpts_pos ON vpts USING geoidx (pos);

CREATE TABLE vzones (id int PRIMARY KEY, shape geometry);
INSERT INTO vzones SELECT 10000 + i, ST_Buffer(ST_SetSRID(ST_MakePoint(-74.1 + (i % 20) * 0.01, 40.6 + (i / 20) * 0.01), 4326), 0.004, 2)
	FROM generate_series(0, 399) i;
INSERT INTO vzones SELECT 1000 + i, ST_Buffer(ST_SetSRID(ST_MakePoint(-170 + (i % 18) * 20, -80 + (i / 18) * 16), 4326), 3, 2)
	FROM generate_series(0, 179) i;
INSERT INTO vzones VALUES (1, NULL), (2, 'SRID=4326;POLYGON EMPTY'),
	(3, 'POLYGON((-74 40.65, -73.95 40.65, -73.95 40.7, -74 40.65))'),                                  -- SRID 0
	(4, 'SRID=4326;POLYGON((-74.05 40.6, -73.9 40.6, -73.9 40.75, -74.05 40.75, -74.05 40.6), (-74 40.65, -73.95 40.65, -73.95 40.7, -74 40.7, -74 40.65))'),
	(5, 'SRID=4326;POLYGON((179.5 9, 180.5 9, 180.5 11, 179.5 11, 179.5 9))'),                         -- raw across 180
	(6, 'SRID=4326;POLYGON((0 85, 90 85, 180 85, -90 85, 0 85))'),                                     -- round the north pole
	(7, 'SRID=4326;LINESTRING(-74.2 40.5, -73.7 40.9, -73.6 40.5)'),
	(8, 'SRID=4326;LINESTRING(170 -5, -170 5)'),
	(9, 'SRID=4326;POLYGON((0 80, 20 80, 20 100, 0 100, 0 80))'),                                       -- raw beyond the pole
	(10, 'SRID=4326;LINESTRING(10 0, 530 5)'),                                                          -- raw a turn away
	(11, 'SRID=4326;GEOMETRYCOLLECTION(POINT(-73.97 40.72), LINESTRING(-73.99 40.7, -73.98 40.71))'),
	(12, 'SRID=4326;MULTIPOINT((-73.96 40.71), (179.9 10))'), (13, 'SRID=4326;POINT(190 10)'),
	(14, 'SRID=4326;POLYGON((-73.97 40.71, -73.95 40.71, -73.95 40.73, -73.97 40.73, -73.97 40.71))');
CREATE INDEX vzones_shape ON vzones USING geoidx (shape);
ANALYZE vpts, vzones;

-- query boxes and shapes, all SRID 4326 (the functions raise an error for another SRID)
CREATE TABLE qgeoms (q text, boxes_only bool DEFAULT false);
INSERT INTO qgeoms (q) VALUES
	('SRID=4326;POLYGON((-74 40.65, -73.9 40.65, -73.9 40.75, -74 40.75, -74 40.65))'),
	('SRID=4326;POLYGON((-73.98 40.7, -73.94 40.7, -73.94 40.74, -73.98 40.74, -73.98 40.7))'),
	('SRID=4326;POLYGON((179 8, 181 8, 181 12, 179 12, 179 8))'),
	('SRID=4326;POLYGON((185 5, 195 5, 195 15, 185 15, 185 5))'),       -- raw beyond 180
	('SRID=4326;POLYGON((-175 5, -165 5, -165 15, -175 15, -175 5))'),  -- where 190 wraps to
	('SRID=4326;POLYGON((5 85, 15 85, 15 100, 5 100, 5 85))'),          -- beyond the pole
	('SRID=4326;POLYGON((-190 -100, 560 -100, 560 100, -190 100, -190 -100))'),
	('SRID=4326;POLYGON((-180 80, 180 80, 180 90, -180 90, -180 80))'),
	('SRID=4326;LINESTRING(-74.05 40.6, -73.85 40.8)'),
	('SRID=4326;POINT(-73.96 40.724)'), ('SRID=4326;POINT(190 10)'),
	('SRID=4326;MULTIPOINT((-73.96 40.71), (179.9 10))'),
	('SRID=4326;POLYGON EMPTY');
-- what only the box operators take: PostGIS's functions raise an error for these
INSERT INTO qgeoms VALUES ('SRID=4326;POLYGON((NaN 0, NaN 1, 1 1, 1 0, NaN 0))', true), -- a box of NaN: EMPTY to &&
	('SRID=4326;POLYGON((-73.96 40.724, -73.96 40.724, -73.96 40.724, -73.96 40.724))', true), -- a box that is a point
	('POLYGON((-74 40.65, -73.9 40.65, -73.9 40.75, -74 40.75, -74 40.65))', true),  -- SRID 0
	('SRID=3857;POLYGON((-74 40.65, -73.9 40.65, -73.9 40.75, -74 40.75, -74 40.65))', true);
INSERT INTO qgeoms SELECT ST_AsEWKT(ST_Transform(ST_TileEnvelope(z, x, y, margin => 1.0), 4326))
	FROM (VALUES (4, 4, 6), (10, 301, 384), (14, 4824, 6158), (2, 0, 1), (2, 3, 1)) t(z, x, y); -- map viewports

CREATE FUNCTION uses_geoidx(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE p json;
BEGIN
	SET LOCAL enable_seqscan = off;
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO p;
	RESET enable_seqscan;
	RETURN p::text ~ '"Index Name": "(vpts_pos|vzones_shape)"';
END $$;
CREATE FUNCTION rows_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	EXECUTE format('SELECT string_agg(x::text, '','' ORDER BY x) FROM (%s) s(x)', q) INTO r;
	RETURN coalesce(r, '');
END $$;

-- PostGIS's answer: no index scan of any kind and no rewrite; geoidx's: the
-- index forced (no sequential scan), each way once as a plain and once as a bitmap scan.
CREATE TABLE results (form text, tbl text, queries int, rows bigint, differ int, no_geoidx int);
CREATE FUNCTION check_form(form text, radii text[] DEFAULT '{0}') RETURNS void LANGUAGE plpgsql AS $$
DECLARE t text[]; a text; r text; q text; want text; got text; n int; rws bigint; bad int; noidx int;
BEGIN
	FOREACH t SLICE 1 IN ARRAY ARRAY[['vpts', 'pos'], ['vzones', 'shape']] LOOP
		n := 0; rws := 0; bad := 0; noidx := 0;
		FOR a IN SELECT qgeoms.q FROM qgeoms WHERE form NOT LIKE 'ST_%' OR NOT boxes_only LOOP
			FOREACH r IN ARRAY radii LOOP
				q := format('SELECT id FROM %s WHERE ' || format(form, t[2], quote_literal(a) || '::geometry', r), t[1]);
				PERFORM set_config('geoidx.rewrite_postgis', 'off', true);
				PERFORM set_config('enable_indexscan', 'off', true);
				PERFORM set_config('enable_bitmapscan', 'off', true);
				PERFORM set_config('enable_indexonlyscan', 'off', true);
				want := rows_of(q);
				PERFORM set_config('geoidx.rewrite_postgis', 'on', true);
				PERFORM set_config('enable_seqscan', 'off', true);
				PERFORM set_config('enable_indexscan', 'on', true);
				PERFORM set_config('enable_indexonlyscan', 'on', true);
				got := rows_of(q);
				IF want IS DISTINCT FROM got THEN bad := bad + 1; RAISE WARNING 'differs (index scan): %', q; END IF;
				PERFORM set_config('enable_indexscan', 'off', true);
				PERFORM set_config('enable_indexonlyscan', 'off', true);
				PERFORM set_config('enable_bitmapscan', 'on', true);
				got := rows_of(q);
				IF want IS DISTINCT FROM got THEN bad := bad + 1; RAISE WARNING 'differs (bitmap scan): %', q; END IF;
				PERFORM set_config('enable_indexscan', 'on', true);
				PERFORM set_config('enable_indexonlyscan', 'on', true);
				PERFORM set_config('enable_seqscan', 'on', true);
				n := n + 1;
				rws := rws + CASE WHEN want = '' THEN 0 ELSE array_length(string_to_array(want, ','), 1) END;
				IF NOT uses_geoidx(q) THEN noidx := noidx + 1; RAISE WARNING 'no geoidx: %', q; END IF;
			END LOOP;
		END LOOP;
		INSERT INTO results VALUES (form, t[1], n, rws, bad, noidx);
	END LOOP;
END $$;

-- the box operators, the column on either side
SELECT check_form('%1$s && %2$s');
SELECT check_form('%2$s && %1$s');
SELECT check_form('%1$s @ %2$s');
SELECT check_form('%2$s ~ %1$s');
SELECT check_form('%1$s ~ %2$s');
SELECT check_form('%2$s @ %1$s');
-- the predicates. The rows of SRID 0 go: PostGIS's functions raise an error
-- for them (a sequential scan reaches them; an index scan, GiST's too, where
-- the box keeps them), which the end of this file shows.
DELETE FROM vpts WHERE ST_SRID(pos) = 0;
DELETE FROM vzones WHERE ST_SRID(shape) = 0;
SELECT check_form('ST_Intersects(%1$s, %2$s)');
SELECT check_form('ST_Intersects(%2$s, %1$s)');
SELECT check_form('ST_Contains(%1$s, %2$s)');
SELECT check_form('ST_Contains(%2$s, %1$s)');
SELECT check_form('ST_Within(%1$s, %2$s)');
SELECT check_form('ST_Within(%2$s, %1$s)');
SELECT check_form('ST_Covers(%1$s, %2$s)');
SELECT check_form('ST_Covers(%2$s, %1$s)');
SELECT check_form('ST_CoveredBy(%1$s, %2$s)');
SELECT check_form('ST_CoveredBy(%2$s, %1$s)');
SELECT check_form('ST_DWithin(%1$s, %2$s, %3$s)', '{0, 0.01, 2.5}');
SELECT check_form('ST_DWithin(%2$s, %1$s, %3$s)', '{0.004, 30}');
-- ORDER BY col <-> g LIMIT k (planar degrees): the distance sequence, each
-- way; the rows of SRID 0 left out above, as <-> raises PostGIS's error for them
CREATE FUNCTION check_order(k int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE t text[]; a text; q text; want text; got text; n int; rws bigint; bad int; noidx int;
BEGIN
	FOREACH t SLICE 1 IN ARRAY ARRAY[['vpts', 'pos'], ['vzones', 'shape']] LOOP
		n := 0; rws := 0; bad := 0; noidx := 0;
		FOR a IN SELECT qgeoms.q FROM qgeoms WHERE NOT boxes_only LOOP
			q := format('SELECT %1$s <-> %2$s FROM %3$s ORDER BY %1$s <-> %2$s LIMIT %4$s', t[2], quote_literal(a) || '::geometry', t[1], k);
			PERFORM set_config('enable_indexscan', 'off', true);
			PERFORM set_config('enable_bitmapscan', 'off', true);
			EXECUTE format('SELECT string_agg(d::text, '','') FROM (%s) s(d)', q) INTO want;
			PERFORM set_config('enable_indexscan', 'on', true);
			PERFORM set_config('enable_bitmapscan', 'on', true);
			PERFORM set_config('enable_seqscan', 'off', true);
			EXECUTE format('SELECT string_agg(d::text, '','') FROM (%s) s(d)', q) INTO got;
			PERFORM set_config('enable_seqscan', 'on', true);
			IF want IS DISTINCT FROM got THEN bad := bad + 1; RAISE WARNING 'differs: %', q; END IF;
			n := n + 1;
			rws := rws + coalesce(array_length(string_to_array(want, ','), 1), 0);
			IF NOT uses_geoidx(q) THEN noidx := noidx + 1; RAISE WARNING 'no geoidx: %', q; END IF;
		END LOOP;
		INSERT INTO results VALUES (format('ORDER BY %%1$s <-> %%2$s LIMIT %s', k), t[1], n, rws, bad, noidx);
	END LOOP;
END $$;
SELECT check_order(1);
SELECT check_order(7);
SELECT check_order(300);
SELECT form, tbl, queries, rows > 0 AS found, differ, no_geoidx FROM results ORDER BY form, tbl;
SELECT sum(queries) AS queries, sum(rows) AS rows, sum(differ) AS differ FROM results;

-- EXPLAIN: the viewport as GiST shows it; the predicates with PostGIS's box condition
EXPLAIN (COSTS OFF) SELECT id FROM vpts WHERE pos && ST_MakeEnvelope(-74, 40.65, -73.9, 40.75, 4326);
EXPLAIN (COSTS OFF) SELECT id FROM vpts WHERE ST_Within(pos, 'SRID=4326;POLYGON((-74 40.65, -73.9 40.65, -73.9 40.75, -74 40.65))');
EXPLAIN (COSTS OFF) SELECT id FROM vzones WHERE ST_Contains('SRID=4326;POLYGON((-74 40.65, -73.9 40.65, -73.9 40.75, -74 40.65))', shape);
EXPLAIN (COSTS OFF) SELECT id FROM vpts WHERE ST_DWithin(pos, 'SRID=4326;POINT(-73.96 40.724)', 0.01);
EXPLAIN (COSTS OFF) SELECT id FROM vpts WHERE ST_CoveredBy(pos, 'SRID=4326;POLYGON((-74 40.65, -73.9 40.65, -73.9 40.75, -74 40.65))');
-- the nearest in degrees: an ordered geoidx scan, as GiST gives it (a point's distances exact, no recheck)
EXPLAIN (COSTS OFF) SELECT id FROM vpts ORDER BY pos <-> 'SRID=4326;POINT(-73.9613 40.7241)' LIMIT 5;
SELECT round((pos <-> 'SRID=4326;POINT(-73.9613 40.7241)')::numeric, 9) AS degrees FROM vpts ORDER BY pos <-> 'SRID=4326;POINT(-73.9613 40.7241)' LIMIT 5;
-- raw coordinates a turn away are near in degrees only where they are written
SELECT id FROM vpts ORDER BY pos <-> 'SRID=4326;POINT(189 10)' LIMIT 2;
SELECT id FROM vpts ORDER BY pos <-> 'SRID=4326;POINT(11 96)' LIMIT 2;
-- a count of a viewport: every point is decided in the index, no recheck
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM vpts WHERE pos && ST_MakeEnvelope(-74, 40.65, -73.9, 40.75, 4326);
RESET enable_seqscan;
-- the rewrite switched off: the call as written, no geoidx index
SET geoidx.rewrite_postgis = off;
EXPLAIN (COSTS OFF) SELECT id FROM vpts WHERE ST_Within(pos, 'SRID=4326;POLYGON((-74 40.65, -73.9 40.65, -73.9 40.75, -74 40.65))');
SET geoidx.rewrite_postgis = on;
-- a box of another SRID: && answers (it does not compare SRIDs), ST_Within raises PostGIS's error
SELECT count(*) FROM vpts WHERE pos && ST_MakeEnvelope(-74, 40.65, -73.9, 40.75, 3857);
\set VERBOSITY terse
SELECT count(*) FROM vpts WHERE ST_Within(pos, ST_MakeEnvelope(-74, 40.65, -73.9, 40.75, 3857));
-- a row of SRID 0 that the box keeps: PostGIS's error, as a sequential scan gives it
INSERT INTO vpts VALUES (3, 'POINT(-73.95 40.7)');
SELECT count(*) FROM vpts WHERE ST_Within(pos, ST_MakeEnvelope(-74, 40.65, -73.9, 40.75, 4326));
SET enable_indexscan = off; SET enable_bitmapscan = off; SET geoidx.rewrite_postgis = off;
SELECT count(*) FROM vpts WHERE ST_Within(pos, ST_MakeEnvelope(-74, 40.65, -73.9, 40.75, 4326));
RESET enable_indexscan; RESET enable_bitmapscan; SET geoidx.rewrite_postgis = on;
DELETE FROM vpts WHERE id = 3;
\set VERBOSITY default

-- parameters and generic plans (a map client's prepared viewport): the plan
-- reads the geoidx index, and the rows are PostGIS's
CREATE FUNCTION postgis_rows(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('geoidx.rewrite_postgis', 'off', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	RETURN rows_of(q);
END $$;
PREPARE viewport(geometry) AS SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '') AS ids FROM vpts WHERE pos && $1;
PREPARE inside(geometry) AS SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '') AS ids FROM vpts WHERE ST_Within(pos, $1);
PREPARE nearest(geometry) AS SELECT string_agg(d::text, ',') AS ids FROM (SELECT pos <-> $1 FROM vpts ORDER BY pos <-> $1 LIMIT 9) s(d);
PREPARE near(geometry, float8) AS SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '') AS ids FROM vzones WHERE ST_DWithin(shape, $1, $2);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE viewport('SRID=4326;POINT(0 0)');
EXPLAIN (COSTS OFF) EXECUTE inside('SRID=4326;POINT(0 0)');
EXPLAIN (COSTS OFF) EXECUTE near('SRID=4326;POINT(0 0)', 1);
EXECUTE viewport(ST_MakeEnvelope(-74, 40.65, -73.9, 40.75, 4326)) \gset
SELECT length(:'ids') > 0 AS found, :'ids' = postgis_rows('SELECT id FROM vpts WHERE pos && ST_MakeEnvelope(-74, 40.65, -73.9, 40.75, 4326)') AS same;
EXECUTE viewport(ST_MakeEnvelope(185, 5, 195, 15, 4326)) \gset
SELECT :'ids' AS ids, :'ids' = postgis_rows('SELECT id FROM vpts WHERE pos && ST_MakeEnvelope(185, 5, 195, 15, 4326)') AS same;
EXECUTE inside('SRID=4326;POLYGON((-74 40.65, -73.9 40.65, -73.9 40.75, -74 40.65))') \gset
SELECT length(:'ids') > 0 AS found, :'ids' = postgis_rows('SELECT id FROM vpts WHERE ST_Within(pos, ''SRID=4326;POLYGON((-74 40.65, -73.9 40.65, -73.9 40.75, -74 40.65))'')') AS same;
EXPLAIN (COSTS OFF) EXECUTE nearest('SRID=4326;POINT(0 0)');
EXECUTE nearest('SRID=4326;POINT(-73.9613 40.7241)') \gset
SELECT :'ids' = postgis_rows('SELECT string_agg(d::text, '','') FROM (SELECT pos <-> ''SRID=4326;POINT(-73.9613 40.7241)'' FROM vpts ORDER BY 1 LIMIT 9) s(d)') AS same;
EXECUTE near('SRID=4326;POINT(-73.96 40.724)', 0.02) \gset
SELECT length(:'ids') > 0 AS found, :'ids' = postgis_rows('SELECT id FROM vzones WHERE ST_DWithin(shape, ''SRID=4326;POINT(-73.96 40.724)'', 0.02)') AS same;
RESET plan_cache_mode;

-- An index-only scan cannot recheck distances: ordered by a shape (or by a
-- parameter, which may be one), a column that could be returned from the index
-- gets the plain index scan, which can; by a point, the index-only scan
-- (exact distances). Each: the order of PostGIS's own plan.
CREATE TABLE vtyped (id int PRIMARY KEY, pos geometry(Point, 4326));
INSERT INTO vtyped SELECT id, pos FROM vpts WHERE ST_SRID(pos) = 4326;
CREATE INDEX vtyped_pos ON vtyped USING geoidx (pos);
VACUUM ANALYZE vtyped;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT pos FROM vtyped ORDER BY pos <~> 'SRID=4326;POLYGON((-74 40.65, -73.9 40.65, -73.9 40.75, -74 40.65))' LIMIT 3;
EXPLAIN (COSTS OFF) SELECT pos FROM vtyped ORDER BY pos <-> 'SRID=4326;POLYGON((-74 40.65, -73.9 40.65, -73.9 40.75, -74 40.65))' LIMIT 3;
EXPLAIN (COSTS OFF) SELECT pos FROM vtyped ORDER BY pos::geography <-> 'SRID=4326;POINT(-73.96 40.724)'::geography LIMIT 3;
EXPLAIN (COSTS OFF) SELECT pos FROM vtyped ORDER BY pos <-> 'SRID=4326;POINT(-73.96 40.724)' LIMIT 3;
RESET enable_seqscan;
CREATE FUNCTION ios_differs() RETURNS int LANGUAGE plpgsql AS $$
DECLARE f text; g text; q text; bad int := 0; got text; want text;
BEGIN
	FOREACH f IN ARRAY ARRAY['pos <~> %s', 'pos <-> %s', 'pos::geography <-> %s::geography'] LOOP
		FOREACH g IN ARRAY ARRAY[quote_literal('SRID=4326;POLYGON((-74 40.65, -73.9 40.65, -73.9 40.75, -74 40.65))') || '::geometry',
				quote_literal('SRID=4326;LINESTRING(170 -5, -170 5)') || '::geometry',
				quote_literal('SRID=4326;POINT(-73.96 40.724)') || '::geometry'] LOOP
			-- the distances in the order returned (ties may come either way)
			q := format('SELECT string_agg(d::text, '','') FROM (SELECT %1$s FROM vtyped ORDER BY %1$s LIMIT 25) s(d)',
						format(f, g));
			PERFORM set_config('enable_seqscan', 'off', true);
			EXECUTE q INTO got;
			PERFORM set_config('enable_seqscan', 'on', true);
			PERFORM set_config('geoidx.rewrite_postgis', 'off', true);
			PERFORM set_config('enable_indexscan', 'off', true);
			PERFORM set_config('enable_indexonlyscan', 'off', true);
			PERFORM set_config('enable_bitmapscan', 'off', true);
			EXECUTE q INTO want;
			PERFORM set_config('geoidx.rewrite_postgis', 'on', true);
			PERFORM set_config('enable_indexscan', 'on', true);
			PERFORM set_config('enable_indexonlyscan', 'on', true);
			PERFORM set_config('enable_bitmapscan', 'on', true);
			IF got IS DISTINCT FROM want THEN bad := bad + 1; RAISE WARNING 'differs: % % %', q, got, want; END IF;
		END LOOP;
	END LOOP;
	RETURN bad;
END $$;
SELECT ios_differs();
PREPARE nearest_pos(geometry) AS SELECT string_agg(ST_AsText(pos), ',') FROM (SELECT pos FROM vtyped ORDER BY pos <~> $1 LIMIT 5) s;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE nearest_pos('SRID=4326;POINT(0 0)');
EXECUTE nearest_pos('SRID=4326;POLYGON((-74 40.65, -73.9 40.65, -73.9 40.75, -74 40.65))');
RESET plan_cache_mode;

DROP TABLE vpts, vzones, vtyped, qgeoms, results;
DROP FUNCTION uses_geoidx, rows_of, check_form, check_order, postgis_rows, ios_differs;
