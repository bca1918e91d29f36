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
-- Partitions on geoidx_cell: the k nearest start only the partitions whose
-- cells can hold a row before the k-th (GeoidxNearestAppend), with the Merge
-- Append's rows in the Merge Append's order.
SELECT setseed(0.25);
CREATE TABLE cellpart (id int, pos geometry(Point, 4326)) PARTITION BY RANGE (geoidx_cell(pos, 3));
-- (autovacuum off: the plans below are those of pages not yet all visible, whenever it would run)
CREATE TABLE cellpart_rest PARTITION OF cellpart DEFAULT WITH (autovacuum_enabled = off);
DO $$
DECLARE
	lo bigint := NULL;
	hi bigint;
BEGIN
	FOR i IN 1..8 LOOP
		hi := i * 48;  -- 384 cells at level 3: 8 stretches of 48
		EXECUTE format('CREATE TABLE cellpart_%s PARTITION OF cellpart FOR VALUES FROM (%s) TO (%s) WITH (autovacuum_enabled = off)',
					   i, coalesce(lo::text, 'MINVALUE'), CASE WHEN i = 8 THEN 'MAXVALUE' ELSE hi::text END);
		lo := hi;
	END LOOP;
END $$;
INSERT INTO cellpart
SELECT i, ST_SetSRID(ST_MakePoint(-180 + 360 * random(), degrees(asin(2 * random() - 1))), 4326)
FROM generate_series(1, 20000) i;
-- NULL and EMPTY points have no cell: the default partition, which has no region and starts at once
INSERT INTO cellpart VALUES (20001, NULL), (20002, 'SRID=4326;POINT EMPTY');
CREATE INDEX ON cellpart USING geoidx (pos);
CREATE TABLE cellflat AS SELECT * FROM cellpart;
ANALYZE cellpart; ANALYZE cellflat;
EXPLAIN (COSTS OFF)
SELECT id FROM cellpart ORDER BY pos <~> 'SRID=4326;POINT(10 50)' LIMIT 10;
-- 2 of the 9 children run: the default partition and the one with the centre's cells
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT id FROM cellpart ORDER BY pos <~> 'SRID=4326;POINT(10 50)' LIMIT 10;
-- every k up to all rows (NULL distances last), 40 centres: PostGIS's distances, in order
SELECT count(*) AS centres,
	   count(*) FILTER (WHERE (SELECT array_agg(d) FROM (SELECT pos <~> c AS d FROM cellpart ORDER BY pos <~> c LIMIT k) s)
		 IS NOT DISTINCT FROM (SELECT array_agg(d) FROM (SELECT ST_Distance(pos::geography, c::geography) AS d FROM cellflat
								ORDER BY 1 LIMIT k) s)) AS same_distances
FROM (SELECT ST_SetSRID(ST_MakePoint(-180 + 360 * random(), degrees(asin(2 * random() - 1))), 4326) AS c,
			 (ARRAY[1, 10, 100, 3000, 20002])[1 + i % 5] AS k
	  FROM generate_series(0, 39) i) cs;
-- ties broken by id (a sort: PostgreSQL orders by an index only when it gives the whole ORDER BY)
SELECT (SELECT array_agg(id) FROM (SELECT id FROM cellpart ORDER BY pos <~> 'SRID=4326;POINT(-60 -10)', id LIMIT 50) s)
	 = (SELECT array_agg(id) FROM (SELECT id FROM cellflat ORDER BY ST_Distance(pos::geography, 'SRID=4326;POINT(-60 -10)'::geography), id LIMIT 50) s) AS same_ties;
-- the nearest 3 of each of 5 centres (LATERAL: a rescan per centre, new bounds each time)
SELECT count(*) AS rows, bool_and(a = b) AS same_lateral FROM (
	SELECT c.i, array_agg(n.id ORDER BY n.d, n.id) AS a,
		   (SELECT array_agg(id ORDER BY d, id) FROM (SELECT id, ST_Distance(pos::geography, c.c::geography) AS d FROM cellflat
			ORDER BY 2, 1 LIMIT 3) f) AS b
	FROM (SELECT i, ST_SetSRID(ST_MakePoint(-170 + 70 * i, 80 - 40 * i), 4326) AS c FROM generate_series(0, 4) i) c
	CROSS JOIN LATERAL (SELECT id, pos <~> c.c AS d FROM cellpart ORDER BY pos <~> c.c LIMIT 3) n
	GROUP BY c.i, c.c) x;
-- a generic plan with the centre a parameter
SET plan_cache_mode = force_generic_plan;
PREPARE cell_knn(float8, float8) AS
SELECT id FROM cellpart ORDER BY pos <~> ST_SetSRID(ST_MakePoint($1, $2), 4326) LIMIT 10;
EXPLAIN (COSTS OFF) EXECUTE cell_knn(100, -20);
CREATE TEMP TABLE cell_knn_rows AS EXECUTE cell_knn(100, -20);
SELECT (SELECT array_agg(id ORDER BY id) FROM cell_knn_rows)
	 = (SELECT array_agg(id ORDER BY id) FROM (SELECT id FROM cellflat
		ORDER BY ST_Distance(pos::geography, 'SRID=4326;POINT(100 -20)'::geography) LIMIT 10) s) AS same_generic;
RESET plan_cache_mode;
DEALLOCATE cell_knn;
-- a polygon centre: bounds less the reach of its box; a NULL or EMPTY centre: every child at once
SELECT (SELECT array_agg(d) FROM (SELECT pos <~> 'SRID=4326;POLYGON((0 0, 30 0, 30 20, 0 0))' AS d FROM cellpart
		ORDER BY 1 LIMIT 20) s)
	 = (SELECT array_agg(d) FROM (SELECT ST_Distance(pos::geography, 'SRID=4326;POLYGON((0 0, 30 0, 30 20, 0 0))'::geography) AS d
		FROM cellflat ORDER BY 1 LIMIT 20) s) AS same_polygon;
SELECT count(*) AS empty_centre FROM (SELECT id FROM cellpart ORDER BY pos <~> 'SRID=4326;POINT EMPTY' LIMIT 5) s;
SELECT count(*) AS null_centre FROM (SELECT id FROM cellpart ORDER BY pos <~> NULL::geometry LIMIT 5) s;
-- PostGIS's geography k-NN as apps send it (rewritten to <~~>, metres on the sphere)
SET geoidx.rewrite_postgis = on;
EXPLAIN (COSTS OFF)
SELECT id FROM cellpart ORDER BY pos::geography <-> 'SRID=4326;POINT(10 50)'::geography LIMIT 10;
SELECT (SELECT array_agg(d) FROM (SELECT pos::geography <-> 'SRID=4326;POINT(170 -5)'::geography AS d FROM cellpart
		ORDER BY pos::geography <-> 'SRID=4326;POINT(170 -5)'::geography LIMIT 300) s)
	 = (SELECT array_agg(d) FROM (SELECT pos::geography <-> 'SRID=4326;POINT(170 -5)'::geography AS d FROM cellflat
		ORDER BY 1 LIMIT 300) s) AS same_geography_knn;
RESET geoidx.rewrite_postgis;
-- a bad centre fails as the index scan fails
SELECT id FROM cellpart ORDER BY pos <~> 'SRID=3857;POINT(0 0)' LIMIT 1;
-- A radius query on the table partitioned on geoidx_cell reaches only the
-- partitions its circle can touch, with nothing written for it
-- (partition_prune.cc): at plan time for a circle the query names (the other
-- partitions are never planned, and no Append is left for one), when the
-- executor starts for parameters (Subplans Removed). The partition scanned
-- has no condition on its cell.
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM cellpart WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 50)', 300000);
-- planning after planning in one session (a later one may get the addresses
-- of an earlier one's planner state): each is pruned when planned (nothing
-- left for the executor to remove), and the partition planned keeps no
-- condition on its cell
CREATE FUNCTION cell_plans(OUT plans int, OUT partitions int, OUT removed_at_start int,
						   OUT cell_filters int) LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
	plans := 0; partitions := 0; removed_at_start := 0; cell_filters := 0;
	FOR i IN 1..6 LOOP
		FOR line IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT count(*) FROM cellpart '
								   'WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(%s, 50), 4326), 300000)', 5 + i) LOOP
			partitions := partitions + (line ~ ' on cellpart_\w+ cellpart')::int;
			removed_at_start := removed_at_start + (line ~ 'Subplans Removed')::int;
			cell_filters := cell_filters + (line ~ 'geoidx_cell')::int;
		END LOOP;
		plans := plans + 1;
	END LOOP;
END $$;
SELECT * FROM cell_plans();
DROP FUNCTION cell_plans();
PREPARE cell_radius(float8, float8) AS
SELECT count(*) FROM cellpart WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint($1, $2), 4326), 300000);
-- PostgreSQL's plan cache takes the generic plan after five executions: the
-- estimate of a disc of known radius around a parameter (sampled where the
-- rows are) is the custom plans' (with the default share it planned every
-- execution anew)
EXECUTE cell_radius(10, 50); EXECUTE cell_radius(10, 50); EXECUTE cell_radius(10, 50);
EXECUTE cell_radius(10, 50); EXECUTE cell_radius(10, 50); EXECUTE cell_radius(10, 50);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE cell_radius(10, 50);
DEALLOCATE cell_radius;
PREPARE cell_radius(float8, float8, float8) AS
SELECT count(*) FROM cellpart WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint($1, $2), 4326), $3);
-- 60 circles (the poles, the antimeridian, 0 m to 5,000 km, NaN and below 0),
-- custom and generic plans: PostGIS's counts
CREATE TEMP TABLE circles AS
SELECT i, CASE i % 6 WHEN 0 THEN 180 - random() WHEN 1 THEN -180 + 360 * random() ELSE -180 + 360 * random() END AS lon,
	   CASE i % 6 WHEN 2 THEN 89.9 WHEN 3 THEN -89.5 ELSE degrees(asin(2 * random() - 1)) END AS lat,
	   CASE i WHEN 7 THEN 'NaN'::float8 WHEN 8 THEN -1 WHEN 9 THEN 0 ELSE (10 ^ (7 * random()))::float8 END AS r
FROM generate_series(0, 59) i;
CREATE FUNCTION cell_radius_counts(OUT same int, OUT total int) LANGUAGE plpgsql AS $$
DECLARE c record; n bigint; m bigint;
BEGIN
	same := 0; total := 0;
	FOR c IN SELECT * FROM circles LOOP
		EXECUTE format('EXECUTE cell_radius(%L, %L, %L)', c.lon, c.lat, c.r) INTO n;
		SELECT count(*) INTO m FROM cellflat
		WHERE ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(c.lon, c.lat), 4326)::geography, c.r);
		same := same + (n = m)::int; total := total + 1;
	END LOOP;
END $$;
SET plan_cache_mode = force_generic_plan;
SELECT * FROM cell_radius_counts();
SET plan_cache_mode = force_custom_plan;
SELECT * FROM cell_radius_counts();
RESET plan_cache_mode;
-- the same circles named in the query text, pruned at plan time: around a
-- point, a line (the candidate disc around its box), EMPTY and NULL
CREATE FUNCTION cell_literal_counts(OUT same int, OUT total int) LANGUAGE plpgsql AS $$
DECLARE c record; g geometry; n bigint; m bigint;
BEGIN
	same := 0; total := 0;
	FOR c IN SELECT * FROM circles LOOP
		g := CASE c.i % 3 WHEN 1 THEN ST_SetSRID(ST_MakeLine(ST_MakePoint(c.lon, c.lat), ST_MakePoint(c.lon * 0.97, c.lat * 0.9)), 4326)
			 ELSE CASE WHEN c.i = 5 THEN 'SRID=4326;POINT EMPTY'::geometry WHEN c.i = 11 THEN NULL
					   ELSE ST_SetSRID(ST_MakePoint(c.lon, c.lat), 4326) END END;
		IF c.i % 3 = 0 THEN
			EXECUTE format('SELECT count(*) FROM cellpart WHERE geoidx_dwithin(pos, '
						   'ST_SetSRID(ST_MakePoint(%s, %s), 4326), %s)',
						   quote_literal(c.lon) || '::float8', quote_literal(c.lat) || '::float8',
						   quote_literal(c.r) || '::float8') INTO n;
		ELSE
			EXECUTE format('SELECT count(*) FROM cellpart WHERE geoidx_dwithin(pos, %L::geometry, %L::float8)',
						   g, c.r) INTO n;
		END IF;
		SELECT count(*) INTO m FROM cellflat WHERE ST_DWithin(pos::geography, g::geography, c.r);
		same := same + (n = m)::int; total := total + 1;
	END LOOP;
END $$;
SELECT * FROM cell_literal_counts();
DROP FUNCTION cell_literal_counts();
-- in a join's ON, beside the radius condition there, as in a WHERE
SELECT (SELECT count(p.id) FROM (VALUES (1)) v(x) LEFT JOIN cellpart p
		ON geoidx_dwithin(p.pos, 'SRID=4326;POINT(-60 -10)', 800000))
	 = (SELECT count(*) FROM cellflat WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(-60 -10)'::geography, 800000))
	   AS same_join;
-- and an UPDATE reaches the same rows
WITH u AS (UPDATE cellpart SET id = id WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(170 -5)', 1500000) RETURNING 1)
SELECT (SELECT count(*) FROM u)
	 = (SELECT count(*) FROM cellflat WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(170 -5)'::geography, 1500000))
	   AS same_update;
SET plan_cache_mode = force_custom_plan;
-- A centre the planner cannot see is a point (a geometry parameter, as
-- drivers send it) prunes by the candidate disc around its box: a point, a
-- line, EMPTY and NULL, against PostGIS, in generic plans
PREPARE cell_radius_g(geometry, float8) AS
SELECT count(*) FROM cellpart WHERE geoidx_dwithin(pos, $1, $2);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE cell_radius_g('SRID=4326;POINT(10 50)', 300000);
CREATE FUNCTION cell_radius_g_counts(OUT same int, OUT total int) LANGUAGE plpgsql AS $$
DECLARE c record; g geometry; n bigint; m bigint;
BEGIN
	same := 0; total := 0;
	FOR c IN SELECT * FROM circles LOOP
		g := CASE c.i % 3 WHEN 0 THEN ST_SetSRID(ST_MakePoint(c.lon, c.lat), 4326)
			 WHEN 1 THEN ST_SetSRID(ST_MakeLine(ST_MakePoint(c.lon, c.lat), ST_MakePoint(c.lon * 0.97, c.lat * 0.9)), 4326)
			 ELSE CASE WHEN c.i = 5 THEN 'SRID=4326;POINT EMPTY'::geometry WHEN c.i = 11 THEN NULL
					   ELSE ST_SetSRID(ST_MakePoint(c.lon, c.lat), 4326) END END;
		EXECUTE format('EXECUTE cell_radius_g(%L::geometry, %L)', g, c.r) INTO n;
		SELECT count(*) INTO m FROM cellflat WHERE ST_DWithin(pos::geography, g::geography, c.r);
		same := same + (n = m)::int; total := total + 1;
	END LOOP;
END $$;
SELECT * FROM cell_radius_g_counts();
RESET plan_cache_mode;
DEALLOCATE cell_radius_g;
-- and the plan cache keeps the generic plan: the candidate disc of a
-- parameter is estimated where the rows are (at the default share, the index
-- cost made every execution plan all the partitions anew)
PREPARE cell_radius_g(geometry) AS
SELECT count(*) FROM cellpart WHERE geoidx_dwithin(pos, $1, 300000);
EXECUTE cell_radius_g('SRID=4326;POINT(10 50)'); EXECUTE cell_radius_g('SRID=4326;POINT(11 50)');
EXECUTE cell_radius_g('SRID=4326;POINT(12 50)'); EXECUTE cell_radius_g('SRID=4326;POINT(13 50)');
EXECUTE cell_radius_g('SRID=4326;POINT(14 50)'); EXECUTE cell_radius_g('SRID=4326;POINT(15 50)');
EXPLAIN (COSTS OFF) EXECUTE cell_radius_g('SRID=4326;POINT(10 50)');
SELECT generic_plans > 0 AS generic_kept FROM pg_prepared_statements WHERE name = 'cell_radius_g';
DEALLOCATE cell_radius_g;
DROP FUNCTION cell_radius_g_counts();
-- a distance comparison (pos <~> c < r) prunes as well
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM cellpart WHERE pos <~> 'SRID=4326;POINT(-60 -10)' < 1000000;
SELECT (SELECT count(*) FROM cellpart WHERE pos <~> 'SRID=4326;POINT(-60 -10)' < 1000000)
	 = (SELECT count(*) FROM cellflat WHERE ST_Distance(pos::geography, 'SRID=4326;POINT(-60 -10)'::geography) < 1000000) AS same_lt;
-- the outside of a circle prunes nothing: it holds the EMPTY point, which has no cell
EXPLAIN (COSTS OFF)
SELECT count(*) FROM cellpart WHERE NOT geoidx_dwithin(pos, 'SRID=4326;POINT(10 50)', 300000);
SELECT (SELECT array_agg(id ORDER BY id) FROM cellpart WHERE NOT geoidx_dwithin(pos, 'SRID=4326;POINT(10 50)', 19000000))
	 = (SELECT array_agg(id ORDER BY id) FROM cellflat WHERE NOT ST_DWithin(pos::geography, 'SRID=4326;POINT(10 50)'::geography, 19000000)) AS same_outside;
DEALLOCATE cell_radius;
DROP FUNCTION cell_radius_counts();
-- list partitions of cells, and a hash partitioning (no region: the Merge Append stays)
CREATE TABLE celllist (id int, pos geometry(Point, 4326)) PARTITION BY LIST (geoidx_cell(pos, 1));
CREATE TABLE celllist_a PARTITION OF celllist FOR VALUES IN (0, 1, 2, 3, 4, 5, 6, 7);
CREATE TABLE celllist_b PARTITION OF celllist FOR VALUES IN (8, 9, 10, 11);
CREATE TABLE celllist_c PARTITION OF celllist DEFAULT;
INSERT INTO celllist SELECT * FROM cellflat WHERE pos IS NOT NULL AND NOT ST_IsEmpty(pos);
CREATE INDEX ON celllist USING geoidx (pos);
ANALYZE celllist;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT id FROM celllist ORDER BY pos <~> 'SRID=4326;POINT(10 5)' LIMIT 10;
SELECT (SELECT array_agg(d) FROM (SELECT pos <~> 'SRID=4326;POINT(10 5)' AS d FROM celllist ORDER BY 1 LIMIT 500) s)
	 = (SELECT array_agg(d) FROM (SELECT ST_Distance(pos::geography, 'SRID=4326;POINT(10 5)'::geography) AS d FROM cellflat
		ORDER BY 1 LIMIT 500) s) AS same_list;
-- two levels of partitioning: the leaves' constraints hold both levels' cells
CREATE TABLE celltwo (id int, pos geometry(Point, 4326)) PARTITION BY RANGE (geoidx_cell(pos, 1));
CREATE TABLE celltwo_a PARTITION OF celltwo FOR VALUES FROM (MINVALUE) TO (12) PARTITION BY RANGE (geoidx_cell(pos, 4));
CREATE TABLE celltwo_a1 PARTITION OF celltwo_a FOR VALUES FROM (MINVALUE) TO (400);
CREATE TABLE celltwo_a2 PARTITION OF celltwo_a FOR VALUES FROM (400) TO (MAXVALUE);
CREATE TABLE celltwo_b PARTITION OF celltwo FOR VALUES FROM (12) TO (MAXVALUE) PARTITION BY LIST (geoidx_cell(pos, 2));
CREATE TABLE celltwo_b1 PARTITION OF celltwo_b FOR VALUES IN (48, 49, 50, 51, 52);
CREATE TABLE celltwo_b2 PARTITION OF celltwo_b DEFAULT;
INSERT INTO celltwo SELECT * FROM celllist;
CREATE INDEX ON celltwo USING geoidx (pos);
ANALYZE celltwo;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT id FROM celltwo ORDER BY pos <~> 'SRID=4326;POINT(-170 -60)' LIMIT 10;
SELECT count(*) AS centres,
	   count(*) FILTER (WHERE (SELECT array_agg(d) FROM (SELECT pos <~> c AS d FROM celltwo ORDER BY pos <~> c LIMIT 25) s)
		 = (SELECT array_agg(d) FROM (SELECT ST_Distance(pos::geography, c::geography) AS d FROM celllist
			ORDER BY 1 LIMIT 25) s)) AS same_two_levels
FROM (SELECT ST_SetSRID(ST_MakePoint(-180 + 360 * random(), degrees(asin(2 * random() - 1))), 4326) AS c
	  FROM generate_series(1, 30)) cs;
CREATE TABLE cellhash (id int, pos geometry(Point, 4326)) PARTITION BY HASH (geoidx_cell(pos, 3));
CREATE TABLE cellhash_0 PARTITION OF cellhash FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE cellhash_1 PARTITION OF cellhash FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO cellhash SELECT * FROM celllist;
CREATE INDEX ON cellhash USING geoidx (pos);
ANALYZE cellhash;
EXPLAIN (COSTS OFF)
SELECT id FROM cellhash ORDER BY pos <~> 'SRID=4326;POINT(10 5)' LIMIT 10;
DROP TABLE cellpart, cellflat, celllist, celltwo, cellhash;
