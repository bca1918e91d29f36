-- PG: page 1 (rows 1..10) on GiST ((pos::geography)), geography <->: what a
-- first page costs there (GiST's page 100 / page 1 for contrast).
\set cid random(1, 200)
SELECT lon, lat, bound_geog AS bound FROM pg_centres WHERE c = :cid \gset
SELECT id, pos::geography <-> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography AS d FROM world_gist_geog
 ORDER BY pos::geography <-> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography
 LIMIT 10;
