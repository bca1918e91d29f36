-- G1 covers: which zone contains this point (geofencing, seed 003): the zones
-- covering a random bus position (zone_probes, read by primary key in every
-- variant; :nprobes is given with pgbench -D). geoidx: geoidx_covers(shape,
-- pt) = ST_Covers(shape::geography, pt::geography), geodesic edges.
\set p random(1, :nprobes)
SELECT id FROM zones_geoidx
 WHERE geoidx_covers(shape, (SELECT pos FROM zone_probes WHERE id = :p));
