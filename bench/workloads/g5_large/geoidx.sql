-- G5 large zones: which of the large zones (bigzones: NYC's boroughs as one
-- 15,400-vertex MultiPolygon, 40 copies) covers a random bus position, read
-- by primary key in every variant; :nprobes is given with pgbench -D.
-- geoidx: geoidx_covers(shape, pt), decided from the zone's pieces and their
-- grids where they can, else the exact test.
\set p random(1, :nprobes)
SELECT id FROM bigzones_geoidx
 WHERE geoidx_covers(shape, (SELECT pos FROM bigzone_probes WHERE id = :p));
