-- PG: keyset paging, page 100 of 10 rows, GiST ((pos::geography)) with
-- geography <-> (sphere metres; the bound is the 990th sphere distance). The
-- bound is only a filter: the k-NN scan still reads the 990 nearest first.
\set cid random(1, 200)
SELECT lon, lat, bound_geog AS bound FROM pg_centres WHERE c = :cid \gset
SELECT id, pos::geography <-> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography AS d FROM world_gist_geog
 WHERE pos::geography <-> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography > :bound
 ORDER BY pos::geography <-> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography
 LIMIT 10;
