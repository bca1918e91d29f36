-- K1 cities k=10: geoidx, exact spheroid metres (<~>).
\set c random(1, 121276)
SELECT id FROM cities_geoidx
 ORDER BY pos <~> (SELECT pos FROM cities WHERE id = :c)
 LIMIT 10;
