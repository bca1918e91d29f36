-- K1 cities k=100: planar GiST on pos, geometry <-> in degrees (wrong metric).
\set c random(1, 121276)
SELECT id FROM cities_gist_geom
 ORDER BY pos <-> (SELECT pos FROM cities WHERE id = :c)
 LIMIT 100;
