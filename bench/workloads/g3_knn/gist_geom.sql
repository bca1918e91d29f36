-- G3 3 nearest zones (--full): planar GiST on shape, geometry <-> in degrees
-- (the wrong metric; the speed to beat).
\set p random(1, :nprobes)
SELECT id FROM zones_gist_geom
 ORDER BY shape <-> (SELECT pos FROM zone_probes WHERE id = :p)
 LIMIT 3;
