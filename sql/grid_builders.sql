-- Interior grids built as 0.2 first built them (by blocks) and as this
-- version builds them (raster) in one index: both answer as PostGIS does, and
-- geoidx_verify accepts both, while it still tells a grid that is neither.
SET client_min_messages = warning;
CREATE FUNCTION gfp(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text; BEGIN EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(hashint8(p::bigint * 100003 + id)), 0) FROM (%s) s', q) INTO r; RETURN r; END $$;
-- circles (of 4 to 12 segments a quarter) and rotated squares, whose long diagonal edges the raster tests cell by cell
CREATE TABLE gzones AS
	SELECT i AS id, ST_Buffer(ST_SetSRID(ST_MakePoint((i % 20) * 0.07 - 74.0, (i / 20) * 0.07 + 40.0), 4326),
		0.02 + (i % 7) * 0.003, 4 + i % 9) AS shape FROM generate_series(0, 199) i
	UNION ALL
	SELECT 1000 + i, ST_Rotate(ST_MakeEnvelope(-73.9 + (i % 10) * 0.1, 41.5 + (i / 10) * 0.1,
		-73.86 + (i % 10) * 0.1, 41.54 + (i / 10) * 0.1, 4326), 0.3 + i * 0.01,
		ST_Point(-73.88 + (i % 10) * 0.1, 41.52 + (i / 10) * 0.1, 4326)) FROM generate_series(0, 99) i;
CREATE TABLE gzones_blocks AS SELECT * FROM gzones;
CREATE TABLE gprobes AS SELECT i AS p, ST_SetSRID(ST_MakePoint(-74.05 + (i % 151) * 0.0097 + (i % 7) * 0.0003,
	39.95 + (i / 151) * 0.0161 + (i % 5) * 0.0004), 4326) AS pt FROM generate_series(0, 15099) i;
CREATE INDEX gzones_current_idx ON gzones USING geoidx (shape);
SET geoidx.interior_grid = blocks;
CREATE INDEX gzones_blocks_idx ON gzones_blocks USING geoidx (shape);
RESET geoidx.interior_grid;
SELECT geoidx_verify('gzones_current_idx'), geoidx_verify('gzones_blocks_idx');
-- the two builds decide different probes (else this test would show nothing), and answer alike
SET enable_seqscan = off;
CREATE TABLE gd0 AS SELECT * FROM geoidx_shape_decisions();
SELECT gfp('SELECT q.p, z.id FROM gprobes q CROSS JOIN LATERAL (SELECT id FROM gzones z WHERE geoidx_covers(z.shape, q.pt)) z') AS current_answer \gset
CREATE TABLE gd1 AS SELECT * FROM geoidx_shape_decisions();
SELECT gfp('SELECT q.p, z.id FROM gprobes q CROSS JOIN LATERAL (SELECT id FROM gzones_blocks z WHERE geoidx_covers(z.shape, q.pt)) z') AS blocks_answer \gset
CREATE TABLE gd2 AS SELECT * FROM geoidx_shape_decisions();
RESET enable_seqscan;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT gfp('SELECT q.p, z.id FROM gprobes q JOIN gzones z ON ST_Covers(z.shape::geography, q.pt::geography)') AS postgis_answer \gset
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT :'current_answer' = :'postgis_answer' AS current_same, :'blocks_answer' = :'postgis_answer' AS blocks_same,
	split_part(:'postgis_answer', ':', 1)::int > 1000 AS enough_pairs;
SELECT (gd1.accepted - gd0.accepted) + (gd1.rejected - gd0.rejected) >
	(gd2.accepted - gd1.accepted) + (gd2.rejected - gd1.rejected) AS raster_decides_more
	FROM gd0, gd1, gd2;
-- rows inserted now get this version's grids beside the old ones: still verified
INSERT INTO gzones_blocks SELECT id + 5000, ST_Translate(shape, 0.013, 0.011) FROM gzones;
SELECT geoidx_verify('gzones_blocks_idx');
-- and the other way round: old grids inserted into an index of new ones
SET geoidx.interior_grid = blocks;
INSERT INTO gzones SELECT id + 5000, ST_Translate(shape, 0.013, 0.011) FROM gzones;
RESET geoidx.interior_grid;
SELECT geoidx_verify('gzones_current_idx');
-- the setting is for superusers (it changes what an index holds)
CREATE ROLE grid_builders_nobody;
SET ROLE grid_builders_nobody;
SET geoidx.interior_grid = blocks;
RESET ROLE;
DROP ROLE grid_builders_nobody;
DROP TABLE gzones, gzones_blocks, gprobes, gd0, gd1, gd2;
DROP FUNCTION gfp(text);
