-- The index: plans, answers against PostGIS, NULL/EMPTY, VACUUM, UNLOGGED, REINDEX.
SET client_min_messages = warning;
SELECT setseed(0.25);
CREATE TABLE outlets (id int PRIMARY KEY, pos geometry(Point, 4326));
INSERT INTO outlets
SELECT i, ST_SetSRID(ST_MakePoint(105 + 15 * random(), -10 + 6 * random()), 4326)
FROM generate_series(1, 20000) i;
INSERT INTO outlets VALUES (20001, NULL), (20002, 'SRID=4326;POINT EMPTY');
CREATE INDEX outlets_pos ON outlets USING geoidx (pos);
ANALYZE outlets;
SELECT geoidx_verify('outlets_pos');
SELECT pages > 1 AS several_pages, entries, depth >= 2 AS has_internal_level, incomplete_splits
FROM geoidx_stats('outlets_pos');

-- radius: one index condition, no recheck, no filter
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT id FROM outlets WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(112, -7), 4326), 200000);
-- same rows as ST_DWithin(geography)
SELECT count(*) AS rows,
	count(*) = (SELECT count(*) FROM outlets WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(112 -7)'::geography, 200000)) AS same_count
FROM outlets WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(112, -7), 4326), 200000);
SELECT (SELECT array_agg(id ORDER BY id) FROM outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(112 -7)', 200000))
	 = (SELECT array_agg(id ORDER BY id) FROM outlets WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(112 -7)'::geography, 200000)) AS same_rows;
-- the column may be either argument
EXPLAIN (COSTS OFF)
SELECT id FROM outlets WHERE geoidx_dwithin('SRID=4326;POINT(112 -7)', pos, 1000);

-- k-NN: ordered by the index, exact metres, no sort node
EXPLAIN (COSTS OFF)
SELECT id, pos <~> 'SRID=4326;POINT(112 -7)' AS metres FROM outlets ORDER BY pos <~> 'SRID=4326;POINT(112 -7)' LIMIT 10;
SELECT (SELECT array_agg(id) FROM (SELECT id FROM outlets ORDER BY pos <~> 'SRID=4326;POINT(112 -7)' LIMIT 10) s)
	 = (SELECT array_agg(id) FROM (SELECT id FROM outlets WHERE pos IS NOT NULL AND NOT ST_IsEmpty(pos)
								   ORDER BY ST_Distance(pos::geography, 'SRID=4326;POINT(112 -7)'::geography) LIMIT 10) s) AS same_knn;
-- radius + nearest first + limit: one scan that stops at the limit
EXPLAIN (COSTS OFF)
SELECT id FROM outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(112 -7)', 5000)
ORDER BY pos <~> 'SRID=4326;POINT(112 -7)' LIMIT 100;
-- bitmap scans give the same rows
RESET enable_bitmapscan;
SET enable_indexscan = off;
SELECT count(*) FROM outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(112 -7)', 200000);
RESET enable_indexscan;
-- NULL and EMPTY rows are indexed: never within a radius, but an ORDER BY
-- returns them, last, with a NULL distance (as a sort would)
SELECT count(*) FROM outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(0 0)', 2e7);
SELECT count(*) = (SELECT count(*) FROM outlets) AS every_row,
	array_agg(id ORDER BY id) FILTER (WHERE d IS NULL) AS null_distance,
	bool_and(d IS NULL) FILTER (WHERE n > 20000) AS nulls_last
FROM (SELECT row_number() OVER () AS n, id, d
	FROM (SELECT id, pos <~> 'SRID=4326;POINT(0 0)' AS d FROM outlets ORDER BY pos <~> 'SRID=4326;POINT(0 0)') o) s;
-- ORDER BY distance to NULL / EMPTY: every distance is NULL
SELECT count(*) FROM (SELECT id FROM outlets ORDER BY pos <~> NULL::geometry LIMIT 5) s;
-- index-only scans: count(*) and the points themselves come from the index
VACUUM outlets;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(112 -7)', 200000);
EXPLAIN (COSTS OFF) SELECT pos FROM outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(112 -7)', 200000);
SELECT (SELECT array_agg(ST_AsEWKT(pos) ORDER BY ST_AsEWKT(pos)) FROM outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(112 -7)', 200000))
	 = (SELECT array_agg(ST_AsEWKT(pos) ORDER BY ST_AsEWKT(pos)) FROM outlets WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(112 -7)'::geography, 200000)) AS same_points;
-- a NULL radius matches nothing
SELECT count(*) FROM outlets WHERE pos <@ NULL::geoidx_circle;

-- writes after the build, then VACUUM
INSERT INTO outlets
SELECT i, ST_SetSRID(ST_MakePoint(105 + 15 * random(), -10 + 6 * random()), 4326)
FROM generate_series(20003, 40000) i;
DELETE FROM outlets WHERE id % 3 = 0;
UPDATE outlets SET pos = ST_SetSRID(ST_MakePoint(ST_X(pos) + 0.01, ST_Y(pos)), 4326) WHERE id % 7 = 0;
VACUUM outlets;
SELECT geoidx_verify('outlets_pos');
SELECT (SELECT array_agg(id ORDER BY id) FROM outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(112 -7)', 300000))
	 = (SELECT array_agg(id ORDER BY id) FROM outlets WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(112 -7)'::geography, 300000)) AS same_after_writes;
-- the selectivity estimate makes a radius that covers everything a sequential scan
RESET enable_seqscan;
EXPLAIN (COSTS OFF) SELECT id FROM outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(112 -7)', 5e6);
-- and a small one an index scan
EXPLAIN (COSTS OFF) SELECT id FROM outlets WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(112 -7)', 5e3);
SET enable_seqscan = off;
REINDEX INDEX outlets_pos;
SELECT geoidx_verify('outlets_pos');
REINDEX INDEX CONCURRENTLY outlets_pos;
SELECT geoidx_verify('outlets_pos');
CLUSTER outlets USING outlets_pos;
SELECT geoidx_verify('outlets_pos');
VACUUM FULL outlets;
SELECT geoidx_verify('outlets_pos');
DROP TABLE outlets;

-- UNLOGGED
CREATE UNLOGGED TABLE u (id int, pos geometry(Point, 4326));
INSERT INTO u SELECT i, ST_SetSRID(ST_MakePoint(i % 360 - 180, (i % 170) - 85), 4326) FROM generate_series(1, 5000) i;
CREATE INDEX u_pos ON u USING geoidx (pos);
INSERT INTO u SELECT i, ST_SetSRID(ST_MakePoint(i % 360 - 180, (i % 170) - 85), 4326) FROM generate_series(5001, 20000) i;
SELECT geoidx_verify('u_pos');
SELECT count(*) = (SELECT count(*) FROM u WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(0 0)'::geography, 1e6)) AS same
FROM u WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(0 0)', 1e6);
DROP TABLE u;
-- an empty table, a single row, and an index built empty then filled
CREATE TABLE e (pos geometry(Point, 4326));
CREATE INDEX e_pos ON e USING geoidx (pos);
SELECT count(*) FROM e WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(0 0)', 1e7);
SELECT * FROM e ORDER BY pos <~> 'SRID=4326;POINT(0 0)' LIMIT 1;
INSERT INTO e VALUES ('SRID=4326;POINT(1 1)');
SELECT ST_AsText(pos) FROM e ORDER BY pos <~> 'SRID=4326;POINT(0 0)' LIMIT 0;
SELECT ST_AsText(pos), round((pos <~> 'SRID=4326;POINT(0 0)')::numeric, 3) FROM e ORDER BY pos <~> 'SRID=4326;POINT(0 0)' LIMIT 5;
INSERT INTO e SELECT ST_SetSRID(ST_MakePoint(random() * 360 - 180, random() * 180 - 90), 4326) FROM generate_series(1, 3000);
SELECT geoidx_verify('e_pos');
SELECT depth >= 2 AS grew FROM geoidx_stats('e_pos');
DROP TABLE e;
-- temp tables
CREATE TEMP TABLE t (pos geometry(Point, 4326));
CREATE INDEX ON t USING geoidx (pos);
INSERT INTO t SELECT ST_SetSRID(ST_MakePoint(random() * 360 - 180, random() * 180 - 90), 4326) FROM generate_series(1, 3000);
SELECT count(*) = (SELECT count(*) FROM t WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(0 0)'::geography, 3e6)) AS same
FROM t WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(0 0)', 3e6);
-- a partial index whose predicate is a geoidx call: the query that repeats it
-- still proves it (the predicate gets the rewrites the query gets)
CREATE TABLE depot (id int, pos geometry(Point, 4326));
INSERT INTO depot SELECT i, ST_SetSRID(ST_MakePoint((i % 200) * 0.1, (i / 200) * 0.1), 4326) FROM generate_series(1, 40000) i;
CREATE INDEX depot_pos ON depot USING geoidx (pos);
CREATE INDEX depot_near ON depot (id) WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 10)', 100000) AND NOT geoidx_dwithin(pos, 'SRID=4326;POINT(10 10)', 1000);
ANALYZE depot;
EXPLAIN (COSTS OFF) SELECT id FROM depot WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 10)', 100000)
	AND NOT geoidx_dwithin(pos, 'SRID=4326;POINT(10 10)', 1000) AND id BETWEEN 19000 AND 21500;
SELECT array_agg(id ORDER BY id) = (SELECT array_agg(id ORDER BY id) FROM depot WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(10 10)'::geography, 100000)
		AND NOT ST_DWithin(pos::geography, 'SRID=4326;POINT(10 10)'::geography, 1000) AND id BETWEEN 19000 AND 21500) AS same_as_postgis, count(*)
FROM depot WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 10)', 100000) AND NOT geoidx_dwithin(pos, 'SRID=4326;POINT(10 10)', 1000) AND id BETWEEN 19000 AND 21500;
DROP TABLE depot;
