-- zonepts: points for G4 (how many points does a zone cover), derived from
-- zone_probes (the MTA bus positions copied with each copy of NYC; zones.sql
-- must have run): each probe jittered to 10 points, so they fall in and
-- around the zones along the bus routes, ~10 points per probe (1,020,240 at
-- the default --zones: 102,024 probes) and as many copies of NYC as zones
-- has. Point id = 10 (probe id - 1) + j, j = 1..10: ids 1..n without gaps,
-- the 10 points of a probe next to each other (row order: probe order, copy
-- after copy).
--
-- Deterministic, no random(): the offset of point id comes from h =
-- hashint8(id), its low 16 bits for longitude and the next 16 for latitude,
-- each mapped to -0.01..0.01 degrees (~850 m of longitude and ~1.1 km of
-- latitude at NYC's latitude 40.7; copies are 1 degree apart, so no point
-- leaves its copy's neighbourhood). hashint8 is PostgreSQL's own hash, the
-- same on every (little-endian) machine.
--
-- One transaction: the table appears, complete with its primary key, at
-- commit (another loader may wait for it).
SET max_parallel_workers_per_gather = 0;
BEGIN;
CREATE TABLE zonepts (id int PRIMARY KEY, pos geometry(Point, 4326) NOT NULL);
INSERT INTO zonepts
SELECT q.id,
       ST_Translate(q.pos, ((q.h & 65535) / 65535.0 - 0.5) * 0.02,
                           (((q.h >> 16) & 65535) / 65535.0 - 0.5) * 0.02)
FROM (SELECT 10 * (p.id - 1) + j AS id, p.pos, hashint8((10 * (p.id - 1) + j)::int8) AS h
      FROM zone_probes p, generate_series(1, 10) j) q
ORDER BY q.id;
COMMIT;
