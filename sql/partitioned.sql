-- Partitioned tables: the index propagates, k-NN over partitions is a Merge
-- Append of ordered geoidx scans, and the answers equal the unpartitioned table's.
SET client_min_messages = warning;
SELECT setseed(0.75);
CREATE TABLE vehicles (id int, region int, pos geometry(Point, 4326)) PARTITION BY LIST (region);
CREATE TABLE vehicles_0 PARTITION OF vehicles FOR VALUES IN (0);
CREATE TABLE vehicles_1 PARTITION OF vehicles FOR VALUES IN (1);
CREATE TABLE vehicles_2 PARTITION OF vehicles FOR VALUES IN (2);
INSERT INTO vehicles
SELECT i, i % 3, ST_SetSRID(ST_MakePoint(100 + 40 * random(), -20 + 40 * random()), 4326)
FROM generate_series(1, 30000) i;
CREATE INDEX vehicles_pos ON vehicles USING geoidx (pos);
-- one index per partition, attached to the parent's
SELECT c.relname, i.indisvalid FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid
JOIN pg_index i ON i.indexrelid = c.oid WHERE h.inhparent = 'vehicles_pos'::regclass ORDER BY 1;
SELECT count(*) FROM (SELECT geoidx_verify(inhrelid::regclass) FROM pg_inherits WHERE inhparent = 'vehicles_pos'::regclass) v;
CREATE TABLE flat AS SELECT * FROM vehicles;
ANALYZE vehicles; ANALYZE flat;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT id FROM vehicles ORDER BY pos <~> 'SRID=4326;POINT(120 0)' LIMIT 10;
SELECT (SELECT array_agg(id) FROM (SELECT id FROM vehicles ORDER BY pos <~> 'SRID=4326;POINT(120 0)', id LIMIT 50) s)
	 = (SELECT array_agg(id) FROM (SELECT id FROM flat ORDER BY ST_Distance(pos::geography, 'SRID=4326;POINT(120 0)'::geography), id LIMIT 50) s) AS same_knn;
-- a radius query scans every partition's index; a partition key condition prunes
EXPLAIN (COSTS OFF)
SELECT id FROM vehicles WHERE region = 1 AND geoidx_dwithin(pos, 'SRID=4326;POINT(120 0)', 50000);
SELECT (SELECT array_agg(id ORDER BY id) FROM vehicles WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(120 0)', 300000))
	 = (SELECT array_agg(id ORDER BY id) FROM flat WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(120 0)'::geography, 300000)) AS same_radius;
-- a partition attached later gets its own index
CREATE TABLE vehicles_3 (id int, region int, pos geometry(Point, 4326));
INSERT INTO vehicles_3 SELECT i, 3, ST_SetSRID(ST_MakePoint(120 + random(), random()), 4326) FROM generate_series(30001, 31000) i;
ALTER TABLE vehicles ATTACH PARTITION vehicles_3 FOR VALUES IN (3);
SELECT count(*) FROM pg_inherits WHERE inhparent = 'vehicles_pos'::regclass;
SELECT geoidx_verify(i.indexrelid::regclass) FROM pg_index i WHERE i.indrelid = 'vehicles_3'::regclass;
-- columns after the point, on a partitioned table: filtered k-NN per partition,
-- merged; IN lists are rewritten on the parent and reach every partition
CREATE INDEX vehicles_pos_id ON vehicles USING geoidx (pos, id);
DROP INDEX vehicles_pos;
ANALYZE vehicles;
EXPLAIN (COSTS OFF)
SELECT id FROM vehicles WHERE id IN (5, 50, 500, 5000, 30500) ORDER BY pos <~> 'SRID=4326;POINT(120 0)' LIMIT 3;
SELECT (SELECT array_agg(id) FROM (SELECT id FROM vehicles WHERE id IN (5, 50, 500, 5000, 30500) ORDER BY pos <~> 'SRID=4326;POINT(120 0)' LIMIT 3) s)
	 = (SELECT array_agg(id) FROM (SELECT id FROM (SELECT * FROM flat UNION ALL SELECT * FROM vehicles_3) f WHERE id IN (5, 50, 500, 5000, 30500)
		ORDER BY ST_Distance(pos::geography, 'SRID=4326;POINT(120 0)'::geography) LIMIT 3) s) AS same_filtered_knn;
RESET enable_seqscan;
DROP TABLE vehicles, flat;
