-- <~> and geoidx_distance between a polygon and a point, which geoidx now
-- computes itself where it can be sure of PostGIS's answer: every answer
-- compared with ST_Distance(geography), spheroid and sphere, on NYC's 195
-- neighbourhoods (the data of bench/'s zones) and on shapes made to be hard
-- (holes, two parts at one distance, the antimeridian, a pole, a shape
-- larger than geoidx answers for), with how many geoidx computed.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set ntas :abs_srcdir '/data/gofence-profiling/nyc/nyc_ntas.geojson'
\set feed :abs_srcdir '/data/gofence-profiling/nyc/nyc_mta_vehiclemonitoring_1457799429_feed.geojson'
CREATE TABLE nta AS
SELECT f.i::int AS id, ST_SetSRID(ST_GeomFromGeoJSON(f.feat -> 'geometry'), 4326) AS shape
FROM jsonb_array_elements(pg_read_file(:'ntas')::jsonb -> 'features') WITH ORDINALITY AS f(feat, i);
CREATE TABLE bus AS
SELECT f.j::int AS id, ST_SetSRID(ST_GeomFromGeoJSON(f.feat -> 'geometry'), 4326) AS pt
FROM jsonb_array_elements(pg_read_file(:'feed')::jsonb -> 'features') WITH ORDINALITY AS f(feat, j);
SELECT count(*) AS zones, sum(ST_NPoints(shape)) AS vertices FROM nta;
-- every 8th bus, a vertex of each zone, and points 1 m and 1 km off an edge's middle
CREATE TABLE probe (id int, pt geometry);
INSERT INTO probe SELECT id, pt FROM bus WHERE id % 8 = 0;
INSERT INTO probe SELECT 10000 + id, ST_PointN(ST_ExteriorRing(ST_GeometryN(shape, 1)), 5) FROM nta;
INSERT INTO probe
SELECT 20000 + id * 2 + k, ST_Project(ST_LineInterpolatePoint(e, 0.5)::geography, m, ST_Azimuth(ST_StartPoint(e), ST_EndPoint(e)) + pi() / 2)::geometry
FROM (SELECT id, ST_MakeLine(ST_PointN(r, 7), ST_PointN(r, 8)) e FROM (SELECT id, ST_ExteriorRing(ST_GeometryN(shape, 1)) r FROM nta) s) t,
	(VALUES (0, 1.0), (1, 1000.0)) v(k, m);
SELECT count(*) AS probes FROM probe;

CREATE TABLE d0 AS SELECT * FROM geoidx_shape_distances();
-- the pairs within about 3 km: a probe's own zone, its neighbours, and the zones across a street
CREATE TABLE pair AS
SELECT p.id AS pid, z.id AS zid, z.shape <~> p.pt AS g, p.pt <~> z.shape AS g_swapped,
	geoidx_distance(z.shape, p.pt, false) AS g_sphere,
	ST_Distance(z.shape::geography, p.pt::geography) AS pg,
	ST_Distance(z.shape::geography, p.pt::geography, false) AS pg_sphere,
	geoidx_intersects(z.shape, p.pt) AS gi, geoidx_intersects(p.pt, z.shape) AS gi_swapped,
	ST_Intersects(z.shape::geography, p.pt::geography) AS pgi
FROM probe p JOIN nta z ON ST_DWithin(z.shape, p.pt, 0.03)
ORDER BY p.id, z.id;
CREATE TABLE d1 AS SELECT * FROM geoidx_shape_distances();
SELECT count(*) >= 5000 AS many_pairs,
	count(*) FILTER (WHERE pg = 0) > 300 AS some_inside,
	count(*) FILTER (WHERE g IS DISTINCT FROM pg) AS spheroid_differs,
	count(*) FILTER (WHERE g_swapped IS DISTINCT FROM pg) AS swapped_differs,
	count(*) FILTER (WHERE g_sphere IS DISTINCT FROM pg_sphere) AS sphere_differs
FROM pair;
-- geoidx_intersects, which the distance bounds decide away from the edges
SELECT count(*) FILTER (WHERE pgi) > 300 AS some_intersect,
	count(*) FILTER (WHERE gi IS DISTINCT FROM pgi) AS intersects_differs,
	count(*) FILTER (WHERE gi_swapped IS DISTINCT FROM pgi) AS swapped_intersects_differs
FROM pair;
-- geoidx computed (not PostGIS) at least 90 % of them
SELECT (d1.computed - d0.computed) >= 0.9 * 3 * (SELECT count(*) FROM pair) AS mostly_computed
FROM d0, d1;

-- shapes made to be hard, each against a spread of points
CREATE TABLE hard (id int, shape geometry);
INSERT INTO hard VALUES
	(1, 'SRID=4326;POLYGON((10 10, 11 10, 11 11, 10 11, 10 10), (10.4 10.4, 10.6 10.4, 10.6 10.6, 10.4 10.6, 10.4 10.4))'),  -- a hole
	(2, 'SRID=4326;MULTIPOLYGON(((20 0, 20.5 0, 20.5 0.5, 20 0.5, 20 0)), ((21 0, 21.5 0, 21.5 0.5, 21 0.5, 21 0)))'),     -- two parts at one distance from x = 20.75
	(3, 'SRID=4326;POLYGON((179.5 -5, -179.5 -5, -179.5 -4, 179.5 -4, 179.5 -5))'),                                        -- across the antimeridian
	(4, 'SRID=4326;POLYGON((0 88, 120 88, -120 88, 0 88))'),                                                              -- around the north pole
	(5, 'SRID=4326;POLYGON((-60 -30, 60 -30, 60 30, -60 30, -60 -30))'),                                                   -- too large for geoidx
	(6, 'SRID=4326;POLYGON((30 30, 30.000001 30, 30.000001 30.000001, 30 30.000001, 30 30))'),                           -- a tenth of a metre
	(7, 'SRID=4326;POLYGON((40 40, 40.1 40, 40.1 40.1, 40 40.1, 40 40), (40.1 40.05, 40.2 40.05, 40.2 40.06, 40.1 40.05))'); -- an invalid hole poking out
CREATE TABLE hard_probe AS
SELECT h.id AS hid, ST_SetSRID(ST_MakePoint(ST_X(c) + dx, ST_Y(c) + dy), 4326) AS pt
FROM hard h, LATERAL (SELECT ST_Centroid(h.shape) c) cc,
	(SELECT a * 0.37, b * 0.29 FROM generate_series(-4, 4) a, generate_series(-4, 4) b) d(dx, dy);
INSERT INTO hard_probe VALUES (2, 'SRID=4326;POINT(20.75 0.25)'), (2, 'SRID=4326;POINT(20.75 0.3)'),
	(3, 'SRID=4326;POINT(180 -4.5)'), (3, 'SRID=4326;POINT(-180 -3.9)'), (4, 'SRID=4326;POINT(0 90)'),
	(4, 'SRID=4326;POINT(60 87.9)'), (6, 'SRID=4326;POINT(30.0000005 30.0000005)'), (6, 'SRID=4326;POINT(30.000002 30)');
SELECT h.id, count(*) AS points,
	count(*) FILTER (WHERE (h.shape <~> p.pt) IS DISTINCT FROM ST_Distance(h.shape::geography, p.pt::geography)) AS spheroid_differs,
	count(*) FILTER (WHERE geoidx_distance(p.pt, h.shape, false) IS DISTINCT FROM ST_Distance(h.shape::geography, p.pt::geography, false)) AS sphere_differs
FROM hard h JOIN hard_probe p ON p.hid = h.id GROUP BY h.id ORDER BY h.id;
-- the equidistant parts and the large shape went to PostGIS
SELECT (SELECT by_postgis FROM geoidx_shape_distances()) - d1.by_postgis >= 3 AS ties_deferred FROM d1;

-- the ordered scan on the zones gives PostGIS's distances in order
CREATE INDEX nta_shape ON nta USING geoidx (shape);
SET enable_seqscan = off;
SELECT count(*) AS probes,
	count(*) FILTER (WHERE g IS DISTINCT FROM w) AS knn_differs
FROM (SELECT p.id,
	(SELECT array_agg(d) FROM (SELECT z.shape <~> p.pt d FROM nta z ORDER BY z.shape <~> p.pt LIMIT 5) a) g,
	(SELECT array_agg(d) FROM (SELECT d FROM (SELECT ST_Distance(z.shape::geography, p.pt::geography) d FROM nta z) x ORDER BY d LIMIT 5) a) w
	FROM probe p WHERE p.id < 10000 AND p.id % 5 = 0) s;
RESET enable_seqscan;
DROP TABLE nta, bus, probe, pair, d0, d1, hard, hard_probe;
