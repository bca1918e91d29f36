-- cities: the 121,276 GeoNames places (cities1000, CC BY 4.0, credit
-- geonames.org), strongly clustered, with duplicate coordinates. Read from
-- the shared data directory beside the repo, given on psql's stdin (\copy
-- does not expand psql variables); ids in file order.
CREATE TEMP TABLE cities_csv (lat float8, lon float8, country text, name text, n bigserial);
\copy cities_csv (lat, lon, country, name) FROM pstdin WITH (FORMAT csv, HEADER true)
CREATE TABLE cities (id int PRIMARY KEY, pos geometry(Point, 4326) NOT NULL, country text, name text);
INSERT INTO cities SELECT n, ST_Point(lon, lat, 4326), country, name FROM cities_csv ORDER BY n;
