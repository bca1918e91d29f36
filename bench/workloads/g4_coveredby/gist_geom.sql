-- G4 points covered by a zone: planar GiST on pos, ST_Within(geometry):
-- straight edges in degrees, not the same question; the speed to beat.
\set z random(1, :nzones)
SELECT count(*) FROM zonepts_gist_geom
 WHERE ST_Within(pos, (SELECT shape FROM zones WHERE id = :z));
