-- PG: page 1 (rows 1..10) on geoidx, the first page of the same paging: what
-- page 100 should cost. Same pg_centres read as every PG variant.
\set cid random(1, 200)
SELECT lon, lat, bound_geoidx AS bound FROM pg_centres WHERE c = :cid \gset
SELECT id, pos <~> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326) AS d FROM world_geoidx
 ORDER BY pos <~> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)
 LIMIT 10;
