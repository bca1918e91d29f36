-- G4 points covered by a zone: GiST on (pos::geography),
-- ST_CoveredBy(geography, geography): the same answer as geoidx (geodesic
-- edges); index condition &&.
\set z random(1, :nzones)
SELECT count(*) FROM zonepts_gist_geog
 WHERE ST_CoveredBy(pos::geography, (SELECT shape FROM zones WHERE id = :z)::geography);
