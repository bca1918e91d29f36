-- G1 covers, planar: the seed-003 query ST_Contains(geometry) as the app
-- sends it, on the geoidx index (geoidx's rewrite makes it shape ##@> pt,
-- decided from the planar grid where it can; PostGIS's planar answer);
-- compared with the same query on GiST.
\set p random(1, :nprobes)
SELECT id FROM zones_geoidx
 WHERE ST_Contains(shape, (SELECT pos FROM zone_probes WHERE id = :p));
