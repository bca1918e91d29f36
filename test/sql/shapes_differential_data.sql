-- The shapes differential test's data (090_shapes_differential.pl): the 195
-- NYC neighbourhoods and the 5 boroughs copied to :places places across the
-- globe (NYC itself, straddling the antimeridian, reaching 85 N and 85 S, the
-- southern hemisphere, ...), generated shapes (caps around both poles, a
-- hemisphere-sized polygon, holes, multipolygons, lines, a collection, a 1 m
-- square, a 10,000 km polygon, SRID 0, two 20,000-vertex rings),
-- and probes: the bus positions copied
-- with their place, the shapes' own vertices and edge midpoints, a lattice
-- over each place, a global lattice and the poles. Query shapes (shape-shape
-- pairs): small polygons, lines and collections at one bus in four.
-- Deterministic: no random(). :datadir is the repository's data/ directory;
-- :places, :step and :thin size the sample (090_shapes_differential.pl).
SET client_min_messages = warning;

CREATE TABLE src (tag text, line text, n bigserial);
\set ntas :datadir '/gofence-profiling/nyc/nyc_ntas.geojson'
\set boros :datadir '/gofence-profiling/nyc/nyc_burroughs.geojson'
\set feed :datadir '/gofence-profiling/nyc/nyc_mta_vehiclemonitoring_1457799429_feed.geojson'
CREATE TEMP TABLE raw (line text, n bigserial);
COPY raw (line) FROM :'ntas' WITH (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x01');
INSERT INTO src (tag, line) SELECT 'ntas', line FROM raw ORDER BY n;
TRUNCATE raw;
COPY raw (line) FROM :'boros' WITH (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x01');
INSERT INTO src (tag, line) SELECT 'boros', string_agg(line, E'\n' ORDER BY n) FROM raw;
TRUNCATE raw;
COPY raw (line) FROM :'feed' WITH (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x01');
INSERT INTO src (tag, line) SELECT 'feed', string_agg(line, E'\n' ORDER BY n) FROM raw;

CREATE TABLE nyc (i int, shape geometry);
INSERT INTO nyc
SELECT f.i::int, ST_SetSRID(ST_GeomFromGeoJSON(f.feat -> 'geometry'), 4326)
FROM src s, jsonb_array_elements(s.line::jsonb -> 'features') WITH ORDINALITY AS f(feat, i)
WHERE s.tag = 'ntas';
INSERT INTO nyc
SELECT 1000 + f.i::int, ST_SetSRID(ST_GeomFromGeoJSON(f.feat -> 'geometry'), 4326)
FROM src s, jsonb_array_elements(s.line::jsonb -> 'features') WITH ORDINALITY AS f(feat, i)
WHERE s.tag = 'boros';
CREATE TABLE bus (j int, pt geometry);
INSERT INTO bus
SELECT f.j::int, ST_SetSRID(ST_GeomFromGeoJSON(f.feat -> 'geometry'), 4326)
FROM src s, jsonb_array_elements(s.line::jsonb -> 'features') WITH ORDINALITY AS f(feat, j)
WHERE s.tag = 'feed';

-- NYC spans x -74.26..-73.70, y 40.50..40.92. Coordinates past 180 are
-- wrapped by the geography cast (and by geoidx) vertex by vertex, so the
-- antimeridian copy is a polygon whose edges cross it.
CREATE TABLE places (place int PRIMARY KEY, dx float8, dy float8);
INSERT INTO places VALUES
	(0, 0, 0),            -- NYC
	(1, 253.9, 0),        -- across the antimeridian (x 179.64 .. 180.20)
	(2, 0, 44.15),        -- up to 85 N
	(3, 150, -125.4),     -- down to 85 S
	(4, 100, -75),        -- southern hemisphere, longitude 26..27
	(5, -100, 0.3),       -- the Pacific, x -174
	(6, 74, -40.6),       -- the equator and the prime meridian
	(7, 200, 20),         -- Asia, 60 N
	(8, 20, -100),        -- 59 S
	(9, 253.9, -125.4),   -- the antimeridian at 85 S
	(10, -105.5, 44.15),  -- the antimeridian (x -179.8) at 85 N
	(11, 160, -20);       -- 20 N
DELETE FROM places WHERE place >= :places;

-- zones: id = place * 10000 + i (NTAs 1..195, boroughs 1001..1005)
CREATE TABLE zones (id int PRIMARY KEY, kind text NOT NULL, shape geometry NOT NULL);
INSERT INTO zones
SELECT p.place * 10000 + n.i, CASE WHEN n.i > 1000 THEN 'borough' ELSE 'nta' END,
	ST_Translate(n.shape, p.dx, p.dy)
FROM places p, nyc n;

-- generated zones, ids from 900000
INSERT INTO zones VALUES
	(900001, 'cap-north', 'SRID=4326;POLYGON((-180 75, -120 75, -60 75, 0 75, 60 75, 120 75, 180 75, 180 90, -180 90, -180 75))'),
	(900002, 'ring-north', 'SRID=4326;POLYGON((0 80, 90 80, 180 80, -90 80, 0 80))'),
	(900003, 'ring-south', 'SRID=4326;POLYGON((0 -78, -90 -78, 180 -78, 90 -78, 0 -78))'),
	(900004, 'cap-south', 'SRID=4326;POLYGON((-180 -90, 180 -90, 180 -70, 90 -70, 0 -70, -90 -70, -180 -70, -180 -90))'),
	(900005, 'hemisphere', ST_SetSRID(ST_Segmentize('POLYGON((-89 -80, 89 -80, 89 80, -89 80, -89 -80))'::geometry, 5), 4326)),
	(900006, 'holes', 'SRID=4326;POLYGON((10 10, 14 10, 14 14, 10 14, 10 10), (11 11, 11 12, 12 12, 12 11, 11 11), (12.5 12.5, 12.5 13.5, 13.5 13.5, 12.5 12.5))'),
	(900007, 'multi', 'SRID=4326;MULTIPOLYGON(((20 -10, 21 -10, 21 -9, 20 -10)), ((21 -9, 22 -9, 22 -8, 21 -8, 21 -9)), ((30 -10, 40 -10, 40 0, 30 0, 30 -10), (32 -8, 38 -8, 38 -2, 32 -2, 32 -8)))'),
	(900008, 'line', 'SRID=4326;LINESTRING(-74.2 40.6, -73.9 40.8, -73.75 40.7)'),
	(900009, 'line-antimeridian', 'SRID=4326;LINESTRING(179.5 -10, -179.5 -9, -179 -11)'),
	(900010, 'collection', 'SRID=4326;GEOMETRYCOLLECTION(POINT(-73.95 40.78), LINESTRING(-74 40.7, -73.98 40.72), POLYGON((-73.9 40.6, -73.88 40.6, -73.88 40.62, -73.9 40.6)))'),
	(900011, 'one-metre', 'SRID=4326;POLYGON((-73.96 40.78, -73.959988 40.78, -73.959988 40.780009, -73.96 40.780009, -73.96 40.78))'),
	(900012, '10000km', ST_SetSRID(ST_Segmentize('POLYGON((-60 -40, 30 -40, 30 40, -60 40, -60 -40))'::geometry, 10), 4326)),
	(900013, 'srid0', ST_Translate(ST_SetSRID((SELECT shape FROM nyc WHERE i = 7), 0), 0, 0)),
	(900014, 'point', 'SRID=4326;POINT(-73.97 40.75)'),
	(900015, 'multipoint', 'SRID=4326;MULTIPOINT(-73.97 40.76, -73.96 40.77)'),
	(900016, 'band', ST_SetSRID(ST_Segmentize('POLYGON((-100 59, 100 59, 100 61, -100 61, -100 59))'::geometry, 50), 4326)),
	(900017, 'antimeridian-box', 'SRID=4326;POLYGON((179 -20, -179 -20, -179 -18, 179 -18, 179 -20))');
-- large polygons, which the index keeps with their pieces (4,096 vertices or
-- more): a 20,000-vertex wobbly ring in NYC and another across
-- the antimeridian (with place 1, when there is one)
INSERT INTO zones
SELECT 900000 + k, 'large-ring', ST_SetSRID(ST_MakePolygon(ST_AddPoint(l, ST_StartPoint(l))), 4326) FROM (
	SELECT k, ST_MakeLine(ST_MakePoint(cx + r * (1 + 0.1 * sin(37 * a)) * cos(a) / cos(radians(cy)),
		cy + r * (1 + 0.1 * sin(37 * a)) * sin(a)) ORDER BY i) AS l
	FROM (VALUES (18, -73.96, 40.75, 0.05, 20000), (19, 179.93, 40.71, 0.1, 20000)) c(k, cx, cy, r, n),
		LATERAL (SELECT i, 2 * pi() * i / n AS a FROM generate_series(0, n - 1) i) s
	GROUP BY k) q;

-- probes: id from 1; kind says which
CREATE TABLE probes (id serial PRIMARY KEY, kind text NOT NULL, pt geometry NOT NULL);
INSERT INTO probes (kind, pt)
SELECT 'bus', ST_Translate(b.pt, p.dx, p.dy) FROM places p, bus b WHERE b.j % :thin = 0 ORDER BY p.place, b.j;
-- every :step'th vertex (40th in the full run), and every :step'th edge's geodesic midpoint (on the edge
-- as PostGIS's geography sees it, within its rounding)
INSERT INTO probes (kind, pt)
SELECT 'vertex', d.geom
FROM zones z, ST_DumpPoints(z.shape) d
WHERE z.kind NOT IN ('point', 'multipoint') AND (z.id + d.path[array_upper(d.path, 1)]) % :step = 0
ORDER BY z.id, d.path;
CREATE FUNCTION gc_midpoint(a geometry, b geometry) RETURNS geometry LANGUAGE sql IMMUTABLE AS $$
	SELECT ST_SetSRID(ST_MakePoint(degrees(atan2(y, x)), degrees(atan2(z, sqrt(x * x + y * y)))), ST_SRID(a))
	FROM (SELECT cos(radians(ST_Y(a))) * cos(radians(ST_X(a))) + cos(radians(ST_Y(b))) * cos(radians(ST_X(b))) AS x,
				 cos(radians(ST_Y(a))) * sin(radians(ST_X(a))) + cos(radians(ST_Y(b))) * sin(radians(ST_X(b))) AS y,
				 sin(radians(ST_Y(a))) + sin(radians(ST_Y(b))) AS z) v $$;
INSERT INTO probes (kind, pt)
SELECT 'midpoint', gc_midpoint(ST_StartPoint(d.geom), ST_EndPoint(d.geom))
FROM zones z, ST_DumpSegments(z.shape) d
WHERE z.kind NOT IN ('point', 'multipoint', 'collection')
	AND (z.id + d.path[array_upper(d.path, 1)]) % :step = 5
	AND NOT ST_Equals(ST_StartPoint(d.geom), ST_EndPoint(d.geom))
ORDER BY z.id, d.path;
DROP FUNCTION gc_midpoint;
-- a lattice over each place (NYC's box and a margin), 60 x 45 (one point in :thin)
INSERT INTO probes (kind, pt)
SELECT 'lattice', ST_SetSRID(ST_MakePoint(-74.3 + 0.011 * i + p.dx, 40.46 + 0.0107 * j + p.dy), 4326)
FROM places p, generate_series(0, 59) i, generate_series(0, 44) j
WHERE 40.46 + 0.0107 * j + p.dy <= 90 AND (i + j) % :thin = 0
ORDER BY p.place, i, j;
-- the globe every 7.5 degrees, the poles, the antimeridian, and special spots
INSERT INTO probes (kind, pt)
SELECT 'globe', ST_SetSRID(ST_MakePoint(-180 + 7.5 * i, -90 + 7.5 * j), 4326)
FROM generate_series(0, 48) i, generate_series(0, 24) j ORDER BY i, j;
INSERT INTO probes (kind, pt) VALUES
	('special', 'SRID=4326;POINT(0 90)'), ('special', 'SRID=4326;POINT(0 -90)'),
	('special', 'SRID=4326;POINT(180 -19)'), ('special', 'SRID=4326;POINT(-180 -19)'),
	('special', 'SRID=4326;POINT(11.5 11.5)'), ('special', 'SRID=4326;POINT(13 13)'),
	('special', 'SRID=4326;POINT(35 -5)'), ('special', 'SRID=4326;POINT(21.5 -8.5)'),
	('special', 'SRID=4326;POINT(-73.959994 40.7800045)'), ('special', 'SRID=4326;POINT(-73.97 40.75)'),
	('special', 'SRID=4326;POINT(-73.95 40.78)'), ('special', 'SRID=4326;POINT(0 59)'),
	('special', 'SRID=4326;POINT(-179.999999 -19)'), ('special', 'SRID=4326;POINT(-30 0)');

-- query shapes at one bus in four: a ~400 m diamond, a 1 km line, a
-- collection of a point and a small triangle (shape-shape pairs)
CREATE TABLE qshapes (id serial PRIMARY KEY, kind text NOT NULL, shape geometry NOT NULL);
INSERT INTO qshapes (kind, shape)
SELECT CASE p.id % 3 WHEN 0 THEN 'diamond' WHEN 1 THEN 'line' ELSE 'collection' END,
	CASE p.id % 3
	WHEN 0 THEN ST_Buffer(p.pt, 0.002, 1)
	WHEN 1 THEN ST_MakeLine(p.pt, ST_Translate(p.pt, 0.008, 0.006))
	ELSE ST_Collect(ST_Translate(p.pt, 0.001, 0), ST_MakePolygon(ST_MakeLine(ARRAY[p.pt,
		ST_Translate(p.pt, 0.003, 0), ST_Translate(p.pt, 0, 0.003), p.pt]))) END
FROM probes p WHERE p.kind = 'bus' AND p.id % 4 = 0 ORDER BY p.id;

-- PostGIS's side works on stored geography columns, each with GiST, so that
-- its reference answers are not slowed by a cast per row
ALTER TABLE zones ADD COLUMN g geography;
UPDATE zones SET g = shape::geography;
ALTER TABLE probes ADD COLUMN g geography;
UPDATE probes SET g = pt::geography;
ALTER TABLE qshapes ADD COLUMN g geography;
UPDATE qshapes SET g = shape::geography;
CREATE INDEX zones_g ON zones USING gist (g);
CREATE INDEX probes_g ON probes USING gist (g);
CREATE INDEX qshapes_g ON qshapes USING gist (g);
CREATE INDEX zones_planar ON zones USING gist (shape);
DROP TABLE src, nyc, bus;
VACUUM ANALYZE zones;
VACUUM ANALYZE probes;
VACUUM ANALYZE qshapes;

-- PostGIS's answer for one pair alone, as `SELECT ST_Intersects(a, b)` gives
-- it: each EXECUTE is a new plan, so PostGIS's argument cache (a tree of an
-- argument that repeats from row to row) is empty and it takes the path a
-- single call takes. geoidx answers every pair with a point this way
-- (postgis_calls.cc); in a scan, PostGIS's own answer at an edge can depend on
-- the rows before it.
CREATE FUNCTION pg_alone(fn text, a geography, b geography, r float8 DEFAULT NULL, spheroid boolean DEFAULT true)
RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE v text;
BEGIN
	IF r IS NULL THEN
		EXECUTE format('SELECT %s($1, $2)::text', fn) INTO v USING a, b;
	ELSIF fn = 'ST_Distance' THEN
		EXECUTE 'SELECT ST_Distance($1, $2, $3)::text' INTO v USING a, b, spheroid;
	ELSE
		EXECUTE format('SELECT %s($1, $2, $3, $4)::text', fn) INTO v USING a, b, r, spheroid;
	END IF;
	RETURN v;
END $$;
