-- P radius: count within 200 km on world, range-partitioned on geoidx_cell(pos, 8)
-- into 64 partitions, written as on one table: geoidx adds the cell ranges of the
-- circle for PostgreSQL to prune on (src/pg/partition_prune.cc), at executor
-- start in a generic plan.
\set lon -180.0 + random(0, 359999999) / 1000000.0
\set u random(0, 1000000000) / 1000000000.0
SELECT count(*) FROM world_geoidx_p64
 WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326), 200000);
