-- scale R2: within 5 km, nearest first, LIMIT 100, GiST on (pos::geography).
\set lon -180.0 + random(0, 359999999) / 1000000.0
\set u random(0, 1000000000) / 1000000000.0
SELECT id FROM scale
 WHERE ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326)::geography, 5000)
 ORDER BY pos::geography <-> ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326)::geography LIMIT 100;
