-- G1 covers: planar GiST on shape, ST_Contains(geometry) (the seed-003 query):
-- straight edges in degrees, not the same question; the speed to beat.
\set p random(1, :nprobes)
SELECT id FROM zones_gist_geom
 WHERE ST_Contains(shape, (SELECT pos FROM zone_probes WHERE id = :p));
