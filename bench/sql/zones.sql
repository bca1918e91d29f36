-- zones: geofencing data (G1-G3). The 195 New York City neighbourhood
-- tabulation areas (NYC Open Data, via gofence-profiling; 168 Polygon and 27
-- MultiPolygon, ~540 vertices each) copied onto a grid of offsets, and the
-- 1,962 bus positions of one MTA Bus Time snapshot copied with the same
-- offsets, so that every probe lies in (or beside) its own copy of NYC.
--
-- Input on psql's stdin (\copy does not expand psql variables), one line per
-- input line, "<file tag> 0x1F <line>": tag "ntas" for the single line of
-- nyc_ntas.geojson, "feed" for the lines of the vehicle-monitoring feed
-- (bench/lib/data.sh makes it with sed). CSV with 0x1F as delimiter and 0x01
-- as quote, neither of which occurs in the files, so a line is read as it is.
--
-- :zones is the number of zones asked for, rounded up to whole copies of the
-- 195 (10,000 -> 52 copies, 10,140 zones). Copy k (0, 1, ...) is the original
-- moved by ST_Translate(dx, dy) degrees, dx = k mod c, dy = -(k div c), c =
-- ceil(sqrt(copies)): a square-ish block of copies 1 degree apart, starting
-- at NYC and going east and south (NYC spans 0.56 x 0.42 degrees, so copies
-- never touch: ~37 km between copies at latitude 40). Zone id = 195 k + i,
-- probe id = 1962 k + j (i, j: the order in the files), so ids are 1..n
-- without gaps. Everything stays within latitudes -60..60 and away from the
-- antimeridian (checked below; at most 101 x 101 copies, ~2 M zones).
-- Deterministic: no random(), the files' order.
CREATE TEMP TABLE zones_src (src text NOT NULL, line text, n bigserial);
\copy zones_src (src, line) FROM pstdin WITH (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x01')

CREATE TEMP TABLE zones_nta AS
SELECT f.i::int AS i, ST_Multi(ST_SetSRID(ST_GeomFromGeoJSON(f.feat -> 'geometry'), 4326)) AS shape
FROM zones_src s, jsonb_array_elements(s.line::jsonb -> 'features') WITH ORDINALITY AS f(feat, i)
WHERE s.src = 'ntas';

CREATE TEMP TABLE zones_bus AS
SELECT f.j::int AS j, ST_SetSRID(ST_GeomFromGeoJSON(f.feat -> 'geometry'), 4326) AS pos
FROM (SELECT string_agg(line, E'\n' ORDER BY n)::jsonb AS doc FROM zones_src WHERE src = 'feed') d,
     jsonb_array_elements(d.doc -> 'features') WITH ORDINALITY AS f(feat, j);

CREATE TEMP TABLE zones_grid AS
SELECT k, (k % c)::float8 AS dx, (-(k / c))::float8 AS dy
FROM (SELECT ceil(:zones / 195.0)::int AS copies, ceil(sqrt(ceil(:zones / 195.0)))::int AS c) p,
     generate_series(0, p.copies - 1) k;

DO $$
DECLARE
  n_nta int := (SELECT count(*) FROM zones_nta);
  n_bus int := (SELECT count(*) FROM zones_bus);
  n_copies int := (SELECT count(*) FROM zones_grid);
  e box2d;
BEGIN
  IF n_nta <> 195 OR n_bus <> 1962 THEN
    RAISE EXCEPTION 'zones: expected 195 NTAs and 1962 bus positions, read % and %', n_nta, n_bus;
  END IF;
  IF n_copies < 1 THEN
    RAISE EXCEPTION 'zones: asked for no zones';
  END IF;
  SELECT ST_Extent(ST_Translate(n.shape, g.dx, g.dy)) INTO e
  FROM zones_nta n, (SELECT min(dx) AS dx, min(dy) AS dy FROM zones_grid
                     UNION ALL SELECT max(dx), max(dy) FROM zones_grid) g;
  IF ST_YMin(e) < -60 OR ST_YMax(e) > 60 OR ST_XMin(e) <= -180 OR ST_XMax(e) >= 180 THEN
    RAISE EXCEPTION 'zones: % copies do not fit within latitudes -60..60 and longitudes -180..180 (extent %)',
      n_copies, e;
  END IF;
END $$;

CREATE TABLE zones (id int PRIMARY KEY, shape geometry(MultiPolygon, 4326) NOT NULL);
INSERT INTO zones
SELECT 195 * g.k + n.i, ST_Translate(n.shape, g.dx, g.dy)
FROM zones_grid g, zones_nta n ORDER BY 1;

CREATE TABLE zone_probes (id int PRIMARY KEY, pos geometry(Point, 4326) NOT NULL);
INSERT INTO zone_probes
SELECT 1962 * g.k + b.j, ST_Translate(b.pos, g.dx, g.dy)
FROM zones_grid g, zones_bus b ORDER BY 1;
