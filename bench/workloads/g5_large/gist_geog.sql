-- G5 large zones: GiST on (shape::geography), ST_Covers(geography,
-- geography): the same answer as geoidx; index condition &&, then PostGIS's
-- test of the whole zone.
\set p random(1, :nprobes)
SELECT id FROM bigzones_gist_geog
 WHERE ST_Covers(shape::geography, (SELECT pos FROM bigzone_probes WHERE id = :p)::geography);
