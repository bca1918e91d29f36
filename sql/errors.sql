-- Bad input gets a clear error, never a crash and never a half-written index.
SELECT geoidx_dwithin('SRID=4326;CIRCULARSTRING(0 0, 1 1, 2 0)', 'SRID=4326;POINT(0 0)', 10);
SELECT 'SRID=3857;POINT(0 0)'::geometry <~> 'SRID=4326;POINT(0 0)'::geometry;
-- not errors: PostGIS answers false for a negative or NaN radius (nothing is within it), so does geoidx
SELECT geoidx_dwithin('SRID=4326;POINT(0 0)', 'SRID=4326;POINT(0 0)', -1);
SELECT geoidx_dwithin('SRID=4326;POINT(0 0)', 'SRID=4326;POINT(0 0)', 'NaN');
SELECT geoidx_distance(ST_SetSRID(ST_MakePoint('NaN', 0), 4326), 'SRID=4326;POINT(0 0)');
SELECT geoidx_distance(ST_SetSRID(ST_MakePoint(0, 'Infinity'), 4326), 'SRID=4326;POINT(0 0)');
SELECT 'CIRCLE(1 2, -5, spheroid)'::geoidx_circle; -- a disc of nothing, as geoidx_circle(c, -5) makes
SELECT 'CIRCLE(1 2, 5, ellipse)'::geoidx_circle;
SELECT 'not a circle'::geoidx_circle;
SELECT '\x0101'::bytea::geometry <~> 'SRID=4326;POINT(0 0)'::geometry;

CREATE TABLE bad (id int, pos geometry);
INSERT INTO bad VALUES (1, 'SRID=4326;POINT(1 1)'), (2, 'SRID=4326;POINT(2 2)');
CREATE INDEX bad_idx ON bad USING geoidx (pos);
-- rejected writes leave the index as it was
INSERT INTO bad VALUES (3, 'SRID=4326;CURVEPOLYGON(CIRCULARSTRING(0 0, 1 1, 2 0, 1 -1, 0 0))');
INSERT INTO bad VALUES (4, 'SRID=3857;POINT(1 1)');
INSERT INTO bad VALUES (5, ST_SetSRID(ST_MakePoint('NaN', 1), 4326));
SELECT geoidx_verify('bad_idx');
SELECT count(*) FROM bad;
-- an index cannot be built over a bad row either
DROP INDEX bad_idx;
ALTER TABLE bad ALTER COLUMN pos TYPE geometry USING pos;
INSERT INTO bad VALUES (6, 'SRID=4326;CIRCULARSTRING(0 0, 1 1, 2 0)');
CREATE INDEX bad_idx ON bad USING geoidx (pos);
SELECT count(*) FROM pg_class WHERE relname = 'bad_idx';
DROP TABLE bad;
-- geoidx_verify and geoidx_stats want a geoidx index
CREATE TABLE notgeoidx (id int PRIMARY KEY);
SELECT geoidx_verify('notgeoidx_pkey');
DROP TABLE notgeoidx;
