-- Columns after the point: filtered k-NN, radius + filters, IN lists, INCLUDE,
-- index-only scans. Every answer is compared with PostGIS geography over the
-- filtered rows.
SET client_min_messages = warning;
SELECT setseed(0.75);
CREATE TABLE shops (id int PRIMARY KEY, pos geometry(Point, 4326), cat int, big int8, open bool,
	name text, u uuid, note text);
INSERT INTO shops
SELECT i, ST_SetSRID(ST_MakePoint(-30 + 60 * random(), 20 + 40 * random()), 4326),
	CASE WHEN i % 2 = 0 THEN 0 WHEN i % 100 = 1 THEN 1 WHEN i % 10000 = 3 THEN 2 ELSE 3 + i % 7 END,
	(i % 1000)::int8 * 1000000000, i % 3 = 0, 'shop ' || (i % 50),
	md5(i::text)::uuid, repeat('x', i % 40)
FROM generate_series(1, 30000) i;
-- NULLs in every column, EMPTY points
INSERT INTO shops VALUES (30001, NULL, 1, 1, true, 'shop 1', NULL, NULL),
	(30002, 'SRID=4326;POINT EMPTY', 1, NULL, NULL, NULL, NULL, 'e'),
	(30003, 'SRID=4326;POINT(0 40)', NULL, NULL, NULL, NULL, NULL, NULL);
CREATE INDEX shops_idx ON shops USING geoidx (pos, cat, big, open, name, u) INCLUDE (note);
-- rows added after the build go through inserts and splits
INSERT INTO shops
SELECT 40000 + i, ST_SetSRID(ST_MakePoint(-30 + 60 * random(), 20 + 40 * random()), 4326), i % 9, i, i % 2 = 0,
	'late ' || (i % 5), NULL, repeat('y', i % 300)
FROM generate_series(1, 6000) i;
VACUUM ANALYZE shops;
SELECT geoidx_verify('shops_idx');
CREATE TABLE ref AS SELECT *, ST_Distance(pos::geography, 'SRID=4326;POINT(2 45)'::geography) AS d FROM shops;

SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- one ordered index scan: the filter is an index condition, no Filter, no Sort
EXPLAIN (COSTS OFF)
SELECT id FROM shops WHERE cat = 1 ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT 10;
EXPLAIN (COSTS OFF)
SELECT id FROM shops WHERE cat IN (1, 2) AND name = 'shop 1' ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT 10;
EXPLAIN (COSTS OFF)
SELECT id FROM shops WHERE big BETWEEN 5 AND 7000000000 AND geoidx_dwithin(pos, 'SRID=4326;POINT(2 45)', 5e5);
-- a boolean column as itself and negated (<> is no index operator: a filter), and an
-- empty list: nothing to read but the metapage
EXPLAIN (COSTS OFF)
SELECT id FROM shops WHERE open AND NOT (cat = 0) ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT 10;
EXPLAIN (COSTS OFF)
SELECT id FROM shops WHERE NOT open ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT 10;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS)
SELECT id FROM shops WHERE cat = ANY ('{}') ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT 10;
-- and the planner knows it at ordinary settings: such a list costs no page (a
-- sequential scan and a Sort were chosen before, for an index walk it thought whole)
RESET enable_seqscan;
RESET enable_bitmapscan;
EXPLAIN (COSTS OFF)
SELECT id FROM shops WHERE cat = ANY ('{}') ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT 10;
EXPLAIN (COSTS OFF)
SELECT id FROM shops WHERE name = ANY (ARRAY[NULL, NULL]::text[]) ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT 10;
SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- k-NN over the rows that match, at 50 %, 1 % and 0.01 %, and combinations:
-- the distances equal ST_Distance(geography) ordered over the filtered rows
CREATE FUNCTION knn_same(cond text, k int) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE a float8[]; b float8[];
BEGIN
	EXECUTE format($q$SELECT array_agg(d) FROM (SELECT pos <~> 'SRID=4326;POINT(2 45)' AS d FROM shops
		WHERE %s ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT %s) s$q$, cond, k) INTO a;
	EXECUTE format($q$SELECT array_agg(d) FROM (SELECT d FROM ref WHERE %s ORDER BY d LIMIT %s) s$q$, cond, k) INTO b;
	RETURN a IS NOT DISTINCT FROM b;
END $$;
SELECT cond, k, knn_same(cond, k) AS same FROM (VALUES
	('cat = 0', 10), ('cat = 1', 10), ('cat = 2', 10), ('cat = 1', 400), ('cat = 2', 5),
	('cat IN (1, 2)', 50), ('cat = ANY (ARRAY[2, NULL])', 10), ('cat <> 0 AND cat < 4', 20),
	('big = 7000000000', 10), ('big >= 999000000000', 10), ('open', 10), ('NOT open', 10), ('open = false', 10),
	('name = ''shop 7''', 10), ('name > ''shop 8''', 10), ('name IN (''shop 3'', ''late 2'')', 30),
	('u = ''' || md5('17')::uuid || '''', 1), ('u IN (''' || md5('17')::uuid || ''', ''' || md5('1700')::uuid || ''')', 5),
	('cat = 1 AND geoidx_dwithin(pos, ''SRID=4326;POINT(2 45)'', 1e6)', 10),
	('cat = 3 AND pos <~> ''SRID=4326;POINT(2 45)'' > 1e6', 10),
	('cat = 1 AND name = ''shop 1'' AND open', 10), ('cat = 99', 10), ('cat IS NULL', 10),
	('u IS NOT NULL AND cat = 2', 5), ('big IS NULL', 10), ('pos IS NOT NULL AND cat = 1', 10)
) q(cond, k);
-- the same through a bitmap scan and a plain index scan without ORDER BY
CREATE FUNCTION rows_same(cond text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE a int[]; b int[];
BEGIN
	EXECUTE format('SELECT array_agg(id ORDER BY id) FROM shops WHERE %s', cond) INTO a;
	EXECUTE format('SELECT array_agg(id ORDER BY id) FROM ref WHERE %s', cond) INTO b;
	RETURN a IS NOT DISTINCT FROM b;
END $$;
CREATE TABLE null_conds (cond text);
INSERT INTO null_conds VALUES ('cat IS NULL'), ('pos IS NULL'), ('pos IS NOT NULL AND big IS NULL'),
	('u IS NULL AND name IS NOT NULL AND cat = 1'), ('pos IS NULL AND pos IS NOT NULL'), ('open IS NULL AND pos IS NOT NULL');
SELECT cond, rows_same(cond) AS index_scan FROM (VALUES ('cat = 2'), ('cat IN (1, 2) AND open'),
	('cat = 1 AND geoidx_dwithin(pos, ''SRID=4326;POINT(2 45)'', 1e6)'), ('name = ''shop 1'' AND big < 3000000000')
	UNION ALL SELECT cond FROM null_conds) q(cond);
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT cond, rows_same(cond) AS bitmap_scan FROM (VALUES ('cat = 2'), ('cat IN (1, 2) AND open'),
	('cat = 1 AND geoidx_dwithin(pos, ''SRID=4326;POINT(2 45)'', 1e6)'), ('name = ''shop 1'' AND big < 3000000000')
	UNION ALL SELECT cond FROM null_conds) q(cond);
SET enable_indexscan = on;
SET enable_bitmapscan = off;
-- IS NULL and IS NOT NULL are index conditions, on the point and on the other columns
EXPLAIN (COSTS OFF)
SELECT id FROM shops WHERE cat IS NULL AND u IS NOT NULL ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT 10;
EXPLAIN (COSTS OFF) SELECT count(*) FROM shops WHERE pos IS NULL;
DROP TABLE null_conds;
-- without a condition on the point the index still returns rows with a NULL or EMPTY point
EXPLAIN (COSTS OFF) SELECT id FROM shops WHERE cat = 1;
SELECT rows_same('cat = 1') AS every_row, rows_same('cat = 1 AND (pos IS NULL OR ST_IsEmpty(pos))') AS null_and_empty,
	(SELECT array_agg(id ORDER BY id) FROM shops WHERE cat = 1 AND (pos IS NULL OR ST_IsEmpty(pos))) AS ids;

-- index-only: the columns after the point and INCLUDE come from the index
EXPLAIN (COSTS OFF)
SELECT pos, cat, name, note FROM shops WHERE cat = 1 ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT 5;
SELECT count(*) FILTER (WHERE s.note IS NOT DISTINCT FROM r.note AND s.name IS NOT DISTINCT FROM r.name
		AND ST_Equals(s.pos, r.pos) AND s.cat = r.cat AND s.u IS NOT DISTINCT FROM r.u) AS same, count(*)
FROM (SELECT id, pos, cat, name, note, u FROM shops WHERE cat IN (1, 2) ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT 300) s
JOIN ref r USING (id);

-- VACUUM repacks the payloads; the answers stay
DELETE FROM shops WHERE id % 4 = 1;
DELETE FROM ref WHERE id % 4 = 1;
VACUUM shops;
SELECT geoidx_verify('shops_idx');
SELECT knn_same('cat = 1', 50) AS after_vacuum, knn_same('name = ''late 3''', 50) AS after_vacuum_text;
UPDATE shops SET cat = 2, name = 'moved' WHERE id % 97 = 0;
UPDATE ref SET cat = 2, name = 'moved' WHERE id % 97 = 0;
SELECT geoidx_verify('shops_idx');
SELECT knn_same('cat = 2 AND name = ''moved''', 30) AS after_update;

-- a partial index is proved from the conditions as written: on its table nothing is rewritten
CREATE INDEX shops_open_part ON shops (id) WHERE open;
EXPLAIN (COSTS OFF) SELECT id FROM shops WHERE open AND cat IN (1, 2) ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT 10;
SELECT knn_same('open AND cat IN (1, 2)', 10) AS with_partial_index;
DROP INDEX shops_open_part;

-- limits and mistakes
INSERT INTO shops (id, pos, cat, name) SELECT 99999, 'SRID=4326;POINT(1 1)', 1, string_agg(md5(i::text), '') FROM generate_series(1, 100) i;
CREATE INDEX ON shops USING geoidx (cat, pos);
CREATE INDEX ON shops USING geoidx (pos, pos);
CREATE INDEX ON ref USING geoidx (pos, d);
SELECT geoidx_verify('shops_idx');
-- the planner: cat = 1 without ORDER BY or point condition prefers other plans
RESET enable_seqscan;
RESET enable_bitmapscan;
EXPLAIN (COSTS OFF) SELECT count(*) FROM shops WHERE cat = 0;

-- a wide row: the toaster compresses its short note in the heap, while the
-- INSERT hands the index the note as written; either way the entry's payload
-- is the same bytes, as geoidx_verify compares them with the heap's
CREATE TABLE wide_rows (pos geometry(Point, 4326), note text, blob text);
-- (a 1,920-byte EXTERNAL blob stays inline, and the toaster compresses the note to bring the row under 2 kB)
ALTER TABLE wide_rows ALTER COLUMN blob SET STORAGE EXTERNAL;
CREATE INDEX wide_rows_idx ON wide_rows USING geoidx (pos) INCLUDE (note);
INSERT INTO wide_rows SELECT 'SRID=4326;POINT(3 4)', repeat('ab', 100), string_agg(md5(i::text), '') FROM generate_series(1, 60) i;
SELECT pg_column_size(note) < 200 AS note_compressed_in_heap FROM wide_rows;
SELECT geoidx_verify('wide_rows_idx');
REINDEX INDEX wide_rows_idx;
SELECT geoidx_verify('wide_rows_idx');
SET enable_seqscan = off;
SELECT note = repeat('ab', 100) AS note_from_index FROM wide_rows WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(3 4)', 1);
RESET enable_seqscan;
DROP TABLE wide_rows;

DROP TABLE shops, ref;
DROP FUNCTION knn_same(text, int);
DROP FUNCTION rows_same(text);

-- integer and boolean conditions are read at their column's fixed place in a
-- payload with no NULL (src/pg/scan_filter.h): every width, every alignment
-- before and after an int8, a column behind a variable-width one (which has
-- no fixed place), and rows with NULLs, which take the general test
CREATE TABLE fixed (id int PRIMARY KEY, pos geometry(Point, 4326), s int2, b bool, l int8, i int4,
	t text, j int4);
INSERT INTO fixed SELECT n, ST_SetSRID(ST_MakePoint(-20 + 40 * random(), 30 + 30 * random()), 4326),
	(n % 11 - 5)::int2, n % 3 = 0, (n % 13)::int8 * 3000000000 - 20000000000, n % 17 - 8,
	repeat('t', n % 9), n % 19
FROM generate_series(1, 20000) n;
UPDATE fixed SET s = NULL WHERE id % 23 = 0;
UPDATE fixed SET l = NULL WHERE id % 29 = 0;
UPDATE fixed SET t = NULL WHERE id % 31 = 0;
CREATE INDEX fixed_idx ON fixed USING geoidx (pos, s, b, l, i, t, j);
CREATE TABLE fixed_ref AS SELECT *, ST_Distance(pos::geography, 'SRID=4326;POINT(2 45)'::geography) AS d FROM fixed;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT id FROM fixed WHERE s >= 5 AND b AND l > 0 AND i >= 3 ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT 25;
CREATE FUNCTION fixed_same(cond text, k int) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE a float8[]; b float8[];
BEGIN
	EXECUTE format($q$SELECT array_agg(d) FROM (SELECT pos <~> 'SRID=4326;POINT(2 45)' AS d FROM fixed
		WHERE %s ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT %s) s$q$, cond, k) INTO a;
	EXECUTE format($q$SELECT array_agg(d) FROM (SELECT d FROM fixed_ref WHERE %s ORDER BY d LIMIT %s) s$q$, cond, k) INTO b;
	RETURN a IS NOT DISTINCT FROM b AND cardinality(a) = k;
END $$;
SELECT cond, fixed_same(cond, 25) AS same FROM (VALUES ('s = -3'), ('s < -4'), ('s >= 5 AND b'), ('NOT b AND s = 0'),
	('l = 16000000000'), ('l <= -20000000000'), ('l > 15000000000 AND i = 8'), ('i = -8'), ('i > 7 AND s <= -5'),
	('j = 4'), ('j = 18 AND i = 0'), ('b AND l = -2000000000 AND i < 0'), ('s = 2 AND l = 1000000000'),
	('s >= 5 AND b AND l > 0 AND i >= 3')) q(cond);

-- a leaf whose payloads all have one size says so, and such a filter then
-- reads each payload before its entry (scan_page.cc): answers on such leaves,
-- after rows with a longer text (a larger payload) clear the claim of the
-- leaves they reach, and after VACUUM removes them and rewrites those leaves
CREATE EXTENSION IF NOT EXISTS pageinspect;
CREATE FUNCTION uniform_leaves(idx regclass) RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM generate_series(1, pg_relation_size(idx) / 8192 - 1) b,
		LATERAL (SELECT get_raw_page(idx::text, b::int) AS p) r
	WHERE get_byte(p, 8182) & 2 = 2 AND get_byte(p, 8184) + 256 * get_byte(p, 8185) > 0 $$;
CREATE TABLE uni (id int PRIMARY KEY, pos geometry(Point, 4326), c int4, k int8, t text);
INSERT INTO uni SELECT n, ST_SetSRID(ST_MakePoint(-20 + 40 * random(), 30 + 30 * random()), 4326),
	n % 37, n, 'x' FROM generate_series(1, 20000) n;
CREATE INDEX uni_idx ON uni USING geoidx (pos, c, k, t);
CREATE FUNCTION uni_same(n int) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE a float8[]; b float8[]; bad int := 0;
BEGIN
	FOR cat IN 0..36 LOOP
		SELECT array_agg(d) INTO a FROM (SELECT pos <~> 'SRID=4326;POINT(2 45)' AS d FROM uni
			WHERE c = cat AND k > 100::int8 ORDER BY pos <~> 'SRID=4326;POINT(2 45)' LIMIT n) s;
		SET LOCAL enable_indexscan = off;
		SELECT array_agg(d) INTO b FROM (SELECT ST_Distance(pos::geography, 'SRID=4326;POINT(2 45)'::geography) AS d
			FROM uni WHERE c = cat AND k > 100::int8 ORDER BY 1 LIMIT n) s;
		RESET enable_indexscan;
		IF a IS DISTINCT FROM b OR cardinality(a) <> n THEN
			bad := bad + 1;
		END IF;
	END LOOP;
	RETURN bad = 0;
END $$;
SELECT uniform_leaves('uni_idx') = leaf_pages AS every_leaf_uniform FROM geoidx_stats('uni_idx');
SELECT uni_same(25) AS same_uniform;
INSERT INTO uni SELECT 100000 + n, ST_SetSRID(ST_MakePoint(-20 + 40 * random(), 30 + 30 * random()), 4326),
	CASE WHEN n % 2 = 0 THEN NULL ELSE 7 END, n, 'a longer text' FROM generate_series(1, 3000) n;
SELECT uniform_leaves('uni_idx') < leaf_pages / 2 AS most_leaves_mixed FROM geoidx_stats('uni_idx');
SELECT geoidx_verify('uni_idx');
SELECT uni_same(25) AS same_mixed;
DELETE FROM uni WHERE id > 100000;
VACUUM uni;
SELECT uniform_leaves('uni_idx') > leaf_pages * 0.9 AS uniform_again FROM geoidx_stats('uni_idx');
SELECT geoidx_verify('uni_idx');
SELECT uni_same(25) AS same_after_vacuum;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE fixed, fixed_ref, uni;
DROP FUNCTION fixed_same(text, int);
DROP FUNCTION uni_same(int);
DROP FUNCTION uniform_leaves(regclass);
DROP EXTENSION pageinspect;
