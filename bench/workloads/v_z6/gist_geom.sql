-- V z=6: a web map's viewport, the 3 x 3 tiles at zoom 6 around a place
-- (bench/sql/cities.sql), as a map client sends it, pos && box; GiST on pos, PostGIS's own plan.
\set v random(1, 1000)
SELECT id FROM cities_gist_geom
 WHERE pos && (SELECT box FROM viewports WHERE id = :v);
