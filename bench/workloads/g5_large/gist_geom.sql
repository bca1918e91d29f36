-- G5 large zones: planar GiST on shape, ST_Contains(geometry): straight edges
-- in degrees, not the same question; the speed to beat.
\set p random(1, :nprobes)
SELECT id FROM bigzones_gist_geom
 WHERE ST_Contains(shape, (SELECT pos FROM bigzone_probes WHERE id = :p));
