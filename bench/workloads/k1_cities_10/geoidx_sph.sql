-- K1 cities k=10: PostGIS's SQL for GiST(geography), geography <-> (the sphere), sent
-- unchanged to the geoidx table (the rewrite: pos <~~> g, ordered by the index on the sphere).
\set c random(1, 121276)
SELECT id FROM cities_geoidx
 ORDER BY pos::geography <-> (SELECT pos FROM cities WHERE id = :c)::geography
 LIMIT 10;
