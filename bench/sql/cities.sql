-- cities: the 121,276 GeoNames places (cities1000, CC BY 4.0, credit
-- geonames.org), strongly clustered, with duplicate coordinates. Read from
-- the shared data directory beside the repo, given on psql's stdin (\copy
-- does not expand psql variables); ids in file order.
CREATE TEMP TABLE cities_csv (lat float8, lon float8, country text, name text, n bigserial);
\copy cities_csv (lat, lon, country, name) FROM pstdin WITH (FORMAT csv, HEADER true)
CREATE TABLE cities (id int PRIMARY KEY, pos geometry(Point, 4326) NOT NULL, country text, name text);
INSERT INTO cities SELECT n, ST_Point(lon, lat, 4326), country, name FROM cities_csv ORDER BY n;

-- viewports (the viewport workloads V): what a web map asks for, the 3 x 3
-- tiles around 1,000 places (a seeded draw) at zoom 6, 10 and 14 (ids 1-1000,
-- 1001-2000, 2001-3000): ST_TileEnvelope with a margin of one tile, in
-- lon/lat (ST_Transform to 4326), the box a client sends with pos && box.
SELECT setseed(0.4326);
CREATE TEMP TABLE viewport_places AS
  SELECT row_number() OVER () AS n, pos
  FROM (SELECT pos FROM cities ORDER BY random() LIMIT 1000) p;
CREATE TABLE viewports (id int PRIMARY KEY, z int NOT NULL, box geometry(Polygon, 4326) NOT NULL);
INSERT INTO viewports
SELECT (zi - 1) * 1000 + n, z,
       ST_Transform(ST_TileEnvelope(z,
         least(2 ^ z - 1, floor((ST_X(pos) + 180.0) / 360.0 * 2 ^ z))::int,
         least(2 ^ z - 1, greatest(0, floor((1.0 - asinh(tan(radians(ST_Y(pos)))) / pi()) / 2.0 * 2 ^ z)))::int,
         margin => 1.0), 4326)
FROM viewport_places, unnest(ARRAY[6, 10, 14]) WITH ORDINALITY AS zs(z, zi);
