-- A plain SELECT ... ORDER BY col <~> c [LIMIT k] reads the rows' order, not
-- their distances: the plan drops the junk ORDER BY column the executor would
-- compute for every row (src/pg/junk_distance.cc), and the scan returns a
-- point in order from the bracket of its distance (src/core/geodesic_bracket.h)
-- whenever that bracket ends before the next candidate's bound. Every answer
-- must be PostGIS geography's order: the distances of the returned rows, by
-- PostGIS, equal the k smallest, in order. Dense clusters put many distances
-- within a bracket's width of each other, mirrored points give distances
-- equal to the last bits, duplicates give ties; a column of points and
-- polygons makes the executor reorder. A prepared radius-and-order query keeps
-- its generic plan.
SET client_min_messages = warning;
SELECT setseed(0.23);
CREATE TABLE ud (id int PRIMARY KEY, pos geometry(Point, 4326));
INSERT INTO ud SELECT i, ST_SetSRID(ST_MakePoint(
	CASE WHEN i <= 15000 THEN 12 + 0.06 * random() - 0.03 ELSE 360 * random() - 180 END,
	CASE WHEN i <= 15000 THEN 41 + 0.06 * random() - 0.03 ELSE degrees(asin(2 * random() - 1)) END), 4326)
FROM generate_series(1, 18000) i;
-- mirrored across the centre's meridian: the same distance from (12, 41)
INSERT INTO ud SELECT 20000 + id, ST_SetSRID(ST_MakePoint(24 - ST_X(pos), ST_Y(pos)), 4326)
FROM ud WHERE id <= 2000;
-- duplicates: ties
INSERT INTO ud SELECT 30000 + id, pos FROM ud WHERE id <= 1000;
CREATE INDEX ud_pos ON ud USING geoidx (pos);
ANALYZE ud;
SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- the junk column is dropped where nothing reads it, and kept where something does
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM ud ORDER BY pos <~> 'SRID=4326;POINT(12 41)'::geometry LIMIT 10;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM ud ORDER BY pos <~> 'SRID=4326;POINT(12 41)'::geometry;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, pos <~> 'SRID=4326;POINT(12 41)'::geometry AS d FROM ud ORDER BY d LIMIT 10;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM ud ORDER BY pos <~> 'SRID=4326;POINT(12 41)'::geometry
	FETCH FIRST 10 ROWS WITH TIES;
EXPLAIN (VERBOSE, COSTS OFF) SELECT DISTINCT ON (pos <~> 'SRID=4326;POINT(12 41)'::geometry) id FROM ud
	ORDER BY pos <~> 'SRID=4326;POINT(12 41)'::geometry LIMIT 10;

-- the k nearest as the index returns them, against PostGIS's k smallest distances
CREATE FUNCTION ud_check(tbl regclass, c geometry, k int, radius float8, with_distance boolean)
RETURNS TABLE (rows int, misordered int, wrong_distance int) LANGUAGE plpgsql AS $$
DECLARE got float8[] := '{}'; want float8[]; bad_d int := 0; r record; i int := 0;
BEGIN
	FOR r IN EXECUTE format(
		'SELECT id, pos, %s AS d FROM %s WHERE ($3 IS NULL OR geoidx_dwithin(pos, $1, $3))
		 ORDER BY pos <~> $1 LIMIT $2',
		CASE WHEN with_distance THEN 'pos <~> $1' ELSE 'NULL::float8' END, tbl) USING c, k, radius
	LOOP
		got := got || ST_Distance(r.pos::geography, c::geography);
		IF with_distance AND r.d IS DISTINCT FROM ST_Distance(r.pos::geography, c::geography) THEN
			bad_d := bad_d + 1;
		END IF;
	END LOOP;
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_seqscan', 'on', true);
	EXECUTE format('SELECT array_agg(d ORDER BY d) FROM (SELECT ST_Distance(pos::geography, $1::geography) AS d
		FROM %s WHERE $3 IS NULL OR ST_DWithin(pos::geography, $1::geography, $3)
		ORDER BY 1 LIMIT $2) s', tbl) INTO want USING c, k, radius;
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_seqscan', 'off', true);
	rows := coalesce(array_length(got, 1), 0);
	misordered := (SELECT count(*) FROM generate_series(1, greatest(rows, coalesce(array_length(want, 1), 0))) g
		WHERE got[g] IS DISTINCT FROM want[g]);
	wrong_distance := bad_d;
	RETURN NEXT;
END $$;
SELECT c, k, radius, with_distance, (ud_check('ud', ST_SetSRID(c::geometry, 4326), k, radius, with_distance)).*
FROM (VALUES ('POINT(12 41)'), ('POINT(12.004 40.99)'), ('POINT(11.98 41.02)'), ('POINT(179.9 0)'),
		('POINT(-40 89.99)'), ('POINT(100 -30)')) v(c),
	(VALUES (10), (100), (2000), (25000)) w(k),
	(VALUES (NULL::float8), (2500.0)) x(radius),
	(VALUES (false), (true)) y(with_distance)
WHERE k < 25000 OR radius IS NULL
ORDER BY c, k, radius NULLS FIRST, with_distance;

-- points and polygons in one column: the executor reorders the shapes' rows
CREATE TABLE udm (id int PRIMARY KEY, pos geometry(Geometry, 4326));
INSERT INTO udm SELECT id, pos FROM ud WHERE id <= 3000;
INSERT INTO udm SELECT 100000 + i, ST_Buffer(ST_SetSRID(ST_MakePoint(12 + 0.05 * random() - 0.025,
	41 + 0.05 * random() - 0.025), 4326), 0.0005 + 0.002 * random())
FROM generate_series(1, 300) i;
CREATE INDEX udm_pos ON udm USING geoidx (pos);
ANALYZE udm;
SELECT c, k, with_distance, (ud_check('udm', ST_SetSRID(c::geometry, 4326), k, NULL, with_distance)).*
FROM (VALUES ('POINT(12 41)'), ('POINT(12.01 41.01)')) v(c), (VALUES (50), (1000)) w(k),
	(VALUES (false), (true)) y(with_distance)
ORDER BY c, k, with_distance;

-- the generic plan of a prepared radius-and-order query costs what it runs: the plan cache keeps it
PREPARE ud_r2(float8, float8) AS SELECT id FROM ud
	WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint($1, $2), 4326), 3000)
	ORDER BY pos <~> ST_SetSRID(ST_MakePoint($1, $2), 4326) LIMIT 100;
RESET enable_seqscan;
RESET enable_bitmapscan;
DO $$
BEGIN
	FOR g IN 1..10 LOOP
		EXECUTE format('EXECUTE ud_r2(%s, %s)', 12 + 0.001 * g, 41 - 0.001 * g);
	END LOOP;
END $$;
SELECT generic_plans > 0 AS generic_kept, custom_plans <= 5 AS few_custom FROM pg_prepared_statements
WHERE name = 'ud_r2';
DEALLOCATE ud_r2;
DROP FUNCTION ud_check;
DROP TABLE ud, udm;
