-- Data of test/t/090_shapes.pl: shapes and probes for the differential test
-- of the shape predicates against PostGIS geography. psql variable :datadir
-- is the repository's data/ directory. Deterministic: no random().
--
-- zones: the 195 NYC neighbourhood tabulation areas and the 5 boroughs
-- (gofence-profiling), copied to six places: where they are, straddling the
-- antimeridian, near latitude 85 and -85, on the equator, and in the southern
-- hemisphere; then generated shapes: caps around both poles (one with a hole
-- at the pole), a polygon larger than a hemisphere, a 10,000 km polygon, a
-- polygon with holes, a multipolygon across the antimeridian, 1 m squares, a
-- 100,000-vertex ring, lines (one across the antimeridian, one over a pole),
-- a collection, a bowtie, a ring with repeated points, NULL and EMPTY.
-- probes: the 1,962 bus positions at every place, every 200th vertex and edge
-- midpoint of every zone copy, points on and near the generated shapes, and a
-- 2-degree grid over the globe.
SET client_min_messages = warning;

\set ntas_file :datadir '/gofence-profiling/nyc/nyc_ntas.geojson'
\set boroughs_file :datadir '/gofence-profiling/nyc/nyc_burroughs.geojson'
\set feed_file :datadir '/gofence-profiling/nyc/nyc_mta_vehiclemonitoring_1457799429_feed.geojson'

CREATE TEMP TABLE nyc AS
SELECT row_number() OVER ()::int AS i, ST_SetSRID(ST_GeomFromGeoJSON(f -> 'geometry'), 4326) AS shape
FROM (SELECT jsonb_array_elements(pg_read_file(:'ntas_file')::jsonb -> 'features') f
      UNION ALL
      SELECT jsonb_array_elements(pg_read_file(:'boroughs_file')::jsonb -> 'features')) s;

CREATE TEMP TABLE buses AS
SELECT row_number() OVER ()::int AS j, ST_SetSRID(ST_GeomFromGeoJSON(f -> 'geometry'), 4326) AS pos
FROM jsonb_array_elements(pg_read_file(:'feed_file')::jsonb -> 'features') f;

CREATE TEMP TABLE places (k int, dx float8, dy float8);
INSERT INTO places VALUES (0, 0, 0), (1, 253.98, 0), (2, 0, 44.2), (3, 0, -125.5), (4, 100, -40.7), (5, 150, -80);

CREATE TABLE zones (id int PRIMARY KEY, kind text NOT NULL, shape geometry);
INSERT INTO zones SELECT 1000 * p.k + n.i, 'nyc', ST_Translate(n.shape, p.dx, p.dy) FROM places p, nyc n;

-- a ring of n + 1 vertices along latitude lat from lon0 to lon1
CREATE FUNCTION parallel_ring(lat float8, lon0 float8, lon1 float8, n int) RETURNS geometry[]
LANGUAGE sql IMMUTABLE AS $$
	SELECT array_agg(ST_MakePoint(lon0 + (lon1 - lon0) * i / n, lat) ORDER BY i) FROM generate_series(0, n) i $$;
-- a closed ring along latitude lat around the globe, n vertices, eastwards or westwards
CREATE FUNCTION circle_ring(lat float8, n int, east boolean) RETURNS geometry
LANGUAGE sql IMMUTABLE AS $$
	SELECT ST_MakeLine(array_agg(ST_MakePoint(CASE WHEN east THEN -180 + 360.0 * (i % n) / n
		ELSE 180 - 360.0 * (i % n) / n END, lat) ORDER BY i)) FROM generate_series(0, n) i $$;
CREATE FUNCTION box_ring(x0 float8, y0 float8, x1 float8, y1 float8, n int) RETURNS geometry
LANGUAGE sql IMMUTABLE AS $$
	SELECT ST_MakeLine(parallel_ring(y0, x0, x1, n) || parallel_ring(y1, x1, x0, n) || ARRAY[ST_MakePoint(x0, y0)]) $$;

INSERT INTO zones VALUES
	(90001, 'cap', ST_SetSRID(ST_MakePolygon(circle_ring(80, 360, true)), 4326)),
	(90002, 'cap', ST_SetSRID(ST_MakePolygon(circle_ring(-80, 360, false)), 4326)),
	(90003, 'cap', ST_SetSRID(ST_MakePolygon(circle_ring(70, 360, true), ARRAY[circle_ring(85, 360, false)]), 4326)),
	(90004, 'hemisphere+', ST_SetSRID(ST_MakePolygon(box_ring(-100, -70, 100, 70, 200)), 4326)),
	(90005, '10000km', ST_SetSRID(ST_MakePolygon(box_ring(-50, -40, 40, 40, 90)), 4326)),
	(90006, 'holes', ST_SetSRID(ST_MakePolygon(box_ring(20, 20, 30, 30, 10),
		ARRAY[box_ring(21, 21, 22, 22, 2), box_ring(25, 25, 27, 26, 2), box_ring(28, 21, 29.5, 29, 3)]), 4326)),
	(90007, 'multi', ST_SetSRID(ST_Collect(ST_MakePolygon(box_ring(170, -5, 179.5, 5, 10)),
		ST_MakePolygon(box_ring(-179.5, -5, -170, 5, 10))), 4326)),
	(90008, 'antimeridian', ST_SetSRID(ST_MakePolygon(box_ring(175, 30, 185, 40, 20)), 4326)),
	(90009, '1m', ST_SetSRID(ST_MakePolygon(box_ring(2.35, 48.85, 2.350013, 48.850009, 1)), 4326)),
	(90010, '1m', ST_SetSRID(ST_MakePolygon(box_ring(179.999995, -33.9, 180.000005, -33.899991, 1)), 4326)),
	(90011, 'ring100k', ST_SetSRID(ST_MakePolygon(ST_MakeLine(ARRAY(
		SELECT ST_MakePoint(10 + 0.5 * cos(2 * pi() * i / 100000), 50 + 0.4 * sin(2 * pi() * i / 100000))
		FROM generate_series(0, 100000) i ORDER BY i))), 4326)),
	(90012, 'line', 'SRID=4326;LINESTRING(170 10, -170 12, -160 11)'),
	(90013, 'line', 'SRID=4326;LINESTRING(0 80, 180 80)'),
	(90014, 'line', 'SRID=4326;LINESTRING(-73.99 40.73, -73.95 40.77)'),
	(90015, 'collection', 'SRID=4326;GEOMETRYCOLLECTION(POINT(5 5), LINESTRING(5 5, 6 6), POLYGON((7 7, 8 7, 8 8, 7 8, 7 7)))'),
	(90016, 'bowtie', 'SRID=4326;POLYGON((40 40, 42 42, 42 40, 40 42, 40 40))'),
	(90017, 'repeated', 'SRID=4326;POLYGON((44 40, 44 40, 46 40, 46 42, 46 42, 44 42, 44 40))'),
	(90018, 'multipoint', 'SRID=4326;MULTIPOINT((-73.97 40.75), (-73.96 40.76))'),
	(90019, 'srid0', 'POLYGON((60 10, 62 10, 62 12, 60 12, 60 10))'),
	(90020, 'null', NULL),
	(90021, 'empty', 'SRID=4326;POLYGON EMPTY');

CREATE TABLE probes (id int PRIMARY KEY, src text NOT NULL, pt geometry NOT NULL);
INSERT INTO probes SELECT 100000 * p.k + b.j, 'bus', ST_Translate(b.pos, p.dx, p.dy) FROM places p, buses b;
-- every 200th vertex and every 200th edge's midpoint of every NYC copy
CREATE TEMP SEQUENCE probe_ids START 1000000;
INSERT INTO probes SELECT nextval('probe_ids'), 'vertex', d.geom
	FROM zones z, ST_DumpPoints(z.shape) d WHERE z.kind = 'nyc' AND d.path[array_length(d.path, 1)] % 200 = 1;
INSERT INTO probes SELECT nextval('probe_ids'), 'edge', ST_LineInterpolatePoint(ST_MakeLine(a, b), 0.5)
	FROM (SELECT d.geom AS a, d.path[array_length(d.path, 1)] AS n,
			lead(d.geom) OVER (PARTITION BY z.id, d.path[1:array_length(d.path, 1) - 1]
				ORDER BY d.path[array_length(d.path, 1)]) AS b
		FROM zones z, ST_DumpPoints(z.shape) d WHERE z.kind = 'nyc') e
	WHERE e.n % 200 = 7 AND e.b IS NOT NULL;
-- on, just inside and just outside the generated shapes' vertices
INSERT INTO probes SELECT nextval('probe_ids'), 'gen-vertex', ST_Translate(d.geom, o.dx, o.dy)
	FROM zones z, ST_DumpPoints(z.shape) d, (VALUES (0, 0), (1e-7, 1e-7), (-1e-7, -1e-7), (0.01, -0.01)) o(dx, dy)
	WHERE z.kind NOT IN ('nyc', 'null', 'empty', 'srid0') AND (z.kind <> 'ring100k' OR d.path[2] % 500 = 0)
	  AND (z.kind NOT IN ('cap', 'hemisphere+') OR d.path[array_length(d.path, 1)] % 10 = 0);
-- the poles, near the caps' rings, and a 2-degree grid over the globe
INSERT INTO probes SELECT nextval('probe_ids'), 'pole', ST_SetSRID(ST_MakePoint(x, y), 4326)
	FROM (VALUES (0, 90), (0, -90), (123, 89.9999), (-45, -89.9999), (10, 79.999), (10, 80.001), (10, 85.0005), (10, 84.9995)) v(x, y);
INSERT INTO probes SELECT nextval('probe_ids'), 'grid', ST_SetSRID(ST_MakePoint(x + 0.37, y + 0.21), 4326)
	FROM generate_series(-180, 178, 2) x, generate_series(-90, 88, 2) y;

-- small shapes for the shape-shape pairs: a ~200 m square around every bus
-- position, and a ~500 m line from every other one
CREATE TABLE smalls (id int PRIMARY KEY, shape geometry NOT NULL);
INSERT INTO smalls SELECT id, ST_Expand(pt, 0.001) FROM probes WHERE src = 'bus';
INSERT INTO smalls SELECT 10000000 + id, ST_MakeLine(pt, ST_Translate(pt, 0.004, 0.003)) FROM probes WHERE src = 'bus' AND id % 2 = 0;

-- the generated shapes in a table of their own, asked by the probes near them
CREATE TABLE gen AS SELECT * FROM zones WHERE kind <> 'nyc';
DELETE FROM zones WHERE kind <> 'nyc';
CREATE TABLE gen_probes AS SELECT * FROM probes
	WHERE src IN ('gen-vertex', 'pole') OR (src = 'grid' AND id % 3 = 0) OR (src = 'bus' AND id % 20 = 0);
ALTER TABLE gen_probes ADD PRIMARY KEY (id);

ANALYZE zones;
ANALYZE gen;
ANALYZE probes;
ANALYZE gen_probes;
ANALYZE smalls;
