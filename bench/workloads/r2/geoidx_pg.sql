-- R2: PostGIS's SQL on the geoidx table, unchanged: ST_DWithin and
-- ORDER BY ST_Distance (the spheroid order, which GiST cannot give) become
-- one geoidx scan that stops at the limit.
\set lon 120.5 + random(0, 9000000) / 1000000.0
\set lat 70.5 + random(0, 9000000) / 1000000.0
SELECT id FROM seed2_geoidx
 WHERE ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography, 5000)
 ORDER BY ST_Distance(pos::geography, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography)
 LIMIT 100;
