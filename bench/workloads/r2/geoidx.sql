-- R2: within 5 km, nearest first, LIMIT 100; geoidx: radius and exact spheroid order from one index scan.
\set lon 120.5 + random(0, 9000000) / 1000000.0
\set lat 70.5 + random(0, 9000000) / 1000000.0
SELECT id FROM seed2_geoidx
 WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326), 5000)
 ORDER BY pos <~> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)
 LIMIT 100;
