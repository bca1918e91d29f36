-- The bulk build sorts a single-column index's rows in a flat array while
-- they fit in maintenance_work_mem, and in a tuplesort otherwise (and for
-- indexes with payloads). Both must build the same index, byte for byte
-- (page headers' LSN and checksum aside): 100,000 rows are 3.2 MB of records,
-- over a 1 MB maintenance_work_mem and under 64 MB.
CREATE EXTENSION IF NOT EXISTS pageinspect;
SELECT setseed(0.11);
CREATE TABLE bp (id int, pos geometry(Point, 4326));
INSERT INTO bp SELECT i, CASE WHEN i % 1000 = 0 THEN NULL
	WHEN i % 1000 = 1 THEN 'SRID=4326;POINT EMPTY'::geometry
	ELSE ST_SetSRID(ST_MakePoint(360 * random() - 180, 180 * random() - 90), 4326) END
FROM generate_series(1, 100000) i;
-- duplicates: rows whose order only the TID decides
INSERT INTO bp SELECT id + 100000, pos FROM bp WHERE id % 7 = 0;
SET maintenance_work_mem = '64MB';
CREATE INDEX bp_flat ON bp USING geoidx (pos);
SET maintenance_work_mem = '1MB';
CREATE INDEX bp_sorted ON bp USING geoidx (pos);
RESET maintenance_work_mem;
CREATE FUNCTION pg_temp.pages_md5(idx regclass) RETURNS text LANGUAGE sql AS $$
	SELECT md5(string_agg(substr(get_raw_page(idx::text, b::int), 11), '' ORDER BY b))
	FROM generate_series(0, pg_relation_size(idx) / 8192 - 1) b $$;
SELECT pg_relation_size('bp_flat') = pg_relation_size('bp_sorted') AS same_size,
	pg_temp.pages_md5('bp_flat') = pg_temp.pages_md5('bp_sorted') AS same_pages;
SELECT geoidx_verify('bp_flat'), geoidx_verify('bp_sorted');
SELECT entries FROM geoidx_stats('bp_flat');
SET enable_seqscan = off;
DROP INDEX bp_sorted;
SELECT count(*) AS flat_only FROM (SELECT id FROM bp WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(179 -60)', 2e6)
	EXCEPT SELECT id FROM bp WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(179 -60)'::geography, 2e6)) d;
RESET enable_seqscan;
DROP TABLE bp;
DROP EXTENSION pageinspect;
