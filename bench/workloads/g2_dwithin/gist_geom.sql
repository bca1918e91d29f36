-- G2 zones within 500 m (--full): planar GiST on shape as the kit's radius form,
-- a degree box around the probe (bench_dwithin_box, which holds every point
-- within 500 m; a zone's box could miss it only by its edges' geodesic bulge,
-- centimetres here) and the geography test: ST_DWithin(geography) (spheroid).
\set p random(1, :nprobes)
SELECT id FROM zones_gist_geom z, (SELECT pos FROM zone_probes WHERE id = :p) c
 WHERE z.shape && bench_dwithin_box(c.pos, 500)
   AND ST_DWithin(z.shape::geography, c.pos::geography, 500);
