-- G3 3 nearest zones to a random bus position: geoidx, <~> = ST_Distance(geography)
-- (spheroid metres; 0 for the zone containing the probe).
\set p random(1, :nprobes)
SELECT id FROM zones_geoidx
 ORDER BY shape <~> (SELECT pos FROM zone_probes WHERE id = :p)
 LIMIT 3;
