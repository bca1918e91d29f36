-- scale R2: within 5 km, nearest first, LIMIT 100, geoidx.
\set lon -180.0 + random(0, 359999999) / 1000000.0
\set u random(0, 1000000000) / 1000000000.0
SELECT id FROM scale WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326), 5000) ORDER BY pos <~> ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326) LIMIT 100;
