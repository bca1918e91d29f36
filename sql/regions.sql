-- Regions other than a disc: keyset paging (pos <~> c > x), rings, NOT within.
-- Every answer is compared with PostGIS geography on the same rows.
SET client_min_messages = warning;
SELECT setseed(0.5);
CREATE TABLE pts (id int PRIMARY KEY, pos geometry(Point, 4326));
INSERT INTO pts
SELECT i, ST_SetSRID(ST_MakePoint(-20 + 40 * random(), 30 + 30 * random()), 4326)
FROM generate_series(1, 5000) i;
-- exact duplicates: ties in distance
INSERT INTO pts SELECT 5000 + id, pos FROM pts WHERE id <= 300;
INSERT INTO pts VALUES (9001, NULL), (9002, 'SRID=4326;POINT EMPTY');
CREATE INDEX pts_pos ON pts USING geoidx (pos);
ANALYZE pts;
CREATE TABLE ref AS SELECT id, pos, ST_Distance(pos::geography, 'SRID=4326;POINT(5 45)'::geography) AS d FROM pts;

SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- the comparison is rewritten into geoidx_beyond and becomes an index condition:
-- one ordered scan, no filter, no sort
EXPLAIN (COSTS OFF)
SELECT id FROM pts WHERE pos <~> 'SRID=4326;POINT(5 45)' > 1234.5 ORDER BY pos <~> 'SRID=4326;POINT(5 45)' LIMIT 10;
-- either side, every comparison
EXPLAIN (COSTS OFF)
SELECT id FROM pts WHERE 1000 <= pos <~> 'SRID=4326;POINT(5 45)' AND 'SRID=4326;POINT(5 45)' <~> pos < 2e5;
-- NOT geoidx_dwithin is rewritten into geoidx_outside; a ring is two conditions
EXPLAIN (COSTS OFF)
SELECT id FROM pts WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(5 45)', 3e5) AND NOT geoidx_dwithin(pos, 'SRID=4326;POINT(5 45)', 1e5);
EXPLAIN (COSTS OFF)
SELECT id FROM pts WHERE geoidx_ring(pos, 'SRID=4326;POINT(5 45)', 1e5, 3e5) ORDER BY pos <~> 'SRID=4326;POINT(5 45)' LIMIT 5;
-- under OR nothing is rewritten (still right, not an index condition)
EXPLAIN (COSTS OFF)
SELECT id FROM pts WHERE pos <~> 'SRID=4326;POINT(5 45)' > 1e6 OR id = 3;

-- answers: each shape against the reference, by index scan, bitmap scan and sequential scan
CREATE FUNCTION same(q text, r text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE a int[]; b int[];
BEGIN
	EXECUTE 'SELECT array_agg(id ORDER BY id) FROM (' || q || ') s' INTO a;
	EXECUTE 'SELECT array_agg(id ORDER BY id) FROM (' || r || ') s' INTO b;
	RETURN a IS NOT DISTINCT FROM b;
END $$;
CREATE TEMP TABLE shapes (n int, q text, r text);
INSERT INTO shapes VALUES
 (1, $$SELECT id FROM pts WHERE pos <~> 'SRID=4326;POINT(5 45)' > 5e5$$, $$SELECT id FROM ref WHERE d > 5e5$$),
 (2, $$SELECT id FROM pts WHERE pos <~> 'SRID=4326;POINT(5 45)' >= 0$$, $$SELECT id FROM ref WHERE d >= 0$$),
 (3, $$SELECT id FROM pts WHERE pos <~> 'SRID=4326;POINT(5 45)' < 3e5$$, $$SELECT id FROM ref WHERE d < 3e5$$),
 (4, $$SELECT id FROM pts WHERE pos <~> 'SRID=4326;POINT(5 45)' <= 'NaN'$$, $$SELECT id FROM ref WHERE d <= 'NaN'$$),
 (5, $$SELECT id FROM pts WHERE pos <~> 'SRID=4326;POINT(5 45)' > 'NaN'$$, $$SELECT id FROM ref WHERE d > 'NaN'$$),
 (6, $$SELECT id FROM pts WHERE pos <~> 'SRID=4326;POINT(5 45)' > -1$$, $$SELECT id FROM ref WHERE d > -1$$),
 (7, $$SELECT id FROM pts WHERE pos <~> 'SRID=4326;POINT(5 45)' < 'Infinity'$$, $$SELECT id FROM ref WHERE d < 'Infinity'$$),
 (8, $$SELECT id FROM pts WHERE pos <~> 'SRID=4326;POINT(5 45)' > (SELECT d FROM ref WHERE id = 17)$$,
     $$SELECT id FROM ref WHERE d > (SELECT d FROM ref WHERE id = 17)$$),
 (9, $$SELECT id FROM pts WHERE pos <~> 'SRID=4326;POINT(5 45)' >= (SELECT d FROM ref WHERE id = 17)$$,
     $$SELECT id FROM ref WHERE d >= (SELECT d FROM ref WHERE id = 17)$$),
 (10, $$SELECT id FROM pts WHERE geoidx_ring(pos, 'SRID=4326;POINT(5 45)', 1e5, 3e5)$$,
      $$SELECT id FROM ref WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(5 45)', 3e5) AND NOT ST_DWithin(pos::geography, 'SRID=4326;POINT(5 45)', 1e5)$$),
 (11, $$SELECT id FROM pts WHERE geoidx_ring('SRID=4326;POINT(5 45)', pos, 1e5, 3e5, false)$$,
      $$SELECT id FROM ref WHERE ST_DWithin('SRID=4326;POINT(5 45)'::geography, pos::geography, 3e5, false) AND NOT ST_DWithin('SRID=4326;POINT(5 45)'::geography, pos::geography, 1e5, false)$$),
 -- EMPTY is outside every disc, NULL is nowhere
 (12, $$SELECT id FROM pts WHERE NOT geoidx_dwithin(pos, 'SRID=4326;POINT(5 45)', 1e6)$$,
      $$SELECT id FROM ref WHERE NOT ST_DWithin(pos::geography, 'SRID=4326;POINT(5 45)', 1e6)$$),
 (13, $$SELECT id FROM pts WHERE geoidx_outside(pos, 'SRID=4326;POINT(5 45)', 1e6, false)$$,
      $$SELECT id FROM ref WHERE NOT ST_DWithin(pos::geography, 'SRID=4326;POINT(5 45)', 1e6, false)$$),
 (14, $$SELECT id FROM pts WHERE geoidx_nearer(pos, 'SRID=4326;POINT(5 45)', 2e5, true) AND geoidx_beyond(pos, 'SRID=4326;POINT(5 45)', 1e5)$$,
      $$SELECT id FROM ref WHERE d <= 2e5 AND d > 1e5$$);
SELECT n, same(q, r) AS index_scan FROM shapes ORDER BY n;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT n, same(q, r) AS bitmap_scan FROM shapes ORDER BY n;
-- a ring is its hole and its disc in the query (rewrite.cc): the Recheck Cond
-- runs on lossy pages only, and no Filter calls geoidx_ring on every row; on
-- the sphere with the column first the disc is 1 um wider and the call stays
EXPLAIN (COSTS OFF) SELECT count(*) FROM pts WHERE geoidx_ring(pos, 'SRID=4326;POINT(5 45)', 1e5, 3e5);
EXPLAIN (COSTS OFF) SELECT count(*) FROM pts WHERE geoidx_ring(pos, 'SRID=4326;POINT(5 45)', 1e5, 3e5, false);
RESET enable_seqscan;
SET enable_bitmapscan = off;
SELECT n, same(q, r) AS seq_scan FROM shapes ORDER BY n;
SET enable_seqscan = off;
SET enable_indexscan = on;

-- keyset paging through every row, 97 per page: each row once, in distance
-- order. Ties at a page's last distance D: the next page asks for >= D minus
-- the ids already returned at D (see README, "Paging").
CREATE TEMP TABLE paged (n serial, id int, d float8);
DO $$
DECLARE last_d float8 := -1; at_last int[] := '{}'; r record; got int;
BEGIN
	LOOP
		got := 0;
		FOR r IN SELECT id, pos <~> 'SRID=4326;POINT(5 45)' AS d FROM pts
				 WHERE pos <~> 'SRID=4326;POINT(5 45)' >= last_d
				   AND NOT (pos <~> 'SRID=4326;POINT(5 45)' = last_d AND id = ANY (at_last))
				 ORDER BY pos <~> 'SRID=4326;POINT(5 45)' LIMIT 97 LOOP
			got := got + 1;
			INSERT INTO paged (id, d) VALUES (r.id, r.d);
			IF r.d = last_d THEN at_last := at_last || r.id; ELSE at_last := ARRAY[r.id]; last_d := r.d; END IF;
		END LOOP;
		EXIT WHEN got < 97;
	END LOOP;
END $$;
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids,
	(SELECT count(*) FROM ref WHERE d IS NOT NULL) AS reference_rows,
	(SELECT array_agg(d ORDER BY n) FROM paged) = (SELECT array_agg(d ORDER BY d) FROM ref WHERE d IS NOT NULL) AS same_distances,
	(SELECT count(*) FROM paged p JOIN ref USING (id) WHERE p.d <> ref.d) AS wrong_distances
FROM paged;
-- page 30 reads about what page 1 reads: the bound skips the rest
CREATE FUNCTION buffers(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE l text; n int := 0;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF l ~ 'Index Scan' THEN CONTINUE; END IF;
		IF l ~ 'Buffers: shared' THEN
			n := substring(l FROM 'hit=(\d+)')::int + coalesce(substring(l FROM 'read=(\d+)')::int, 0);
			RETURN n;
		END IF;
	END LOOP;
	RETURN n;
END $$;
SELECT buffers(format($$SELECT id FROM pts WHERE pos <~> 'SRID=4326;POINT(5 45)' > %s ORDER BY pos <~> 'SRID=4326;POINT(5 45)' LIMIT 10$$,
		(SELECT d FROM paged WHERE n = 2900))) <= 2 * buffers($$SELECT id FROM pts ORDER BY pos <~> 'SRID=4326;POINT(5 45)' LIMIT 10$$) + 4
	AS page_290_costs_like_page_1;

-- prepared with parameters: the generic plan keeps the index condition
PREPARE page(geometry, float8) AS SELECT id FROM pts WHERE pos <~> $1 > $2 ORDER BY pos <~> $1 LIMIT 3;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE page('SRID=4326;POINT(5 45)', 1e5);
CREATE TEMP TABLE page_rows AS EXECUTE page('SRID=4326;POINT(5 45)', 1e5);
SELECT array_agg(d ORDER BY d) = (SELECT array_agg(d) FROM (SELECT d FROM ref WHERE d > 1e5 ORDER BY d LIMIT 3) s)
	AS generic_plan_rows
FROM page_rows JOIN ref USING (id);
RESET plan_cache_mode;

-- ring + nearest first: one scan
SELECT array_agg(d ORDER BY d) = (SELECT array_agg(d ORDER BY d) FROM (SELECT d FROM ref
		WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(5 45)', 3e5) AND NOT ST_DWithin(pos::geography, 'SRID=4326;POINT(5 45)', 1e5)
		ORDER BY d LIMIT 25) s) AS ring_knn
FROM (SELECT pos <~> 'SRID=4326;POINT(5 45)' AS d FROM pts WHERE geoidx_ring(pos, 'SRID=4326;POINT(5 45)', 1e5, 3e5)
	ORDER BY pos <~> 'SRID=4326;POINT(5 45)' LIMIT 25) s;

-- the predicates on their own: NULLs as the expressions they stand for
SELECT geoidx_beyond('SRID=4326;POINT(0 0)'::geometry, 'SRID=4326;POINT EMPTY', 1) AS empty_beyond,
	('SRID=4326;POINT(0 0)'::geometry <~> 'SRID=4326;POINT EMPTY') > 1 AS empty_comparison,
	geoidx_outside('SRID=4326;POINT(0 0)'::geometry, 'SRID=4326;POINT EMPTY', 1) AS empty_outside,
	geoidx_ring('SRID=4326;POINT(0 0)'::geometry, 'SRID=4326;POINT EMPTY', 0, 1) AS empty_ring,
	geoidx_beyond('SRID=4326;POINT(0 0)'::geometry, 'SRID=4326;POINT(0 1)', NULL) AS null_bound;
-- the region values, their text form and errors
SELECT geoidx_circle_distance('SRID=4326;POINT(1 2)'::geometry, '>=', 12.5),
	geoidx_circle_outside('SRID=4326;POINT(1 2)'::geometry, 3, false),
	'< CIRCLE(1 2, 5)'::geoidx_circle, 'not circle(1 2, 5, sphere)'::geoidx_circle;
SELECT geoidx_circle_distance('SRID=4326;POINT(1 2)'::geometry, '=', 12.5);
-- a negative or NaN radius has nothing within it (PostGIS's ST_DWithin is false): no error
SELECT geoidx_ring('SRID=4326;POINT(0 0)'::geometry, 'SRID=4326;POINT(0 1)', -1, 5);
SELECT geoidx_circle_outside('SRID=4326;POINT(1 2)'::geometry, 'NaN', true);
SELECT 'NOTCIRCLE(1 2, 5)'::geoidx_circle;
SELECT 'SRID=4326;POINT(1 1)'::geometry <@ '> CIRCLE(1 2, 1000)'::geoidx_circle AS far_enough,
	'SRID=4326;POINT EMPTY'::geometry <@ 'NOT CIRCLE(1 2, 1000)'::geoidx_circle AS empty_is_outside,
	'SRID=4326;POINT EMPTY'::geometry <@ '> CIRCLE(1 2, 1000)'::geoidx_circle AS empty_has_no_distance;

-- geography columns: the same
CREATE TABLE gpts AS SELECT id, pos::geography AS g FROM pts;
CREATE INDEX gpts_g ON gpts USING geoidx (g);
ANALYZE gpts;
EXPLAIN (COSTS OFF)
SELECT id FROM gpts WHERE g <~> 'SRID=4326;POINT(5 45)'::geography > 1e5 ORDER BY g <~> 'SRID=4326;POINT(5 45)'::geography LIMIT 3;
SELECT same($$SELECT id FROM gpts WHERE g <~> 'SRID=4326;POINT(5 45)'::geography >= 2e5 AND NOT geoidx_dwithin(g, 'SRID=4326;POINT(5 45)'::geography, 4e5)$$,
	$$SELECT id FROM ref WHERE d >= 2e5 AND NOT ST_DWithin(pos::geography, 'SRID=4326;POINT(5 45)', 4e5)$$) AS geography_same;

-- NOT geoidx_dwithin of an EMPTY centre: nothing is within it, so every row
-- but NULL, the EMPTY one too, in the index as in PostGIS (its outside circle
-- holds every point); a parameter the same in a generic plan
SET geoidx.rewrite_postgis = off; -- PostGIS's own NOT ST_DWithin for the reference
CREATE TEMP TABLE outside_ref AS SELECT count(*) AS postgis FROM pts WHERE NOT ST_DWithin(pos::geography, 'SRID=4326;POINT EMPTY'::geography, 10);
RESET geoidx.rewrite_postgis;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM pts WHERE NOT geoidx_dwithin(pos, 'SRID=4326;POINT EMPTY', 10);
SELECT count(*) AS outside_empty, (SELECT postgis FROM outside_ref) FROM pts WHERE NOT geoidx_dwithin(pos, 'SRID=4326;POINT EMPTY', 10);
PREPARE outside_of(geometry) AS SELECT count(*) FROM pts WHERE NOT geoidx_dwithin(pos, $1, 10);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE outside_of('SRID=4326;POINT EMPTY');
EXECUTE outside_of('SRID=4326;POINT EMPTY');
RESET plan_cache_mode;
RESET enable_seqscan;

-- A parameter that may be a shape at run time (the planner cannot prove it a
-- point): nearer and a ring read the candidate disc of their (outer) bound,
-- with the call as the filter; the outside has no condition. Each against
-- PostGIS for a point, a line, a polygon, EMPTY and NULL, in generic plans.
-- Beyond reads geoidx_candidate_beyond's region: a point's exact one (keyset
-- paging keeps its bound), the outside of a smaller sphere disc for a shape.
SET enable_seqscan = off;
SET plan_cache_mode = force_generic_plan;
PREPARE near_lt(geometry, float8) AS SELECT array_agg(id ORDER BY id) FROM pts WHERE pos <~> $1 < $2;
PREPARE near_le(geometry, float8) AS SELECT array_agg(id ORDER BY id) FROM pts WHERE pos <~> $1 <= $2;
PREPARE ring_of(geometry, float8, float8) AS SELECT array_agg(id ORDER BY id) FROM pts WHERE geoidx_ring(pos, $1, $2, $3);
PREPARE outside_g(geometry, float8) AS SELECT array_agg(id ORDER BY id) FROM pts WHERE NOT geoidx_dwithin(pos, $1, $2);
PREPARE beyond_gt(geometry, float8) AS SELECT array_agg(id ORDER BY id) FROM pts WHERE pos <~> $1 > $2;
PREPARE beyond_ge(geometry, float8) AS SELECT array_agg(id ORDER BY id) FROM pts WHERE pos <~> $1 >= $2;
-- keyset paging away from the parameter: the distances of a page of 700
PREPARE away(geometry, float8) AS SELECT array_agg(d ORDER BY d) FROM
	(SELECT pos <~> $1 AS d FROM pts WHERE pos <~> $1 > $2 ORDER BY pos <~> $1 LIMIT 700) s;
EXPLAIN (COSTS OFF) EXECUTE near_lt('SRID=4326;POINT(5 45)', 1e5);
EXPLAIN (COSTS OFF) EXECUTE ring_of('SRID=4326;POINT(5 45)', 1e5, 2e5);
EXPLAIN (COSTS OFF) EXECUTE outside_g('SRID=4326;POINT(5 45)', 1e5);
EXPLAIN (COSTS OFF) EXECUTE away('SRID=4326;POINT(5 45)', 1e5);
SET geoidx.rewrite_postgis = off; -- PostGIS's own calls for the reference
CREATE FUNCTION shape_param_same(OUT same int, OUT total int) LANGUAGE plpgsql AS $$
DECLARE c geometry; r float8; rr float8[]; got int[]; want int[]; d float8; dgot float8[]; dwant float8[];
BEGIN
	same := 0; total := 0;
	FOR c IN SELECT unnest(ARRAY['SRID=4326;POINT(5 45)', 'SRID=4326;LINESTRING(0 40, 10 50)',
								 'SRID=4326;POLYGON((0 40, 10 40, 10 50, 0 40))', 'SRID=4326;POINT EMPTY',
								 NULL]::geometry[]) LOOP
		FOREACH r IN ARRAY ARRAY[0, 1e5, 3e5, 'NaN', -1, 'Infinity']::float8[] LOOP
			EXECUTE format('EXECUTE near_lt(%L::geometry, %L)', c, r) INTO got;
			SELECT array_agg(id ORDER BY id) INTO want FROM pts WHERE ST_Distance(pos::geography, c::geography) < r;
			same := same + (got IS NOT DISTINCT FROM want)::int; total := total + 1;
			EXECUTE format('EXECUTE near_le(%L::geometry, %L)', c, r) INTO got;
			SELECT array_agg(id ORDER BY id) INTO want FROM pts WHERE ST_Distance(pos::geography, c::geography) <= r;
			same := same + (got IS NOT DISTINCT FROM want)::int; total := total + 1;
			EXECUTE format('EXECUTE outside_g(%L::geometry, %L)', c, r) INTO got;
			SELECT array_agg(id ORDER BY id) INTO want FROM pts WHERE NOT ST_DWithin(pos::geography, c::geography, r);
			same := same + (got IS NOT DISTINCT FROM want)::int; total := total + 1;
			EXECUTE format('EXECUTE beyond_gt(%L::geometry, %L)', c, r) INTO got;
			SELECT array_agg(id ORDER BY id) INTO want FROM pts WHERE ST_Distance(pos::geography, c::geography) > r;
			same := same + (got IS NOT DISTINCT FROM want)::int; total := total + 1;
			EXECUTE format('EXECUTE beyond_ge(%L::geometry, %L)', c, r) INTO got;
			SELECT array_agg(id ORDER BY id) INTO want FROM pts WHERE ST_Distance(pos::geography, c::geography) >= r;
			same := same + (got IS NOT DISTINCT FROM want)::int; total := total + 1;
		END LOOP;
		FOREACH rr SLICE 1 IN ARRAY ARRAY[[1e5, 3e5], [0, 2e5], [-1, 2e5], [1e5, 'NaN']]::float8[] LOOP
			EXECUTE format('EXECUTE ring_of(%L::geometry, %L, %L)', c, rr[1], rr[2]) INTO got;
			SELECT array_agg(id ORDER BY id) INTO want FROM pts
			WHERE ST_DWithin(pos::geography, c::geography, rr[2]) AND NOT ST_DWithin(pos::geography, c::geography, rr[1]);
			same := same + (got IS NOT DISTINCT FROM want)::int; total := total + 1;
		END LOOP;
		-- every page away from c, until one comes back empty
		d := -1;
		LOOP
			EXECUTE format('EXECUTE away(%L::geometry, %L)', c, d) INTO dgot;
			SELECT array_agg(x ORDER BY x) INTO dwant FROM (SELECT ST_Distance(pos::geography, c::geography) AS x
				FROM pts WHERE ST_Distance(pos::geography, c::geography) > d ORDER BY 1 LIMIT 700) s;
			same := same + (dgot IS NOT DISTINCT FROM dwant)::int; total := total + 1;
			EXIT WHEN dgot IS NULL OR dgot IS DISTINCT FROM dwant;
			d := dgot[array_upper(dgot, 1)];
		END LOOP;
	END LOOP;
END $$;
SELECT * FROM shape_param_same();
-- a constant shape: the same region; geography too
EXPLAIN (COSTS OFF) SELECT id FROM pts WHERE pos <~> 'SRID=4326;LINESTRING(0 40, 10 50)'::geometry > 3e5
	ORDER BY pos <~> 'SRID=4326;LINESTRING(0 40, 10 50)'::geometry LIMIT 5;
SELECT same($$SELECT id FROM pts WHERE pos <~> 'SRID=4326;POLYGON((0 40, 10 40, 10 50, 0 40))'::geometry > 2e5$$,
		$$SELECT id FROM pts WHERE ST_Distance(pos::geography, 'SRID=4326;POLYGON((0 40, 10 40, 10 50, 0 40))') > 2e5$$)
		AS constant_shape_beyond,
	same($$SELECT id FROM gpts WHERE g <~> 'SRID=4326;LINESTRING(-10 35, 0 40, 10 50)'::geography >= 1.5e5$$,
		$$SELECT id FROM gpts WHERE ST_Distance(g, 'SRID=4326;LINESTRING(-10 35, 0 40, 10 50)') >= 1.5e5$$)
		AS geography_shape_beyond;
RESET geoidx.rewrite_postgis;
-- their estimates in a generic plan: the discs sampled where the rows are
-- (the default share would be 5,000 rows of any table), within 3x of the rows
CREATE FUNCTION plan_rows(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN (j->0->'Plan'->'Plans'->0->>'Plan Rows')::float8;
END $$;
PREPARE near_est(geometry) AS SELECT count(*) FROM pts WHERE pos <~> $1 < 5e5;
PREPARE ring_est(geometry) AS SELECT count(*) FROM pts WHERE geoidx_ring(pos, $1, 2e5, 5e5);
SELECT e.est BETWEEN e.actual / 3 AND e.actual * 3 AS near_estimate_within_3x
FROM (SELECT plan_rows($$EXECUTE near_est('SRID=4326;POINT(5 45)')$$) AS est,
			 (SELECT count(*) FROM ref WHERE d < 5e5) AS actual) e;
SELECT e.est BETWEEN e.actual / 3 AND e.actual * 3 AS ring_estimate_within_3x
FROM (SELECT plan_rows($$EXECUTE ring_est('SRID=4326;POINT(5 45)')$$) AS est,
			 (SELECT count(*) FROM ref WHERE d <= 5e5 AND d > 2e5) AS actual) e;
-- a ring around a point made of parameters becomes its hole and its disc; the
-- hole's share beside its disc is sampled as the ring's (a disc's would be 5x)
PREPARE ring_xy(float8, float8) AS SELECT count(*) FROM pts
	WHERE geoidx_ring(pos, ST_SetSRID(ST_MakePoint($1, $2), 4326), 4.5e5, 5e5);
SELECT e.est BETWEEN e.actual / 3 AND e.actual * 3 AS thin_ring_estimate_within_3x
FROM (SELECT plan_rows($$EXECUTE ring_xy(5, 45)$$) AS est,
			 (SELECT count(*) FROM ref WHERE d <= 5e5 AND d > 4.5e5) AS actual) e;
DROP FUNCTION plan_rows(text);
DROP FUNCTION shape_param_same();
RESET plan_cache_mode;
RESET enable_seqscan;

DROP TABLE pts, ref, gpts;
DROP FUNCTION same(text, text);
DROP FUNCTION buffers(text);
