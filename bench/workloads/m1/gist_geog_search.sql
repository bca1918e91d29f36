-- M1 search (weight 65): R2's query (5 km, nearest first, LIMIT 100) on m1_gist_geog.
\set lon 120.5 + random(0, 9000000) / 1000000.0
\set lat 70.5 + random(0, 9000000) / 1000000.0
SELECT id FROM m1_gist_geog
 WHERE ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography, 5000)
 ORDER BY pos::geography <-> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography
 LIMIT 100;
