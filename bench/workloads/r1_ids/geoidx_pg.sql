-- R1 ids: PostGIS's own SQL (as for GiST on (pos::geography)), sent unchanged
-- to the geoidx table: geoidx's rewrite serves it with the geoidx index.
\set lon 106.0 + random(0, 8000000) / 1000000.0
\set lat -8.0 + random(0, 2000000) / 1000000.0
SELECT id FROM seed1_geoidx
 WHERE ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography, 200000);
