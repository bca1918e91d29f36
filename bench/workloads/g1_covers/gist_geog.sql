-- G1 covers: GiST on (shape::geography), ST_Covers(geography, geography): the
-- same answer as geoidx (geodesic edges); index condition &&.
\set p random(1, :nprobes)
SELECT id FROM zones_gist_geog
 WHERE ST_Covers(shape::geography, (SELECT pos FROM zone_probes WHERE id = :p)::geography);
