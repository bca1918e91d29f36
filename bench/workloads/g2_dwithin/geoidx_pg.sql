-- G2 zones within 500 m: PostGIS's geography SQL on the geoidx table, unchanged.
\set p random(1, :nprobes)
SELECT id FROM zones_geoidx
 WHERE ST_DWithin(shape::geography, (SELECT pos FROM zone_probes WHERE id = :p)::geography, 500);
