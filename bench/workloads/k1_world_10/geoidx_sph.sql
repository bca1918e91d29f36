-- K1 world k=10: PostGIS's SQL for GiST(geography), geography <-> (the sphere), sent
-- unchanged to the geoidx table (the rewrite: pos <~~> g, ordered by the index on the sphere).
\set lon -180.0 + random(0, 359999999) / 1000000.0
\set u random(0, 1000000000) / 1000000000.0
SELECT id FROM world_geoidx
 ORDER BY pos::geography <-> ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326)::geography
 LIMIT 10;
