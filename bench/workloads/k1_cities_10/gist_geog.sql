-- K1 cities k=10: the 10 nearest GeoNames places to a random place (clustered
-- data, duplicate coordinates); GiST on (pos::geography), geography <->.
-- The centre is read by primary key in every variant.
\set c random(1, 121276)
SELECT id FROM cities_gist_geog
 ORDER BY pos::geography <-> (SELECT pos FROM cities WHERE id = :c)::geography
 LIMIT 10;
