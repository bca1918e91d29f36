-- scale R2: within 5 km, nearest first, LIMIT 100, GiST on pos: the degree
-- box, the geography test and the exact order on the heap.
\set lon -180.0 + random(0, 359999999) / 1000000.0
\set u random(0, 1000000000) / 1000000000.0
SELECT id FROM scale
 WHERE pos && bench_dwithin_box(ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326), 5000)
   AND _ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326)::geography, 5000, true)
 ORDER BY ST_Distance(pos::geography, ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326)::geography) LIMIT 100;
