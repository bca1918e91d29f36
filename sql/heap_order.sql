-- Unordered index scans hand rows over in heap order, a batch at a time
-- (src/core/heap_order.h): every row once, the same rows as PostGIS, and the
-- ctids rising within each batch, so a 24,000-row answer over a heap in random
-- order has one descent per batch; in index order it has thousands. The first
-- batch, one page of 94 rows, already reads more than an eighth of the heap's
-- 500 pages: the second batch holds the rest, so there is one descent (growing
-- eight times a batch, there were three, each batch reading most of the heap
-- again). Index-only scans stay in index order.
SELECT setseed(0.3);
CREATE TABLE ho (id int, pos geometry(Point, 4326));
INSERT INTO ho SELECT i, ST_SetSRID(ST_MakePoint(10 * random(), 10 * random()), 4326)
FROM generate_series(1, 60000) i;
CREATE INDEX ho_pos ON ho USING geoidx (pos);
VACUUM ANALYZE ho;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT ctid FROM ho WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(5 5)', 400000);
CREATE TEMP TABLE got AS
SELECT row_number() OVER () AS n, ctid AS c, id FROM ho
WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(5 5)', 400000);
SELECT count(*) > 20000 AS large, count(*) = count(DISTINCT id) AS each_once FROM got;
SELECT pg_relation_size('ho') / current_setting('block_size')::int AS heap_pages;
SELECT count(*) FILTER (WHERE c < prev) AS descents, min(n) FILTER (WHERE c < prev) - 1 AS first_batch
FROM (SELECT n, c, lag(c) OVER (ORDER BY n) AS prev FROM got) w;
RESET enable_seqscan;
SET enable_indexscan = off;
SELECT count(*) AS only_geoidx FROM (SELECT id FROM got EXCEPT
	SELECT id FROM ho WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(5 5)'::geography, 400000)) d;
SELECT count(*) AS only_postgis FROM (SELECT id FROM ho
	WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(5 5)'::geography, 400000) EXCEPT SELECT id FROM got) d;
RESET enable_indexscan;
-- a LIMIT without ORDER BY: the first batch is one page
SET enable_seqscan = off;
SELECT count(*) AS limited FROM (SELECT id FROM ho WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(5 5)', 400000) LIMIT 10) s;
-- index-only: no heap to order, the same rows
RESET enable_indexonlyscan;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ho WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(5 5)', 400000);
SELECT count(*) = (SELECT count(*) FROM got) AS index_only_same FROM ho
WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(5 5)', 400000);
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexscan;
DROP TABLE ho;
-- An answer sparse against its heap (4,047 rows over 3,637 pages, fillfactor
-- 10): the first batch, 166 rows, reads fewer than an eighth of the pages, so
-- the second is only eight times as large (a LIMIT past the first page reads
-- no more than that), and the third, after a batch that did read an eighth,
-- is the rest.
SELECT setseed(0.7);
CREATE TABLE hs (id int, pos geometry(Point, 4326)) WITH (fillfactor = 10);
INSERT INTO hs SELECT i, ST_SetSRID(ST_MakePoint(10 * random(), 10 * random()), 4326)
FROM generate_series(1, 40000) i;
CREATE INDEX hs_pos ON hs USING geoidx (pos);
VACUUM ANALYZE hs;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT pg_relation_size('hs') / current_setting('block_size')::int AS heap_pages;
EXPLAIN (COSTS OFF) SELECT ctid FROM hs WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(5 5)', 200000);
CREATE TEMP TABLE gs AS
SELECT row_number() OVER () AS n, ctid AS c FROM hs
WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(5 5)', 200000);
SELECT batch, count(*) AS batch_rows, count(DISTINCT (c::text::point)[0]) AS batch_pages
FROM (SELECT c, 1 + count(*) FILTER (WHERE c < prev) OVER (ORDER BY n) AS batch
	FROM (SELECT n, c, lag(c) OVER (ORDER BY n) AS prev FROM gs) w) b
GROUP BY batch ORDER BY batch;
SELECT count(*) AS only_geoidx FROM (SELECT c FROM gs EXCEPT
	SELECT ctid FROM hs WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(5 5)'::geography, 200000)) d;
SELECT count(*) AS only_postgis FROM (SELECT ctid FROM hs
	WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(5 5)'::geography, 200000) EXCEPT SELECT c FROM gs) d;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE hs;
