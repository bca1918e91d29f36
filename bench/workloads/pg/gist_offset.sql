-- PG: page 100 of 10 rows as OFFSET 990, GiST ((pos::geography)), geography
-- <-> (sphere). Reads the 990 nearest as the keyset form does, without
-- evaluating a filter on them (slightly faster). Same pg_centres read as
-- every PG variant (the bound is not used).
\set cid random(1, 200)
SELECT lon, lat, bound_geog AS bound FROM pg_centres WHERE c = :cid \gset
SELECT id, pos::geography <-> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography AS d FROM world_gist_geog
 ORDER BY pos::geography <-> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography
 LIMIT 10 OFFSET 990;
