-- bigzones: large polygons (G5), the ones the index keeps in pieces: New York
-- City's five boroughs (NYC Open Data, via gofence-profiling) as one
-- MultiPolygon of 7 parts, its edges cut every 0.0003 degrees (~30 m) into
-- ~15,400 vertices (a city or a small country as an agency would store it),
-- copied 40 times onto a grid 1 degree apart as zones.sql copies the
-- neighbourhoods; the probes are the 1,962 bus positions of the same snapshot
-- copied with them. Much of the city's box is water and New Jersey, which
-- its pieces leave out.
--
-- Input on psql's stdin as for zones.sql: "boros" lines of
-- nyc_burroughs.geojson, "feed" lines of the vehicle-monitoring feed.
-- Zone id = k + 1, probe id = 1962 k + j. Deterministic: no random().
CREATE TEMP TABLE bigzones_src (src text NOT NULL, line text, n bigserial);
\copy bigzones_src (src, line) FROM pstdin WITH (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x01')

CREATE TEMP TABLE bigzones_city AS
SELECT ST_Segmentize(ST_Multi(ST_Collect(d.geom ORDER BY f.i, d.path)), 0.0003) AS shape
FROM (SELECT string_agg(line, E'\n' ORDER BY n)::jsonb AS doc FROM bigzones_src WHERE src = 'boros') s,
     jsonb_array_elements(s.doc -> 'features') WITH ORDINALITY AS f(feat, i),
     ST_Dump(ST_SetSRID(ST_GeomFromGeoJSON(f.feat -> 'geometry'), 4326)) d;

CREATE TEMP TABLE bigzones_bus AS
SELECT f.j::int AS j, ST_SetSRID(ST_GeomFromGeoJSON(f.feat -> 'geometry'), 4326) AS pos
FROM (SELECT string_agg(line, E'\n' ORDER BY n)::jsonb AS doc FROM bigzones_src WHERE src = 'feed') d,
     jsonb_array_elements(d.doc -> 'features') WITH ORDINALITY AS f(feat, j);

CREATE TEMP TABLE bigzones_grid AS
SELECT k, (k % 8)::float8 AS dx, (-(k / 8))::float8 AS dy FROM generate_series(0, 39) k;

DO $$
DECLARE
  n_parts int := (SELECT ST_NumGeometries(shape) FROM bigzones_city);
  n_vertices int := (SELECT ST_NPoints(shape) FROM bigzones_city);
  n_bus int := (SELECT count(*) FROM bigzones_bus);
BEGIN
  IF n_parts <> 7 OR n_vertices < 15000 OR n_bus <> 1962 THEN
    RAISE EXCEPTION 'bigzones: expected 7 parts of 15,000 or more vertices and 1962 bus positions, read %, % and %',
      n_parts, n_vertices, n_bus;
  END IF;
END $$;

CREATE TABLE bigzones (id int PRIMARY KEY, shape geometry(MultiPolygon, 4326) NOT NULL);
INSERT INTO bigzones SELECT g.k + 1, ST_Translate(c.shape, g.dx, g.dy) FROM bigzones_grid g, bigzones_city c ORDER BY 1;

CREATE TABLE bigzone_probes (id int PRIMARY KEY, pos geometry(Point, 4326) NOT NULL);
INSERT INTO bigzone_probes
SELECT 1962 * g.k + b.j, ST_Translate(b.pos, g.dx, g.dy) FROM bigzones_grid g, bigzones_bus b ORDER BY 1;
