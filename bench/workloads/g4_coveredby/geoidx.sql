-- G4 points covered by a zone: how many of the zonepts points (jittered bus
-- positions, 10 per probe) does a random zone cover (the zone read by primary
-- key from zones in every variant; :nzones is given with pgbench -D). geoidx
-- on pos: geoidx_coveredby(pos, zone) = ST_CoveredBy(pos::geography,
-- zone::geography), geodesic edges; the zone is prepared once per scan.
\set z random(1, :nzones)
SELECT count(*) FROM zonepts_geoidx
 WHERE geoidx_coveredby(pos, (SELECT shape FROM zones WHERE id = :z));
