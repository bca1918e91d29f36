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
-- IN on the partition key, with the key also a filter column of the geoidx
-- index: the planner prunes on the IN as written (2 of 4 list partitions, 2 of
-- 4 hash partitions), and only then does each partition's index get tenant
-- <@ array as an index condition. A list with parameters (tenant IN ($1, $2))
-- stays as written for run-time pruning; a whole array parameter, which
-- pruning never reads, becomes the index condition.
CREATE TABLE fleet_list (id int, tenant int, pos geometry(Point, 4326)) PARTITION BY LIST (tenant);
CREATE TABLE fleet_hash (id int, tenant int, pos geometry(Point, 4326)) PARTITION BY HASH (tenant);
DO $$
BEGIN
	FOR t IN 1..4 LOOP
		EXECUTE format('CREATE TABLE fleet_list_%s PARTITION OF fleet_list FOR VALUES IN (%s)', t, t);
		EXECUTE format('CREATE TABLE fleet_hash_%s PARTITION OF fleet_hash FOR VALUES WITH (MODULUS 4, REMAINDER %s)', t, t - 1);
	END LOOP;
END $$;
INSERT INTO fleet_list SELECT i, 1 + i % 4, ST_SetSRID(ST_MakePoint(100 + 40 * random(), -20 + 40 * random()), 4326)
FROM generate_series(1, 8000) i;
INSERT INTO fleet_hash SELECT id, id % 40, pos FROM fleet_list;
CREATE TABLE fleet_flat AS SELECT * FROM fleet_hash;
CREATE INDEX ON fleet_list USING geoidx (pos, tenant);
CREATE INDEX ON fleet_hash USING geoidx (pos, tenant);
ANALYZE fleet_list; ANALYZE fleet_hash;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT id FROM fleet_list WHERE tenant IN (1, 2) AND geoidx_dwithin(pos, 'SRID=4326;POINT(120 0)', 300000);
EXPLAIN (COSTS OFF)
SELECT id FROM fleet_hash WHERE tenant IN (7, 8) ORDER BY pos <~> 'SRID=4326;POINT(120 0)' LIMIT 5;
SELECT (SELECT array_agg(id ORDER BY id) FROM fleet_list WHERE tenant IN (1, 2) AND geoidx_dwithin(pos, 'SRID=4326;POINT(120 0)', 300000))
	 = (SELECT array_agg(f.id ORDER BY f.id) FROM fleet_flat f JOIN fleet_list l USING (id) WHERE l.tenant IN (1, 2)
		AND ST_DWithin(f.pos::geography, 'SRID=4326;POINT(120 0)'::geography, 300000)) AS same_pruned_radius;
SELECT (SELECT array_agg(d ORDER BY d) FROM (SELECT pos <~> 'SRID=4326;POINT(120 0)' AS d FROM fleet_hash
		WHERE tenant IN (7, 8) ORDER BY pos <~> 'SRID=4326;POINT(120 0)' LIMIT 20) s)
	 = (SELECT array_agg(d ORDER BY d) FROM (SELECT ST_Distance(pos::geography, 'SRID=4326;POINT(120 0)'::geography) AS d FROM fleet_flat
		WHERE tenant IN (7, 8) ORDER BY 1 LIMIT 20) s) AS same_pruned_knn;
SET plan_cache_mode = force_generic_plan;
PREPARE fleet_list_params(int, int) AS
SELECT id FROM fleet_hash WHERE tenant IN ($1, $2) ORDER BY pos <~> 'SRID=4326;POINT(120 0)' LIMIT 5;
EXPLAIN (COSTS OFF) EXECUTE fleet_list_params(7, 8);
PREPARE fleet_array_param(int[]) AS
SELECT id FROM fleet_hash WHERE tenant = ANY ($1) ORDER BY pos <~> 'SRID=4326;POINT(120 0)' LIMIT 5;
EXPLAIN (COSTS OFF) EXECUTE fleet_array_param('{7,8}');
RESET plan_cache_mode;
DEALLOCATE fleet_list_params; DEALLOCATE fleet_array_param;

-- A Citus table prunes its shards on its distribution column as written, so
-- that column keeps IN (...) too. Citus is not in Debian (test/citus/run.sh
-- runs the real thing); here its catalog pg_dist_partition, as Citus lays it
-- out, names a plain table's distribution column.
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid regclass NOT NULL, partmethod "char" NOT NULL,
	partkey text, colocationid int NOT NULL DEFAULT 0, repmodel "char" NOT NULL DEFAULT 's',
	autoconverted boolean NOT NULL DEFAULT false);
RESET allow_system_table_mods;
CREATE TABLE fleet_dist (id int, tenant int, pos geometry(Point, 4326));
INSERT INTO fleet_dist SELECT * FROM fleet_flat;
CREATE INDEX ON fleet_dist USING geoidx (pos, tenant, id);
ANALYZE fleet_dist;
INSERT INTO pg_catalog.pg_dist_partition (logicalrelid, partmethod, partkey) VALUES ('fleet_dist', 'h',
	'{VAR :varno 1 :varattno 2 :vartype 23 :vartypmod -1 :varcollid 0 :varlevelsup 0 :varnosyn 1 :varattnosyn 2 :location -1}');
-- tenant, the distribution column, as written; id still becomes an index condition
EXPLAIN (COSTS OFF)
SELECT id FROM fleet_dist WHERE tenant IN (7, 8) AND id IN (1, 2, 3) ORDER BY pos <~> 'SRID=4326;POINT(120 0)' LIMIT 5;
DROP TABLE pg_catalog.pg_dist_partition;
-- without the catalog, tenant is an index condition again
EXPLAIN (COSTS OFF)
SELECT id FROM fleet_dist WHERE tenant IN (7, 8) AND id IN (1, 2, 3) ORDER BY pos <~> 'SRID=4326;POINT(120 0)' LIMIT 5;
RESET enable_seqscan;
DROP TABLE vehicles, flat, fleet_list, fleet_hash, fleet_flat, fleet_dist;
