-- R1 count: count(*) within 200 km of a random centre over Java (seed-1),
-- no spatial index: a sequential scan with the geography predicate.
\set lon 106.0 + random(0, 8000000) / 1000000.0
\set lat -8.0 + random(0, 2000000) / 1000000.0
SELECT count(*) FROM seed1
 WHERE ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography, 200000);
