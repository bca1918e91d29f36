-- K1 world k=10: PostGIS's SQL for the spheroid order, ORDER BY ST_Distance(geography),
-- on the geoidx table: an ordered geoidx scan (PostGIS cannot index this order).
\set lon -180.0 + random(0, 359999999) / 1000000.0
\set u random(0, 1000000000) / 1000000000.0
SELECT id FROM world_geoidx
 ORDER BY ST_Distance(pos::geography, ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326)::geography)
 LIMIT 10;
