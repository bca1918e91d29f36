-- R2: the MySQL article's query on seed-2: within 5 km, nearest first,
-- LIMIT 100. GiST on (pos::geography) with ST_DWithin + geography <->: the
-- only PostGIS form that stops at the limit (<-> is the sphere distance, so
-- the order can differ from the spheroid order by a hair).
\set lon 120.5 + random(0, 9000000) / 1000000.0
\set lat 70.5 + random(0, 9000000) / 1000000.0
SELECT id FROM seed2_gist_geog
 WHERE ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography, 5000)
 ORDER BY pos::geography <-> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography
 LIMIT 100;
