-- R1 count: count(*) within 200 km, SP-GiST on pos (degrees): the index answers the
-- provably sufficient degree box (bench_dwithin_box, sql/setup.sql), the
-- geography predicate then filters the candidates on the heap.
\set lon 106.0 + random(0, 8000000) / 1000000.0
\set lat -8.0 + random(0, 2000000) / 1000000.0
SELECT count(*) FROM seed1_spgist
 WHERE pos && bench_dwithin_box(ST_SetSRID(ST_MakePoint(:lon, :lat), 4326), 200000)
   AND ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography, 200000);
