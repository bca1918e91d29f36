-- The distances the executor computes for the rows of a k-NN scan (it
-- projects the ORDER BY expression) come from the scan's own value when the
-- arguments are exactly the scanned ones (src/pg/distance_memo.cc): every one
-- must equal PostGIS geography's, in either argument order, on the sphere too,
-- for stored coordinates the geography cast wraps, and on geography columns.
SET client_min_messages = warning;
SELECT setseed(0.77);
CREATE TABLE dm (id int, pos geometry(Point, 4326));
INSERT INTO dm SELECT i, ST_SetSRID(ST_MakePoint(
	CASE WHEN i % 5 = 0 THEN 179 + 12 * random() ELSE 360 * random() - 180 END,
	CASE WHEN i % 7 = 0 THEN 89 + random() ELSE 180 * random() - 90 END), 4326)
FROM generate_series(1, 20000) i;
CREATE INDEX dm_pos ON dm USING geoidx (pos);
ANALYZE dm;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT pos <~> c FROM dm, (VALUES ('SRID=4326;POINT(180 10)'::geometry)) v(c) ORDER BY pos <~> c LIMIT 3000;
SELECT count(*) AS rows,
	count(*) FILTER (WHERE d1 IS DISTINCT FROM ST_Distance(pos::geography, c::geography)) AS bad_col_first,
	count(*) FILTER (WHERE d2 IS DISTINCT FROM ST_Distance(c::geography, pos::geography)) AS bad_centre_first,
	count(*) FILTER (WHERE d3 IS DISTINCT FROM ST_Distance(pos::geography, c::geography, true)) AS bad_function,
	count(*) FILTER (WHERE d4 IS DISTINCT FROM ST_Distance(pos::geography, c::geography, false)) AS bad_sphere
FROM (SELECT pos, c, pos <~> c AS d1, c <~> pos AS d2, geoidx_distance(pos, c) AS d3,
		geoidx_distance(pos, c, false) AS d4
	FROM dm, (VALUES ('SRID=4326;POINT(180 10)'::geometry)) v(c)
	ORDER BY pos <~> c LIMIT 3000) s;
CREATE TABLE dmg AS SELECT id, pos::geography AS pos FROM dm;
CREATE INDEX dmg_pos ON dmg USING geoidx (pos);
ANALYZE dmg;
SELECT count(*) AS rows,
	count(*) FILTER (WHERE d1 IS DISTINCT FROM ST_Distance(pos, c)) AS bad_geography
FROM (SELECT pos, c, pos <~> c AS d1 FROM dmg, (VALUES ('SRID=4326;POINT(-170 -80)'::geography)) v(c)
	ORDER BY pos <~> c LIMIT 3000) s;
RESET enable_seqscan;
DROP TABLE dm, dmg;
