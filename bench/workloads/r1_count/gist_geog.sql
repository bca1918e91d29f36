-- R1 count: count(*) within 200 km, GiST on (pos::geography): the PostGIS way to
-- ask in metres on the spheroid (index on float4 boxes + recheck on the heap).
\set lon 106.0 + random(0, 8000000) / 1000000.0
\set lat -8.0 + random(0, 2000000) / 1000000.0
SELECT count(*) FROM seed1_gist_geog
 WHERE ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography, 200000);
