-- The differential test's points: synthetic sets that hit every hard case,
-- plus the real data sets. Deterministic (setseed), so a failure reproduces.
-- psql variable :datadir is the repository's data/ directory (data/README.md).
SET client_min_messages = warning;
SELECT setseed(0.4242);

CREATE TABLE pts (id serial PRIMARY KEY, src text NOT NULL, pos geometry(Point, 4326));

-- uniform on the sphere
INSERT INTO pts (src, pos)
SELECT 'uniform', ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
FROM generate_series(1, 100000);

-- dense clusters of 2,000 points, from a few metres to a degree across
INSERT INTO pts (src, pos)
SELECT 'cluster', ST_SetSRID(ST_MakePoint(
	greatest(-180, least(180, c.lon + c.spread * (random() - 0.5))),
	greatest(-90, least(90, c.lat + c.spread * (random() - 0.5)))), 4326)
FROM (SELECT 360 * random() - 180 AS lon, 160 * random() - 80 AS lat,
			 power(10, -4 + 4 * random()) AS spread
	  FROM generate_series(1, 20)) c,
	 generate_series(1, 2000);

-- the antimeridian band, both signs, and exactly +-180
INSERT INTO pts (src, pos)
SELECT 'antimeridian', ST_SetSRID(ST_MakePoint(
	CASE WHEN random() < 0.5 THEN 180 - random() ELSE -180 + random() END,
	120 * random() - 60), 4326)
FROM generate_series(1, 10000);
INSERT INTO pts (src, pos)
SELECT 'antimeridian', ST_SetSRID(ST_MakePoint(CASE WHEN i % 2 = 0 THEN 180 ELSE -180 END, 0.01 * i - 5), 4326)
FROM generate_series(1, 1000) i;

-- polar caps, the poles themselves at many longitudes
INSERT INTO pts (src, pos)
SELECT 'polar', ST_SetSRID(ST_MakePoint(360 * random() - 180,
	CASE WHEN random() < 0.5 THEN 90 - 5 * random() ELSE -90 + 5 * random() END), 4326)
FROM generate_series(1, 10000);
INSERT INTO pts (src, pos)
SELECT 'pole', ST_SetSRID(ST_MakePoint(360 * random() - 180, CASE WHEN i % 2 = 0 THEN 90 ELSE -90 END), 4326)
FROM generate_series(1, 500) i;

-- coordinates the geography cast wraps (lon 190 is lon -170, lat 95 is lat 85)
INSERT INTO pts (src, pos)
SELECT 'wrapped', ST_SetSRID(ST_MakePoint(180 + 20 * random(), 100 * random() - 50), 4326)
FROM generate_series(1, 300);
INSERT INTO pts (src, pos)
SELECT 'wrapped', ST_SetSRID(ST_MakePoint(360 * random() - 180, 90 + 5 * random()), 4326)
FROM generate_series(1, 200);

-- duplicates of existing points
INSERT INTO pts (src, pos)
SELECT 'duplicate', pos FROM pts WHERE id % 40 = 0;

-- rows geoidx must store and never return
INSERT INTO pts (src, pos) SELECT 'null', NULL FROM generate_series(1, 100);
INSERT INTO pts (src, pos) SELECT 'empty', 'SRID=4326;POINT EMPTY'::geometry FROM generate_series(1, 100);

-- the real data sets
CREATE TEMP TABLE airports (icao text, iata text, name text, city text, subd text, country text,
	elevation text, lat float8, lon float8, tz text, lid text);
\set airports_csv :datadir '/airportsdata/airports.csv'
COPY airports FROM :'airports_csv' WITH (FORMAT csv, HEADER true);
INSERT INTO pts (src, pos) SELECT 'airports', ST_SetSRID(ST_MakePoint(lon, lat), 4326) FROM airports;

CREATE TEMP TABLE cities (lat float8, lon float8, cc text, city text);
\set cities_csv :datadir '/geonames-cities1000/geocode.csv'
COPY cities FROM :'cities_csv' WITH (FORMAT csv, HEADER true);
INSERT INTO pts (src, pos) SELECT 'cities', ST_SetSRID(ST_MakePoint(lon, lat), 4326) FROM cities;

CREATE TEMP TABLE quakes (d text, lat float8, lon float8, mag float8);
\set quakes_csv :datadir '/usgs-earthquakes/earthquakes-23k.csv'
COPY quakes FROM :'quakes_csv' WITH (FORMAT csv, HEADER true);
INSERT INTO pts (src, pos) SELECT 'quakes', ST_SetSRID(ST_MakePoint(lon, lat), 4326) FROM quakes;

-- the queries: centres drawn near the data and in the hard places, radii log-uniform 1 m .. 5,000 km
CREATE TABLE radius_q (qid int PRIMARY KEY, center geometry(Point, 4326), metres float8);
INSERT INTO radius_q
SELECT i,
	CASE i % 5
		WHEN 0 THEN ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
		WHEN 1 THEN (SELECT pos FROM pts WHERE id = 1 + (random() * 300000)::int % (SELECT max(id) FROM pts) AND pos IS NOT NULL AND NOT ST_IsEmpty(pos))
		WHEN 2 THEN ST_SetSRID(ST_MakePoint(CASE WHEN random() < 0.5 THEN 179.9 + 0.1 * random() ELSE -180 + 0.1 * random() END, 120 * random() - 60), 4326)
		WHEN 3 THEN ST_SetSRID(ST_MakePoint(360 * random() - 180, CASE WHEN random() < 0.5 THEN 88 + 2 * random() ELSE -90 + 2 * random() END), 4326)
		ELSE ST_SetSRID(ST_MakePoint(110 + 5 * random(), -9 + 4 * random()), 4326)
	END,
	power(10, 6.7 * random())
FROM generate_series(1, 1000) i;
-- centres drawn from the table can miss (ids of NULL rows): fill those in
UPDATE radius_q SET center = ST_SetSRID(ST_MakePoint(10 * qid % 360 - 180, 0), 4326) WHERE center IS NULL;
-- radii at a distance in the table: ST_Distance is rounded to 10 nm, so 10 nm
-- more is within 15 nm of the exact distance and must include the point
UPDATE radius_q q SET metres = ST_Distance(q.center::geography, p.pos::geography) + 1e-8
FROM pts p WHERE q.qid % 10 = 7 AND p.id = q.qid * 37 AND p.pos IS NOT NULL AND NOT ST_IsEmpty(p.pos);

CREATE TABLE knn_q (qid int PRIMARY KEY, center geometry(Point, 4326), k int);
INSERT INTO knn_q
SELECT i, center, greatest(1, least(1000, round(power(10, 3 * random()))::int))
FROM (SELECT qid AS i, center FROM radius_q) q;
UPDATE knn_q SET k = 1000 WHERE qid % 100 = 3;
UPDATE knn_q SET k = 1 WHERE qid % 100 = 4;
ANALYZE pts;
