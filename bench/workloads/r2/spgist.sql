-- R2: within 5 km, nearest first, LIMIT 100, SP-GiST on pos: the degree box from the
-- index, the geography predicate, then every candidate sorted by the exact
-- spheroid distance (a geometry index cannot order by metres).
\set lon 120.5 + random(0, 9000000) / 1000000.0
\set lat 70.5 + random(0, 9000000) / 1000000.0
SELECT id FROM seed2_spgist
 WHERE pos && bench_dwithin_box(ST_SetSRID(ST_MakePoint(:lon, :lat), 4326), 5000)
   AND ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography, 5000)
 ORDER BY ST_Distance(pos::geography, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography)
 LIMIT 100;
