-- G3 3 nearest zones: PostGIS's SQL for GiST(geography), geography <-> (the sphere), sent
-- unchanged to the geoidx table (the rewrite: shape <~~> g, ordered by the index on the sphere).
\set p random(1, :nprobes)
SELECT id FROM zones_geoidx
 ORDER BY shape::geography <-> (SELECT pos FROM zone_probes WHERE id = :p)::geography
 LIMIT 3;
