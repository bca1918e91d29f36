-- G3 3 nearest zones: PostGIS's SQL for the spheroid order on the geoidx table.
\set p random(1, :nprobes)
SELECT id FROM zones_geoidx
 ORDER BY ST_Distance(shape::geography, (SELECT pos FROM zone_probes WHERE id = :p)::geography)
 LIMIT 3;
