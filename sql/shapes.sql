-- Shapes in a geoidx index: every answer compared with PostGIS geography's,
-- the plans that use the index, maintenance (inserts that split, VACUUM,
-- geoidx_verify), and the errors PostGIS's cast would raise.
SET client_min_messages = warning;
CREATE TABLE zones (id int PRIMARY KEY, shape geometry);
-- 2,500 squares of ~2 km on a grid, and other kinds
INSERT INTO zones SELECT i, ST_Buffer(ST_SetSRID(ST_MakePoint((i % 50) * 0.03 - 74, (i / 50) * 0.03 + 40), 4326), 0.01, 1)
	FROM generate_series(0, 2499) i;
INSERT INTO zones VALUES
	(10001, NULL), (10002, 'SRID=4326;POLYGON EMPTY'), (10003, 'SRID=4326;POINT(-73.5 40.5)'),
	(10004, 'SRID=4326;LINESTRING(-74 40, -72.6 41.4)'), (10005, 'SRID=4326;MULTIPOINT((-73.2 40.2), (-73.1 40.1))'),
	(10006, 'SRID=4326;GEOMETRYCOLLECTION(POINT(-73.3 40.3), LINESTRING(-73.3 40.3, -73.31 40.31))'),
	(10007, 'POLYGON((-73.6 40.6, -73.5 40.6, -73.5 40.7, -73.6 40.6))'),            -- SRID 0
	(10008, 'SRID=4326;POLYGON((179.9 10, 180.2 10, 180.2 10.2, 179.9 10.2, 179.9 10))'), -- beyond 180
	(10009, 'SRID=4326;POLYGON((0 80, 90 80, 180 80, -90 80, 0 80))');              -- around the pole
CREATE INDEX zones_shape ON zones USING geoidx (shape);
-- PostGIS's own index, for the reference answers (PostGIS's whatever the plan)
CREATE INDEX zones_gist ON zones USING gist ((shape::geography));
SELECT geoidx_verify('zones_shape');
SELECT entries FROM geoidx_stats('zones_shape');

CREATE TABLE probes (p int PRIMARY KEY, pt geometry);
INSERT INTO probes SELECT i, ST_SetSRID(ST_MakePoint(-74.02 + (i % 20) * 0.08 + 0.0013 * (i % 7), 39.98 + (i / 20) * 0.08), 4326)
	FROM generate_series(0, 399) i;
-- on a zone's vertex, and on the middle of its edge (a zone is a square of corners 0.01 from its centre)
INSERT INTO probes SELECT 6000 + i, ST_SetSRID(ST_MakePoint((i % 50) * 0.03 - 74 + 0.01, (i / 50) * 0.03 + 40), 4326)
	FROM generate_series(0, 2499, 97) i;
INSERT INTO probes SELECT 7000 + i, ST_SetSRID(ST_MakePoint((i % 50) * 0.03 - 74 + 0.005, (i / 50) * 0.03 + 40 + 0.005), 4326)
	FROM generate_series(0, 2499, 89) i;
INSERT INTO probes VALUES (5000, 'SRID=4326;POINT(180.05 10.1)'), (5001, 'SRID=4326;POINT(-179.95 10.1)'),
	(5002, 'SRID=4326;POINT(45 89)'), (5003, 'SRID=4326;POINT(-73.5 40.5)'), (5004, 'SRID=4326;POINT(-73.55 40.65)');

-- an order-independent fingerprint of what each probe finds
CREATE FUNCTION fp(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text; BEGIN EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(hashint8(p::bigint * 100003 + id)), 0) FROM (%s) s', q) INTO r; RETURN r; END $$;

SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM zones WHERE geoidx_covers(shape, 'SRID=4326;POINT(-73.9 40.1)');
EXPLAIN (COSTS OFF) SELECT id FROM zones WHERE geoidx_dwithin(shape, 'SRID=4326;POINT(-73.9 40.1)', 500);
EXPLAIN (COSTS OFF) SELECT id FROM zones ORDER BY shape <~> 'SRID=4326;POINT(-73.9 40.1)' LIMIT 3;
-- the column second: the predicate commuted into the index's own operator, exact
EXPLAIN (COSTS OFF) SELECT id FROM zones WHERE geoidx_coveredby('SRID=4326;POINT(-73.9 40.1)', shape);
EXPLAIN (COSTS OFF) SELECT id FROM zones WHERE geoidx_covers('SRID=4326;POINT(-73.9 40.1)', shape);
EXPLAIN (COSTS OFF) SELECT id FROM zones WHERE geoidx_intersects('SRID=4326;LINESTRING(-73.9 40.1, -73.8 40.2)', shape); -- not commuted (shape_functions.cc)

-- each predicate, index scan and bitmap scan against PostGIS (through its GiST index)
CREATE TABLE answers (form text, mode text, got text);
-- each form: the pairs PostGIS's form finds by its GiST index (want_q), and
-- the pairs geoidx's finds by index scans and by bitmap scans (got_q)
CREATE FUNCTION check_forms(forms text[][], want_q text, got_q text) RETURNS SETOF answers LANGUAGE plpgsql AS $$
DECLARE want text; got text; m text;
BEGIN
	DELETE FROM answers;
	FOR i IN 1 .. array_length(forms, 1) LOOP
		SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = on;
		want := fp(format(want_q, forms[i][2]));
		FOREACH m IN ARRAY ARRAY['index', 'bitmap'] LOOP
			IF m = 'index' THEN SET LOCAL enable_indexscan = on; SET LOCAL enable_bitmapscan = off;
			ELSE SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = on; END IF;
			got := fp(format(got_q, forms[i][1]));
			INSERT INTO answers VALUES (forms[i][1], m, CASE WHEN got = want THEN 'same (' || split_part(want, ':', 1) || ' pairs)' ELSE got || ' <> ' || want END);
		END LOOP;
	END LOOP;
	RETURN QUERY SELECT * FROM answers;
END $$;
SELECT * FROM check_forms(ARRAY[
		['geoidx_covers(z.shape, q.pt)', 'ST_Covers(z.shape::geography, q.pt::geography)'],
		['geoidx_coveredby(q.pt, z.shape)', 'ST_CoveredBy(q.pt::geography, z.shape::geography)'],
		['geoidx_intersects(z.shape, q.pt)', 'ST_Intersects(z.shape::geography, q.pt::geography)'],
		['geoidx_intersects(q.pt, z.shape)', 'ST_Intersects(q.pt::geography, z.shape::geography)'],
		['geoidx_covers(ST_Buffer(q.pt, 0.05, 2), z.shape)', 'ST_Covers(ST_Buffer(q.pt, 0.05, 2)::geography, z.shape::geography)'],
		['geoidx_covers(z.shape, ST_Buffer(q.pt, 0.002, 1))', 'ST_Covers(z.shape::geography, ST_Buffer(q.pt, 0.002, 1)::geography)'],
		['geoidx_coveredby(z.shape, ST_Buffer(q.pt, 0.04, 2))', 'ST_CoveredBy(z.shape::geography, ST_Buffer(q.pt, 0.04, 2)::geography)'],
		['geoidx_intersects(z.shape, ST_MakeLine(q.pt, ST_Translate(q.pt, 0.004, 0.003)))', 'ST_Intersects(z.shape::geography, ST_MakeLine(q.pt, ST_Translate(q.pt, 0.004, 0.003))::geography)'],
		['geoidx_dwithin(z.shape, q.pt, 0)', 'ST_DWithin(z.shape::geography, q.pt::geography, 0)'],
		['geoidx_dwithin(z.shape, q.pt, 300)', 'ST_DWithin(z.shape::geography, q.pt::geography, 300)'],
		['geoidx_dwithin(q.pt, z.shape, 2500, false)', 'ST_DWithin(q.pt::geography, z.shape::geography, 2500, false)'],
		['z.shape <~> q.pt < 1200', 'ST_DWithin(z.shape::geography, q.pt::geography, 1300) AND ST_Distance(z.shape::geography, q.pt::geography) < 1200'],
		['NOT geoidx_dwithin(z.shape, q.pt, 2000) AND geoidx_dwithin(z.shape, q.pt, 3000)',
		 'NOT ST_DWithin(z.shape::geography, q.pt::geography, 2000) AND ST_DWithin(z.shape::geography, q.pt::geography, 3000)']],
	'SELECT q.p, z.id FROM probes q JOIN zones z ON %s',
	'SELECT q.p, z.id FROM probes q CROSS JOIN LATERAL (SELECT id FROM zones z WHERE %s) z');

-- the interior grids: of the squares whose box holds a probe, most are
-- decided from the index (accepted or rejected without reading the square),
-- and the answers are PostGIS's
CREATE TABLE squares AS SELECT id, shape FROM zones WHERE id < 2500;
CREATE INDEX ON squares USING geoidx (shape);
CREATE TABLE dense AS SELECT i AS p, ST_SetSRID(ST_MakePoint(-74.01 + (i % 97) * 0.0151 + (i % 13) * 0.0007,
	39.99 + (i / 97) * 0.0149 + (i % 11) * 0.0006), 4326) AS pt FROM generate_series(0, 9408) i;
CREATE TABLE d0 AS SELECT * FROM geoidx_shape_decisions();
SELECT fp('SELECT q.p, z.id FROM dense q CROSS JOIN LATERAL (SELECT id FROM squares z WHERE geoidx_covers(z.shape, q.pt)) z') AS grid_answer \gset
CREATE TABLE d1 AS SELECT * FROM geoidx_shape_decisions();
SET enable_indexscan = off;
SELECT fp('SELECT q.p, z.id FROM dense q JOIN zones z ON z.id < 2500 AND ST_Covers(z.shape::geography, q.pt::geography)') = :'grid_answer' AS grid_same;
RESET enable_indexscan;
SELECT d1.accepted > d0.accepted AS accepted_some, d1.rejected > d0.rejected AS rejected_some,
	(d1.accepted - d0.accepted) + (d1.rejected - d0.rejected) > 2 * (d1.rechecked - d0.rechecked) AS decided_two_thirds
	FROM d0, d1;

-- three nearest zones, distances as PostGIS's
SELECT bool_and(g = w) AS knn_same, count(*) FROM (
	SELECT q.p,
		(SELECT array_agg(d ORDER BY n) FROM (SELECT row_number() OVER () n, d FROM (SELECT z.shape <~> q.pt d FROM zones z ORDER BY z.shape <~> q.pt LIMIT 3) a) b) g,
		(SELECT array_agg(d ORDER BY d) FROM (SELECT ST_Distance(z.shape::geography, q.pt::geography) d FROM zones z WHERE z.shape IS NOT NULL ORDER BY 1 LIMIT 3) a) w
	FROM probes q WHERE q.p % 29 = 0 OR q.p >= 5000) s;

-- maintenance: inserts split leaves, deletes and VACUUM, answers stay PostGIS's
INSERT INTO zones SELECT 20000 + i, ST_Buffer(ST_SetSRID(ST_MakePoint((i % 50) * 0.03 - 73.985, (i / 50) * 0.03 + 40.015), 4326), 0.012, 2)
	FROM generate_series(0, 2499) i;
DELETE FROM zones WHERE id % 3 = 0;
VACUUM zones;
SELECT geoidx_verify('zones_shape');
SET enable_indexscan = off;
SELECT fp('SELECT q.p, z.id FROM probes q JOIN zones z ON ST_Covers(z.shape::geography, q.pt::geography)') AS postgis_after_writes \gset
RESET enable_indexscan;
SELECT fp('SELECT q.p, z.id FROM probes q CROSS JOIN LATERAL (SELECT id FROM zones z WHERE geoidx_covers(z.shape, q.pt)) z')
	= :'postgis_after_writes' AS covers_after_writes;

-- PostGIS's planar predicates (degrees, GEOS) become geoidx's operators of them, index conditions, answers unchanged
SET geoidx.rewrite_postgis = on; -- the default (the tests turn it off for PostGIS's references)
EXPLAIN (COSTS OFF) SELECT id FROM zones WHERE ST_Contains(shape, ST_Point(-73.9, 40.1, 4326));
-- (one probe by its key: its scan does not hang on whether autovacuum has analysed probes yet)
EXPLAIN (COSTS OFF) SELECT q.p, z.id FROM probes q JOIN zones z ON ST_Within(q.pt, z.shape) WHERE q.p = 1;
CREATE TABLE planar (form text, same boolean, pairs bigint);
DO $$
DECLARE
	forms text[] := ARRAY['ST_Contains(z.shape, q.pt)', 'ST_Covers(z.shape, q.pt)', 'ST_Intersects(z.shape, q.pt)',
		'ST_Intersects(q.pt, z.shape)', 'ST_Within(q.pt, z.shape)',
		'ST_Intersects(z.shape, ST_MakeLine(q.pt, ST_Translate(q.pt, 0.02, 0.01)))'];
	f text; want text; got text; same boolean[] := '{}'; pairs bigint[] := '{}';
BEGIN
	-- zone 10007 is SRID 0, which PostGIS's planar functions refuse next to 4326 (below);
	-- the rewritten predicate is an index condition, tested before z.id <> 10007 would be,
	-- so the zone goes for these checks (and comes back when the block is undone)
	BEGIN
		DELETE FROM zones WHERE id = 10007;
		FOREACH f IN ARRAY forms LOOP
			SET LOCAL geoidx.rewrite_postgis = off; SET LOCAL enable_seqscan = on;
			want := fp(format('SELECT q.p, z.id FROM probes q JOIN zones z ON %s', f));
			SET LOCAL geoidx.rewrite_postgis = on; SET LOCAL enable_seqscan = off;
			got := fp(format('SELECT q.p, z.id FROM probes q CROSS JOIN LATERAL (SELECT id FROM zones z WHERE %s) z', f));
			same := same || (got = want);
			pairs := pairs || split_part(want, ':', 1)::bigint;
		END LOOP;
		RAISE EXCEPTION USING ERRCODE = 'assert_failure', MESSAGE = 'undo the delete';
	EXCEPTION WHEN assert_failure THEN
		NULL;
	END;
	FOR i IN 1 .. array_length(forms, 1) LOOP
		INSERT INTO planar VALUES (forms[i], same[i], pairs[i]);
	END LOOP;
END $$;
SELECT count(*) AS zone_10007_back FROM zones WHERE id = 10007;
-- the planar grid decides points well inside or outside a zone without PostGIS's call
CREATE TEMP TABLE before_planar AS SELECT * FROM geoidx_shape_decisions();
SELECT count(*) > 0 AS some_contained FROM probes q CROSS JOIN LATERAL
	(SELECT id FROM zones z WHERE q.pt && ST_MakeEnvelope(-75, 40, -73.65, 41.5, 4326)
	 AND ST_Contains(z.shape, q.pt)) z;
SELECT d.accepted - b.accepted > 0 AS decided_inside, d.rejected - b.rejected > 0 AS decided_outside
	FROM geoidx_shape_decisions() d, before_planar b;
-- PostGIS's planar functions raise the mixed-SRID error for the SRID 0 zone, and so does its operator
SET geoidx.rewrite_postgis = off;
SET enable_seqscan = on;
SELECT id FROM zones WHERE ST_Contains(shape, ST_Point(-73.55, 40.62, 4326));
SET geoidx.rewrite_postgis = on;
SET enable_seqscan = off;
SELECT id FROM zones WHERE ST_Contains(shape, ST_Point(-73.55, 40.62, 4326));
SELECT id FROM zones WHERE ST_Within(ST_Point(-73.55, 40.62, 4326), shape);
SELECT * FROM planar;
SET geoidx.rewrite_postgis = off; -- PostGIS's SQL below is the reference again

-- the reverse: points covered by a zone, the zone a constant or a parameter
CREATE TABLE pts AS SELECT p AS id, pt FROM probes;
CREATE INDEX pts_pt ON pts USING geoidx (pt);
EXPLAIN (COSTS OFF) SELECT id FROM pts WHERE geoidx_coveredby(pt, 'SRID=4326;POLYGON((-74 40, -73.5 40, -73.5 40.5, -74 40))');
PREPARE inzone(geometry) AS SELECT count(*) FROM pts WHERE geoidx_coveredby(pt, $1);
SELECT count(*) AS executions, bool_and(c = w) AS inzone_same FROM (
	SELECT (SELECT c FROM (SELECT 1) x, LATERAL (SELECT count(*) c FROM pts WHERE geoidx_coveredby(pt, z.shape)) y) c,
		(SELECT count(*) FROM pts WHERE ST_CoveredBy(pt::geography, z.shape::geography)) w
	FROM zones z WHERE z.id % 397 = 1) s;
EXECUTE inzone('SRID=4326;POLYGON((-74 40, -73.5 40, -73.5 40.5, -74 40))');
SELECT count(*) FROM pts WHERE ST_CoveredBy(pt::geography, 'SRID=4326;POLYGON((-74 40, -73.5 40, -73.5 40.5, -74 40))'::geography);

-- zones outside, the points' index inside: geoidx_dwithin(zone, point, r) gets
-- the candidate disc of the zone and the call as the filter, since the zone may
-- be a shape; a centre that is a point in every row (PostGIS's point
-- constructors) keeps the exact disc
EXPLAIN (COSTS OFF) SELECT z.id, x.id FROM zones z CROSS JOIN LATERAL (SELECT id FROM pts WHERE geoidx_dwithin(z.shape, pt, 300)) x;
EXPLAIN (COSTS OFF) SELECT z.id, x.id FROM zones z CROSS JOIN LATERAL (SELECT id FROM pts WHERE geoidx_dwithin(ST_SetSRID(ST_MakePoint(ST_XMin(z.shape), ST_YMin(z.shape)), 4326), pt, 300)) x;
SELECT * FROM check_forms(ARRAY[
		['geoidx_dwithin(z.shape, pt, 300)', 'ST_DWithin(z.shape::geography, pt::geography, 300)'],
		['geoidx_dwithin(pt, z.shape, 2500, false)', 'ST_DWithin(pt::geography, z.shape::geography, 2500, false)'],
		['geoidx_dwithin(ST_SetSRID(ST_MakePoint(ST_XMin(z.shape), ST_YMin(z.shape)), 4326), pt, 3000)',
		 'ST_DWithin(ST_SetSRID(ST_MakePoint(ST_XMin(z.shape), ST_YMin(z.shape)), 4326)::geography, pt::geography, 3000)']],
	'SELECT z.id AS p, pts.id FROM zones z JOIN pts ON %s',
	'SELECT z.id AS p, x.id FROM zones z CROSS JOIN LATERAL (SELECT id FROM pts WHERE %s) x');
-- a parameter in a generic plan may be a shape too
PREPARE near(geometry) AS SELECT count(*) FROM pts WHERE geoidx_dwithin($1, pt, 3000);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE near('SRID=4326;POINT(-74.02 39.98)');
EXECUTE near('SRID=4326;POINT(-74.02 39.98)');
SELECT count(*) FROM pts WHERE ST_DWithin('SRID=4326;POINT(-74.02 39.98)'::geography, pt::geography, 3000);
EXECUTE near('SRID=4326;POLYGON((-74 40, -73.5 40, -73.5 40.5, -74 40))');
SELECT count(*) FROM pts WHERE ST_DWithin('SRID=4326;POLYGON((-74 40, -73.5 40, -73.5 40.5, -74 40))'::geography, pt::geography, 3000);
RESET plan_cache_mode;
DEALLOCATE near;

-- a plain GiST index on a column of shapes gets no condition from
-- geoidx_dwithin: the box in degrees around the centre would miss a geodesic
-- edge that bulges beyond the degree box of its ends (this line reaches 84.3 N)
CREATE TABLE gz (id int, shape geometry);
INSERT INTO gz VALUES (1, 'SRID=4326;LINESTRING(-100 60, 100 60)'), (2, 'SRID=4326;POINT(179.9 84.3)'), (3, 'SRID=4326;POINT(0 0)');
CREATE INDEX gz_gist ON gz USING gist (shape);
EXPLAIN (COSTS OFF) SELECT id FROM gz WHERE geoidx_dwithin(shape, 'SRID=4326;POINT(180 84.3)', 20000);
SELECT array_agg(id ORDER BY id) AS geoidx, (SELECT array_agg(id ORDER BY id) FROM gz
	WHERE ST_DWithin(shape::geography, 'SRID=4326;POINT(180 84.3)'::geography, 20000)) AS postgis
FROM gz WHERE geoidx_dwithin(shape, 'SRID=4326;POINT(180 84.3)', 20000);
DROP TABLE gz;

-- an EMPTY shape has no distance: every distance region of <@ is NULL for it, as
-- <~> and PostGIS's ST_Distance are; it is in no disc and outside every one
SELECT e AS shape, op, e::geometry <@ geoidx_circle_distance('SRID=4326;POINT(1 1)'::geometry, op, 5::float8) AS region,
	(ST_Distance(e::geography, 'SRID=4326;POINT(1 1)'::geography) > 5) AS postgis_gt,
	e::geometry <@ geoidx_circle('SRID=4326;POINT(1 1)'::geometry, 5::float8) AS within,
	e::geometry <@ geoidx_circle_outside('SRID=4326;POINT(1 1)'::geometry, 5::float8, true, true) AS outside
FROM unnest(ARRAY['SRID=4326;POLYGON EMPTY', 'SRID=4326;MULTIPOLYGON EMPTY', 'SRID=4326;LINESTRING EMPTY']) e,
	unnest(ARRAY['>', '>=', '<', '<=']) op;

-- errors: what the geography cast refuses, geoidx refuses (the index unchanged)
INSERT INTO zones VALUES (30001, 'SRID=4326;CIRCULARSTRING(0 0, 1 1, 2 0)');
INSERT INTO zones VALUES (30002, 'SRID=3857;POLYGON((0 0, 1 0, 1 1, 0 0))');
SELECT geoidx_covers('SRID=4326;POLYGON((0 0, 1 0, 1 1, 0 0))'::geometry, 'SRID=3857;POINT(0.5 0.2)'::geometry);
SELECT geoidx_intersects('SRID=4326;LINESTRING(0 0, 1 1)', ST_SetSRID(ST_MakePoint('NaN', 0), 4326));
SELECT 'CIRCLE(1 2, 5, sphere, candidate)'::geoidx_circle, geoidx_candidate_circle('SRID=4326;POINT EMPTY'::geometry, 1) IS NULL AS empty_null;
SELECT geoidx_verify('zones_shape');
RESET enable_seqscan;
DROP TABLE zones, probes, pts, answers, planar;
DROP FUNCTION check_forms(text[], text, text);
DROP FUNCTION fp(text);
