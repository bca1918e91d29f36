-- PG: keyset paging, page 100 of 10 rows (rows 991..1000) of the points
-- nearest to a centre; geoidx: "<~> > bound of page 99" is an index condition
-- (geoidx_beyond), so the scan starts beyond the first 990 instead of
-- reading them. The centre and its bound (the 990th distance, spheroid) come
-- from pg_centres by primary key, as in every PG variant.
\set cid random(1, 200)
SELECT lon, lat, bound_geoidx AS bound FROM pg_centres WHERE c = :cid \gset
SELECT id, pos <~> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326) AS d FROM world_geoidx
 WHERE pos <~> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326) > :bound
 ORDER BY pos <~> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)
 LIMIT 10;
