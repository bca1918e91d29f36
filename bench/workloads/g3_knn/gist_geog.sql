-- G3 3 nearest zones: GiST on (shape::geography), geography <-> (PostGIS's
-- indexable k-NN form: the distance on a sphere, not the spheroid).
\set p random(1, :nprobes)
SELECT id FROM zones_gist_geog
 ORDER BY shape::geography <-> (SELECT pos FROM zone_probes WHERE id = :p)::geography
 LIMIT 3;
