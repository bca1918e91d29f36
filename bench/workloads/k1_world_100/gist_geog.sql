-- K1 world k=100: the 100 nearest of 1 M points uniform on the sphere to a centre
-- uniform on the sphere; GiST on (pos::geography), geography <-> (sphere).
\set lon -180.0 + random(0, 359999999) / 1000000.0
\set u random(0, 1000000000) / 1000000000.0
SELECT id FROM world_gist_geog
 ORDER BY pos::geography <-> ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326)::geography
 LIMIT 100;
