-- P k-NN through the cells (the workaround before GeoidxNearestAppend, kept for
-- comparison): the 10 nearest on world_geoidx_p64, reaching only
-- the partitions that the covering of a 50 km radius touches (doubled until
-- it holds 10 rows: exact), by bench_knn_cells (sql/setup.sql).
\set lon -180.0 + random(0, 359999999) / 1000000.0
\set u random(0, 1000000000) / 1000000000.0
SELECT * FROM bench_knn_cells('world_geoidx_p64',
  ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326), 10, 50000, 8);
