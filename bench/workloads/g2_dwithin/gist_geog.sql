-- G2 zones within 500 m: GiST on (shape::geography), ST_DWithin(geography) (spheroid).
\set p random(1, :nprobes)
SELECT id FROM zones_gist_geog
 WHERE ST_DWithin(shape::geography, (SELECT pos FROM zone_probes WHERE id = :p)::geography, 500);
