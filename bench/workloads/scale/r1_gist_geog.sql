-- scale R1: the ids within :radius metres, GiST on (pos::geography).
\set lon -180.0 + random(0, 359999999) / 1000000.0
\set u random(0, 1000000000) / 1000000000.0
SELECT id FROM scale WHERE ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326)::geography, :radius::float8);
