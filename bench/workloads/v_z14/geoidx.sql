-- V z=14: a web map's viewport, the 3 x 3 tiles at zoom 14 around a place
-- (bench/sql/cities.sql), as a map client sends it, pos && box; geoidx: PostGIS's && unchanged
-- (an operator of geoidx's family).
\set v random(2001, 3000)
SELECT id FROM cities_geoidx
 WHERE pos && (SELECT box FROM viewports WHERE id = :v);
