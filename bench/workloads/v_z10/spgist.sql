-- V z=10: a web map's viewport, the 3 x 3 tiles at zoom 10 around a place
-- (bench/sql/cities.sql), as a map client sends it, pos && box; SP-GiST on pos.
\set v random(1001, 2000)
SELECT id FROM cities_spgist
 WHERE pos && (SELECT box FROM viewports WHERE id = :v);
