-- P k-NN: the 10 nearest on world, on a table range-partitioned on geoidx_cell(pos, 8) into 64 partitions of equal rows (a Merge Append of ordered geoidx scans).
\set lon -180.0 + random(0, 359999999) / 1000000.0
\set u random(0, 1000000000) / 1000000000.0
SELECT id FROM world_geoidx_p64
 ORDER BY pos <~> ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326)
 LIMIT 10;
