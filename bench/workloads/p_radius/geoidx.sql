-- P radius: count within 200 km on world (~250 rows), the unpartitioned table.
\set lon -180.0 + random(0, 359999999) / 1000000.0
\set u random(0, 1000000000) / 1000000000.0
SELECT count(*) FROM world_geoidx
 WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326), 200000);
