-- The SQL surface against PostGIS geography: same numbers, same booleans.
SET client_min_messages = warning;
SELECT setseed(0.5);
CREATE TEMP TABLE pairs AS
SELECT ST_SetSRID(ST_MakePoint(360 * random() - 180, 180 * random() - 90), 4326) AS a,
	   ST_SetSRID(ST_MakePoint(360 * random() - 180, 180 * random() - 90), 4326) AS b,
	   power(10, 7.3 * random()) AS r
FROM generate_series(1, 20000);
-- near pairs, antimeridian pairs, polar pairs, wrapped coordinates
INSERT INTO pairs
SELECT a, ST_SetSRID(ST_MakePoint(ST_X(a) + 0.01 * (random() - 0.5), ST_Y(a) + 0.01 * (random() - 0.5)), 4326), 1000 * random()
FROM pairs LIMIT 5000;
INSERT INTO pairs
SELECT ST_SetSRID(ST_MakePoint(179.9 + 0.1 * random(), 10 * random()), 4326),
	   ST_SetSRID(ST_MakePoint(-179.9 - 0.1 * random(), 10 * random()), 4326), 100000 * random()
FROM generate_series(1, 2000);
INSERT INTO pairs
SELECT ST_SetSRID(ST_MakePoint(360 * random() - 180, 89.9 + 0.1 * random()), 4326),
	   ST_SetSRID(ST_MakePoint(360 * random() - 180, 89.9 + 0.1 * random()), 4326), 20000 * random()
FROM generate_series(1, 2000);
INSERT INTO pairs
SELECT ST_SetSRID(ST_MakePoint(180 + 30 * random(), 90 + 10 * random()), 4326),
	   ST_SetSRID(ST_MakePoint(-180 - 30 * random(), -90 - 10 * random()), 4326), 2e7 * random()
FROM generate_series(1, 1000);
-- radii exactly at the distance: inclusive boundary
INSERT INTO pairs
SELECT a, b, ST_Distance(a::geography, b::geography) FROM pairs LIMIT 3000;

SELECT count(*) AS pairs,
	count(*) FILTER (WHERE (a <~> b) IS DISTINCT FROM ST_Distance(a::geography, b::geography)) AS distance_differs,
	count(*) FILTER (WHERE geoidx_distance(a, b, false) IS DISTINCT FROM ST_Distance(a::geography, b::geography, false)) AS sphere_differs,
	count(*) FILTER (WHERE geoidx_dwithin(a, b, r) IS DISTINCT FROM ST_DWithin(a::geography, b::geography, r)) AS dwithin_differs,
	count(*) FILTER (WHERE geoidx_dwithin(a, b, r, false) IS DISTINCT FROM ST_DWithin(a::geography, b::geography, r, false)) AS sphere_dwithin_differs,
	count(*) FILTER (WHERE (a <@ geoidx_circle(b, r)) IS DISTINCT FROM ST_DWithin(a::geography, b::geography, r)) AS operator_differs
FROM pairs;

-- PostGIS ticket #4081: the boundary is exact and inclusive
SELECT geoidx_dwithin('SRID=4326;POINT(1 2)', 'SRID=4326;POINT(1 1)', 110576) AS within_110576,
	   geoidx_dwithin('SRID=4326;POINT(1 2)', 'SRID=4326;POINT(1 1)', 110575) AS within_110575;

-- the seed's query point and a pole; SRID 0 counts as 4326, as the cast does
SELECT round(('SRID=4326;POINT(112 -7)'::geometry <~> 'SRID=4326;POINT(113 -8)'::geometry)::numeric, 3) AS java_metres,
	   round(('POINT(0 90)'::geometry <~> 'SRID=4326;POINT(0 -90)'::geometry)::numeric, 3) AS pole_to_pole;
-- EMPTY: no distance, within nothing; NULL stays NULL
SELECT 'SRID=4326;POINT EMPTY'::geometry <~> 'SRID=4326;POINT(0 0)'::geometry AS empty_distance,
	   geoidx_dwithin('SRID=4326;POINT EMPTY', 'SRID=4326;POINT(0 0)', 1e9) AS empty_within,
	   geoidx_dwithin(NULL, 'SRID=4326;POINT(0 0)', 1) AS null_within;
-- the circle type round-trips
SELECT geoidx_circle('SRID=4326;POINT(112 -7)', 200000) AS c1,
	   geoidx_circle('SRID=4326;POINT(190 95)', 5, false) AS wrapped,
	   'CIRCLE(112 -7, 200000, spheroid)'::geoidx_circle::text = geoidx_circle('SRID=4326;POINT(112 -7)', 200000)::text::geoidx_circle::text AS same;
-- the GiST fallback box holds the circle
SELECT ST_AsText(geoidx_search_box('SRID=4326;POINT(0 0)', 111000)) IS NOT NULL AS has_box,
	   ST_Contains(geoidx_search_box('SRID=4326;POINT(10 50)', 200000), ST_Buffer('SRID=4326;POINT(10 50)'::geography, 199000)::geometry) AS covers;
