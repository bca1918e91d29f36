-- The memory a backend keeps from one scan to the next (src/pg/scan_memory.cc):
-- one reset scan context with a 256 kB keeper block, and arrays of at most
-- 1 MB each, whatever ran before: repeated scans, a scan a statement error
-- ends, a k-NN scan whose frontier outgrows the bound, two scans at once.
-- Each answer is compared with a sequential scan.
SELECT setseed(0.41);
CREATE TABLE sm (id int PRIMARY KEY, pos geometry(Point, 4326));
INSERT INTO sm SELECT g, ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
FROM generate_series(1, 60000) g;
CREATE INDEX sm_idx ON sm USING geoidx (pos);
ANALYZE sm;
-- what geoidx keeps in this backend, and under which parent
CREATE FUNCTION sm_kept() RETURNS TABLE (name text, parent text, within_bound boolean)
LANGUAGE sql AS $$
	SELECT name, parent,
		CASE name WHEN 'geoidx scan' THEN total_bytes BETWEEN 256 * 1024 AND 300 * 1024
		          ELSE total_bytes <= 2 * (1024 * 1024 + 64 * 1024) END
	FROM pg_backend_memory_contexts WHERE name LIKE 'geoidx scan%' ORDER BY name
$$;
-- the 1,000 nearest of a centre by the index, and by a sequential scan
CREATE FUNCTION sm_knn(lon float8, lat float8, k int, use_index boolean) RETURNS int[]
LANGUAGE plpgsql AS $$
DECLARE r int[];
BEGIN
	PERFORM set_config('enable_seqscan', (NOT use_index)::text, true);
	PERFORM set_config('enable_indexscan', use_index::text, true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	IF use_index THEN
		SELECT array_agg(id ORDER BY d, id) INTO r FROM (SELECT id, pos <~> ST_Point(lon, lat, 4326) AS d
			FROM sm ORDER BY pos <~> ST_Point(lon, lat, 4326) LIMIT k) s;
	ELSE
		SELECT array_agg(id ORDER BY d, id) INTO r FROM (SELECT id, ST_Distance(pos::geography, ST_Point(lon, lat, 4326)::geography) AS d
			FROM sm ORDER BY 2 LIMIT k) s;
	END IF;
	RETURN r;
END $$;
SELECT sm_knn(10, 20, 1000, true) = sm_knn(10, 20, 1000, false) AS same_as_seqscan;
SELECT * FROM sm_kept();
-- fifty more scans: the same memory, reused
SELECT bool_and(sm_knn(g, -g, 1000, true) IS NOT NULL) FROM generate_series(1, 50) g;
SELECT * FROM sm_kept();
-- a statement error in the middle of an ordered and of an unordered scan
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id, 1 / (id - id) FROM sm ORDER BY pos <~> ST_Point(10, 20, 4326) LIMIT 500;
SELECT count(1 / (id - id)) FROM sm WHERE geoidx_dwithin(pos, ST_Point(10, 20, 4326), 2000000);
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM sm_kept();
SELECT sm_knn(-40, 5, 1000, true) = sm_knn(-40, 5, 1000, false) AS same_as_seqscan_after_errors;
-- a frontier over the bound is freed at the end, not kept
SELECT sm_knn(100, 0, 60000, true) = sm_knn(100, 0, 60000, false) AS whole_table_same_as_seqscan;
SELECT * FROM sm_kept();
-- two scans at once: the nearest 5 of each of the 20 nearest, both through the index
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT a.id AS a, b.id AS b, b.d FROM
	(SELECT id, pos FROM sm ORDER BY pos <~> ST_Point(30, 30, 4326) LIMIT 20) a,
	LATERAL (SELECT id, pos <~> a.pos AS d FROM sm ORDER BY pos <~> a.pos LIMIT 5) b;
CREATE TEMP TABLE sm_pairs_index AS
SELECT a.id AS a, b.id AS b, b.d FROM
	(SELECT id, pos FROM sm ORDER BY pos <~> ST_Point(30, 30, 4326) LIMIT 20) a,
	LATERAL (SELECT id, pos <~> a.pos AS d FROM sm ORDER BY pos <~> a.pos LIMIT 5) b;
RESET enable_seqscan;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
CREATE TEMP TABLE sm_pairs_seq AS
SELECT a.id AS a, b.id AS b, b.d FROM
	(SELECT id, pos FROM sm ORDER BY ST_Distance(pos::geography, ST_Point(30, 30, 4326)::geography) LIMIT 20) a,
	LATERAL (SELECT id, ST_Distance(pos::geography, a.pos::geography) AS d FROM sm ORDER BY 2 LIMIT 5) b;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT count(*) AS pairs, count(*) FILTER (WHERE s.b IS NULL OR i.b IS NULL OR i.d <> s.d) AS different
FROM sm_pairs_index i FULL JOIN sm_pairs_seq s USING (a, b);
SELECT * FROM sm_kept();
DROP TABLE sm;
DROP FUNCTION sm_kept();
DROP FUNCTION sm_knn(float8, float8, int, boolean);
