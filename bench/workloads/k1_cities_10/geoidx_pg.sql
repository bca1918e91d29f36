-- K1 cities k=10: PostGIS's SQL for the spheroid order on the geoidx table.
\set c random(1, 121276)
SELECT id FROM cities_geoidx
 ORDER BY ST_Distance(pos::geography, (SELECT pos FROM cities WHERE id = :c)::geography)
 LIMIT 10;
