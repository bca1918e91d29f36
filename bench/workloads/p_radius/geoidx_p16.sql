-- P radius: count within 200 km on world, range-partitioned on geoidx_cell(pos, 8)
-- into 16 partitions: the covering cells of the circle prune (custom plans fold
-- geoidx_covering_cells of the parameters into a constant array).
\set lon -180.0 + random(0, 359999999) / 1000000.0
\set u random(0, 1000000000) / 1000000000.0
SELECT count(*) FROM world_geoidx_p16
 WHERE geoidx_cell(pos, 8) = ANY (geoidx_covering_cells(ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326), 200000, 8))
   AND geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326), 200000);
