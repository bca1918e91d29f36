-- Run with the previous release installed: its extension version, and indexes
-- of every kind built by its library, over data that test/upgrade/check.sql
-- later compares with PostGIS's own answers.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION geoidx VERSION :'old_version' CASCADE;
SELECT setseed(0.42);

CREATE TABLE pts (id int PRIMARY KEY, cat int, name text, pos geometry(Point, 4326));
INSERT INTO pts
SELECT i, i % 50, 'p' || i,
	CASE WHEN i % 997 = 0 THEN NULL
		WHEN i % 10 = 0 THEN ST_SetSRID(ST_MakePoint(179.5 + random(), -60 + 120 * random()), 4326)
		WHEN i % 10 = 1 THEN ST_SetSRID(ST_MakePoint(360 * random() - 180, 88 + 2 * random()), 4326)
		ELSE ST_SetSRID(ST_MakePoint(2 + 2 * random(), 48 + 2 * random()), 4326) END
FROM generate_series(1, 20000) i;
CREATE INDEX pts_pos ON pts USING geoidx (pos);
CREATE INDEX pts_pos_cat ON pts USING geoidx (pos, cat) INCLUDE (name) WITH (fillfactor = 70);

CREATE TABLE geog (id int PRIMARY KEY, pos geography(Point, 4326));
INSERT INTO geog SELECT id, pos::geography FROM pts WHERE pos IS NOT NULL AND id % 3 = 0;
CREATE INDEX CONCURRENTLY geog_pos ON geog USING geoidx (pos);

CREATE TABLE part (id int, pos geometry(Point, 4326)) PARTITION BY RANGE (id);
CREATE TABLE part_1 PARTITION OF part FOR VALUES FROM (0) TO (10000);
CREATE TABLE part_2 PARTITION OF part FOR VALUES FROM (10000) TO (30000);
INSERT INTO part SELECT id, pos FROM pts;
CREATE INDEX part_pos ON part USING geoidx (pos);

CREATE UNLOGGED TABLE unlogged (id int PRIMARY KEY, pos geometry(Point, 4326));
INSERT INTO unlogged SELECT id, pos FROM pts WHERE id % 2 = 0;
CREATE INDEX unlogged_pos ON unlogged USING geoidx (pos);

-- a bare geometry column: 0.1 indexed its points; 0.2 must refuse a shape in that index
CREATE TABLE bare (id int PRIMARY KEY, g geometry);
INSERT INTO bare SELECT id, pos FROM pts WHERE id % 10 = 0;
CREATE INDEX bare_g ON bare USING geoidx (g);

-- what the old library wrote, before the new one ever touches it
WITH geoidx_indexes AS MATERIALIZED (
	SELECT c.oid FROM pg_class c JOIN pg_am a ON a.oid = c.relam
	WHERE a.amname = 'geoidx' AND c.relkind = 'i')
SELECT count(geoidx_verify(oid::regclass)) FROM geoidx_indexes;
ANALYZE;
