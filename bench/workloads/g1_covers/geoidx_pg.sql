-- G1 covers: PostGIS's geography SQL (as for GiST on (shape::geography)) on
-- the geoidx table, unchanged: geoidx's rewrite makes it geoidx_covers.
\set p random(1, :nprobes)
SELECT id FROM zones_geoidx
 WHERE ST_Covers(shape::geography, (SELECT pos FROM zone_probes WHERE id = :p)::geography);
