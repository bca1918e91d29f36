-- Sharding by location: a table range-partitioned on geoidx_cell(pos, 3)
-- (384 cells, 16 partitions of 24 consecutive cells each). A radius query
-- with cell = ANY (geoidx_covering_cells(c, r, 3)) is pruned to the
-- partitions it can touch, and still returns every row PostGIS geography
-- does (a cell missing from a covering would lose rows): 40 centres, at the
-- poles, on the antimeridian, at cube-face edges and corners and at random,
-- radii of 1, 300 and 2,500 km, against PostGIS's own geography index on an
-- unpartitioned copy.
SET client_min_messages = warning;
SELECT setseed(0.1414);
CREATE TABLE cell_pts (id int, pos geometry(Point, 4326)) PARTITION BY RANGE (geoidx_cell(pos, 3));
DO $$
BEGIN
	FOR p IN 0..15 LOOP
		EXECUTE format('CREATE TABLE cell_pts_%s PARTITION OF cell_pts FOR VALUES FROM (%s) TO (%s)', p, p * 24, (p + 1) * 24);
	END LOOP;
END $$;
-- NULL and EMPTY points have no cell: a default partition takes them
CREATE TABLE cell_pts_none PARTITION OF cell_pts DEFAULT;
CREATE TABLE cell_centres (c int, lon float8, lat float8);
INSERT INTO cell_centres VALUES (1, 0, 90), (2, 0, -90), (3, 180, 0), (4, -180, 60), (5, 179.99, -45),
	(6, 45, 0), (7, -45, 0), (8, 45, 35.2644), (9, -135, -35.2644), (10, 90, 45), (11, 0, 0),
	(12, -73.9857, 40.7484), (13, 135, 35.26);
INSERT INTO cell_centres SELECT 13 + g, 360 * random() - 180, degrees(asin(2 * random() - 1)) FROM generate_series(1, 27) g;
INSERT INTO cell_pts (id, pos)
SELECT g, ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326) FROM generate_series(1, 16000) g;
-- crowds around every centre, so that small circles have rows
INSERT INTO cell_pts (id, pos)
SELECT 100000 + c * 100 + g, ST_SetSRID(ST_MakePoint(least(180, greatest(-180, lon + 0.02 * (random() - 0.5) / greatest(0.01, cos(radians(lat))))),
	least(90, greatest(-90, lat + 0.02 * (random() - 0.5)))), 4326)
FROM cell_centres, generate_series(1, 100) g;
INSERT INTO cell_pts (id, pos) VALUES (900001, NULL), (900002, 'SRID=4326;POINT EMPTY');
CREATE INDEX ON cell_pts USING geoidx (pos);
CREATE TABLE cell_flat AS SELECT id, pos::geography AS g FROM cell_pts;
CREATE INDEX ON cell_flat USING gist (g);
ANALYZE cell_pts; ANALYZE cell_flat;
SELECT count(*) AS partitions_with_rows FROM (SELECT tableoid FROM cell_pts GROUP BY tableoid) t;
-- a cell is the prefix of the finer cells of the same point
SELECT count(*) AS rows_off_their_cell FROM cell_pts
WHERE geoidx_cell(pos, 3) <> geoidx_cell(pos, 30) >> 54 OR geoidx_cell(pos, 30) >> 50 <> geoidx_cell(pos, 5);

-- pruned: a 300 km circle at Manhattan reaches one partition
EXPLAIN (COSTS OFF)
SELECT id FROM cell_pts WHERE geoidx_cell(pos, 3) = ANY (geoidx_covering_cells('SRID=4326;POINT(-73.9857 40.7484)', 300000, 3))
	AND geoidx_dwithin(pos, 'SRID=4326;POINT(-73.9857 40.7484)', 300000);

CREATE TEMP TABLE cell_checks AS
SELECT c, r,
	(SELECT count(DISTINCT x / 24) FROM unnest(geoidx_covering_cells(ST_SetSRID(ST_MakePoint(lon, lat), 4326), r, 3)) x) AS partitions,
	(SELECT array_agg(id ORDER BY id) FROM cell_pts p
		WHERE geoidx_cell(p.pos, 3) = ANY (geoidx_covering_cells(ST_SetSRID(ST_MakePoint(lon, lat), 4326), r, 3))
		AND geoidx_dwithin(p.pos, ST_SetSRID(ST_MakePoint(lon, lat), 4326), r)) AS got,
	(SELECT array_agg(id ORDER BY id) FROM cell_flat f
		WHERE ST_DWithin(f.g, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography, r)) AS want
FROM cell_centres, unnest(ARRAY[1000, 300000, 2500000]::float8[]) r;
SELECT count(*) AS circles, count(*) FILTER (WHERE got IS NOT DISTINCT FROM want) AS same_rows,
	count(*) FILTER (WHERE want IS NOT NULL) AS with_rows, sum(cardinality(want)) AS rows_compared,
	max(partitions) FILTER (WHERE r = 1000) AS most_partitions_1km,
	round(avg(partitions) FILTER (WHERE r = 300000), 1) < 3 AS few_partitions_300km
FROM cell_checks;
SELECT c, r FROM cell_checks WHERE got IS DISTINCT FROM want ORDER BY c, r;

-- what the functions refuse
SELECT geoidx_cell('SRID=4326;LINESTRING(0 0, 1 1)'::geometry, 3);
SELECT geoidx_cell('SRID=4326;POINT(0 0)'::geometry, 31);
SELECT geoidx_covering_cells('SRID=4326;POINT(0 0)'::geometry, 1e7, 12);
SELECT geoidx_covering_cells('SRID=4326;POINT(0 0)'::geometry, -1, 3);
SELECT geoidx_cell('SRID=4326;POINT EMPTY'::geometry, 3) IS NULL AS empty_has_no_cell,
	cardinality(geoidx_covering_cells('SRID=4326;POINT(0 0)'::geometry, 'Infinity', 2)) AS every_cell_at_level_2;
DROP TABLE cell_pts, cell_flat, cell_centres;
