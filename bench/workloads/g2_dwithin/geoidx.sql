-- G2 zones within 500 m of a random bus position: geoidx,
-- geoidx_dwithin(shape, pt, 500) = ST_DWithin(shape::geography, pt::geography, 500).
\set p random(1, :nprobes)
SELECT id FROM zones_geoidx
 WHERE geoidx_dwithin(shape, (SELECT pos FROM zone_probes WHERE id = :p), 500);
