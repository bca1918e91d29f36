-- PostGIS's geography forms as apps send them (issue 11), on a geoidx index:
-- each form's rows with geoidx.rewrite_postgis on (where the plan must read a
-- geoidx index) against PostGIS's own answer (rewrites off, a sequential
-- scan: no other index exists), on points and shapes of a geometry column
-- and of a geography column, around the antimeridian and the poles, with
-- NULL, EMPTY, SRID 0 and wrapped coordinates, constants and parameters.
SET client_min_messages = warning;
SET geoidx.rewrite_postgis = on; -- the default (the test cluster turns it off for references)
CREATE TABLE fpts (id int PRIMARY KEY, pos geometry);
-- a lattice over the whole sphere, poles and both sides of the antimeridian included
INSERT INTO fpts SELECT 10000 + 1000 * i + j, ST_SetSRID(ST_MakePoint(-180 + i * 7.5, -90 + j * 5), 4326)
	FROM generate_series(0, 48) i, generate_series(0, 36) j;
-- a dense city: 0.004 degrees apart, about 400 m
INSERT INTO fpts SELECT 100000 + 100 * i + j, ST_SetSRID(ST_MakePoint(-74.1 + i * 0.004, 40.6 + j * 0.004), 4326)
	FROM generate_series(0, 49) i, generate_series(0, 49) j;
INSERT INTO fpts VALUES (1, NULL), (2, 'SRID=4326;POINT EMPTY'), (3, 'POINT(-73.95 40.7)'),  -- SRID 0
	(4, 'SRID=4326;POINT(190 10)'), (5, 'SRID=4326;POINT(-180 10)'), (6, 'SRID=4326;POINT(180 10.01)'),
	(7, 'SRID=4326;POINT(179.999 -0.001)'), (8, 'SRID=4326;POINT(33 90)'), (9, 'SRID=4326;POINT(-33 -90)');
CREATE INDEX fpts_pos ON fpts USING geoidx (pos);

CREATE TABLE fzones (id int PRIMARY KEY, shape geometry);
INSERT INTO fzones SELECT 10000 + i, ST_Buffer(ST_SetSRID(ST_MakePoint(-74.1 + (i % 20) * 0.01, 40.6 + (i / 20) * 0.01), 4326), 0.004, 2)
	FROM generate_series(0, 399) i;
INSERT INTO fzones SELECT 1000 + i, ST_Buffer(ST_SetSRID(ST_MakePoint(-170 + (i % 18) * 20, -80 + (i / 18) * 16), 4326), 3, 2)
	FROM generate_series(0, 179) i;
INSERT INTO fzones VALUES (1, NULL), (2, 'SRID=4326;POLYGON EMPTY'),
	(3, 'POLYGON((-74 40.65, -73.95 40.65, -73.95 40.7, -74 40.65))'),                                  -- SRID 0
	(4, 'SRID=4326;POLYGON((-74.05 40.6, -73.9 40.6, -73.9 40.75, -74.05 40.75, -74.05 40.6), (-74 40.65, -73.95 40.65, -73.95 40.7, -74 40.7, -74 40.65))'), -- a hole
	(5, 'SRID=4326;POLYGON((179.5 9, 180.5 9, 180.5 11, 179.5 11, 179.5 9))'),                         -- across 180
	(6, 'SRID=4326;POLYGON((0 85, 90 85, 180 85, -90 85, 0 85))'),                                     -- round the north pole
	(7, 'SRID=4326;LINESTRING(-74.2 40.5, -73.7 40.9, -73.6 40.5)'),
	(8, 'SRID=4326;LINESTRING(170 -5, -170 5)'),                                                       -- across 180
	(9, 'SRID=4326;MULTIPOLYGON(((10 10, 11 10, 11 11, 10 10)), ((-10 -10, -11 -10, -11 -11, -10 -10)))'),
	(10, 'SRID=4326;GEOMETRYCOLLECTION(POINT(-73.97 40.72), LINESTRING(-73.99 40.7, -73.98 40.71))'),
	(11, 'SRID=4326;MULTIPOINT((-73.96 40.71), (179.9 10))');
CREATE INDEX fzones_shape ON fzones USING geoidx (shape);

CREATE TABLE fgeog (id int PRIMARY KEY, g geography);
INSERT INTO fgeog SELECT id, pos::geography FROM fpts;
INSERT INTO fgeog SELECT 200000 + id, shape::geography FROM fzones;
CREATE INDEX fgeog_g ON fgeog USING geoidx (g);
ANALYZE fpts, fzones, fgeog;

-- the centres and the query shapes
CREATE TABLE centres (c text);
INSERT INTO centres VALUES ('SRID=4326;POINT(-73.96 40.71)'), ('POINT(-73.99 40.66)'), ('SRID=4326;POINT(180 10)'),
	('SRID=4326;POINT(-179.99 0)'), ('SRID=4326;POINT(0 90)'), ('SRID=4326;POINT(12 -89.5)'), ('SRID=4326;POINT(10.5 10.2)'),
	('SRID=4326;POINT EMPTY');
CREATE TABLE qshapes (q text);
INSERT INTO qshapes VALUES ('SRID=4326;POLYGON((-74 40.65, -73.9 40.65, -73.9 40.75, -74 40.75, -74 40.65))'),
	('SRID=4326;POLYGON((179 8, 181 8, 181 12, 179 12, 179 8))'), ('SRID=4326;POLYGON((0 80, 120 80, -120 80, 0 80))'),
	('SRID=4326;LINESTRING(-74.05 40.6, -73.85 40.8)'), ('SRID=4326;POINT(-73.96 40.71)'), ('SRID=4326;POLYGON EMPTY'),
	('POLYGON((10 10, 12 10, 12 12, 10 10))');

-- Whether q can be planned on a geoidx index (the planner may prefer a
-- sequential scan for a large answer), and q's rows as a sorted text (ordered: as returned).
CREATE FUNCTION uses_geoidx(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE p json;
BEGIN
	SET LOCAL enable_seqscan = off;
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO p;
	RESET enable_seqscan;
	RETURN p::text ~ '"Index Name": "(fpts_pos|fzones_shape|fgeog_g)"';
END $$;
CREATE FUNCTION rows_of(q text, ordered bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	IF ordered THEN
		EXECUTE format('SELECT string_agg(x::text, '','') FROM (%s) s(i, x)', q) INTO r;
	ELSE
		EXECUTE format('SELECT string_agg(x::text, '','' ORDER BY x) FROM (%s) s(x)', q) INTO r;
	END IF;
	RETURN coalesce(r, '');
END $$;

-- For each form (a format() template of %1$s the column, %2$s a centre or
-- shape, %3$s a radius), each table and each argument: the answer with
-- rewrites and with none, compared.
CREATE TABLE results (form text, tbl text, queries int, rows bigint, differ int, no_geoidx int);
CREATE FUNCTION check_form(form text, args text[], radii text[], ordered bool DEFAULT false) RETURNS void LANGUAGE plpgsql AS $$
DECLARE t text[]; a text; r text; q text; want text; got text; n int := 0; rws bigint := 0; bad int := 0; noidx int := 0;
BEGIN
	FOREACH t SLICE 1 IN ARRAY ARRAY[['fpts', 'pos', 'pos::geography'], ['fzones', 'shape', 'shape::geography'], ['fgeog', 'g', 'g']] LOOP
		n := 0; rws := 0; bad := 0; noidx := 0;
		FOREACH a IN ARRAY args LOOP
			FOREACH r IN ARRAY radii LOOP
				q := format('SELECT id' || CASE WHEN ordered THEN ', ' || format(form, t[3], quote_literal(a), r) || ' FROM %s ORDER BY 2 LIMIT ' || r
							ELSE ' FROM %s WHERE ' || format(form, t[3], quote_literal(a), r) END, t[1]);
				PERFORM set_config('geoidx.rewrite_postgis', 'off', true);
				IF ordered THEN want := rows_of(replace(q, 'SELECT id,', 'SELECT 0,'), true);
				ELSE want := rows_of(q, false); END IF;
				PERFORM set_config('geoidx.rewrite_postgis', 'on', true);
				IF ordered THEN got := rows_of(replace(q, 'SELECT id,', 'SELECT 0,'), true);
				ELSE got := rows_of(q, false); END IF;
				n := n + 1;
				rws := rws + CASE WHEN want = '' THEN 0 ELSE array_length(string_to_array(want, ','), 1) END;
				IF want IS DISTINCT FROM got THEN
					bad := bad + 1;
					RAISE WARNING 'differs: %', q;
				END IF;
				IF NOT uses_geoidx(q) AND a NOT LIKE '%EMPTY%' THEN noidx := noidx + 1; RAISE WARNING 'no geoidx: %', q; END IF;
			END LOOP;
		END LOOP;
		INSERT INTO results VALUES (form, t[1], n, rws, bad, noidx);
	END LOOP;
END $$;

SELECT check_form('ST_DWithin(%1$s, %2$s::geography, %3$s)', (SELECT array_agg(c) FROM centres), '{0, 500, 3000, 800000}');
-- a NaN or negative radius: PostGIS answers false (nothing is within it), and so does geoidx
SELECT check_form('ST_DWithin(%1$s, %2$s::geography, %3$L::float8)', (SELECT array_agg(c) FROM centres), '{-1, -0.000001, NaN, -Infinity}');
SELECT check_form('NOT ST_DWithin(%2$s::geography, %1$s, %3$L::float8, false)', (SELECT array_agg(c) FROM centres), '{-1, NaN}');
SELECT check_form('ST_DWithin(%1$s, %2$s::geometry::geography, %3$s)', (SELECT array_agg(c) FROM centres), '{500}');
SELECT check_form('ST_DWithin(%2$s::geography, %1$s, %3$s, false)', (SELECT array_agg(c) FROM centres), '{500, 800000}');
SELECT check_form('ST_DWithin(%1$s, %2$s::geography, %3$s, false)', (SELECT array_agg(c) FROM centres), '{500, 800000}');
SELECT check_form('NOT ST_DWithin(%1$s, %2$s::geography, %3$s)', (SELECT array_agg(c) FROM centres), '{3000, 8000000}');
SELECT check_form('ST_Distance(%1$s, %2$s::geography) < %3$s', (SELECT array_agg(c) FROM centres), '{500, 800000}');
SELECT check_form('%3$s >= ST_Distance(%2$s::geography, %1$s)', (SELECT array_agg(c) FROM centres), '{500, 800000}');
-- the sphere's distance: the comparison stays, the index reads the candidate disc of the bound
SELECT check_form('ST_Distance(%1$s, %2$s::geography, false) < %3$L::float8', (SELECT array_agg(c) FROM centres), '{0, 500, 800000, -1}');
SELECT check_form('%3$L::float8 >= ST_Distance(%2$s::geography, %1$s, false)', (SELECT array_agg(c) FROM centres), '{500, 3000}');
SELECT check_form('ST_Distance(%1$s, %2$s::geography) > %3$s', (SELECT array_agg(c) FROM centres), '{3000, 8000000}');
SELECT check_form('ST_Intersects(%1$s, %2$s::geography)', (SELECT array_agg(q) FROM qshapes), '{0}');
SELECT check_form('ST_Intersects(%2$s::geography, %1$s)', (SELECT array_agg(q) FROM qshapes), '{0}');
SELECT check_form('ST_Covers(%2$s::geography, %1$s)', (SELECT array_agg(q) FROM qshapes), '{0}');
SELECT check_form('ST_CoveredBy(%1$s, %2$s::geography)', (SELECT array_agg(q) FROM qshapes), '{0}');
SELECT check_form('ST_Covers(%1$s, %2$s::geography)', (SELECT array_agg(c) FROM centres), '{0}');
-- ORDER BY the spheroid distance, LIMIT k: the distances in the order returned
SELECT check_form('ST_Distance(%1$s, %2$s::geography)', (SELECT array_agg(c) FROM centres), '{1, 10, 200}', true);
SELECT check_form('ST_Distance(%2$s::geography, %1$s)', (SELECT array_agg(c) FROM centres), '{10}', true);
-- the sphere's k-NN, geography's <-> (PostGIS's value, ordered by the index): the column first
SELECT check_form('%1$s <-> %2$s::geography', (SELECT array_agg(c) FROM centres), '{1, 10, 200}', true);
SELECT check_form('%1$s <-> %2$s::geometry::geography', (SELECT array_agg(c) FROM centres), '{7}', true);
-- every form above, every table: the same rows, and a geoidx index read
SELECT form, tbl, queries, rows > 0 AS found, differ, no_geoidx FROM results ORDER BY form, tbl;

-- ST_DistanceSphere(geometry, geometry) is PostGIS's SQL function over ST_Distance(geography, false):
-- the same rows with and without the rewrite, on points and zones (a centre of SRID 0 too: the
-- inlined casts read it as 4326), and the candidate disc in the plan
CREATE FUNCTION sphere_check() RETURNS TABLE (queries int, rows bigint, differ int, no_geoidx int) LANGUAGE plpgsql AS $$
DECLARE q text; want text; got text; c text; r text; t text[];
BEGIN
	queries := 0; rows := 0; differ := 0; no_geoidx := 0;
	FOREACH t SLICE 1 IN ARRAY ARRAY[['fpts', 'pos', '<'], ['fzones', 'shape', '<=']] LOOP
		FOR c IN SELECT centres.c FROM centres WHERE centres.c NOT LIKE '%EMPTY%' LOOP
			FOREACH r IN ARRAY ARRAY['500', '3000', '800000'] LOOP
				q := format('SELECT id FROM %s WHERE ST_DistanceSphere(%s, %L::geometry) %s %s', t[1], t[2], c, t[3], r);
				PERFORM set_config('geoidx.rewrite_postgis', 'off', true);
				want := rows_of(q, false);
				PERFORM set_config('geoidx.rewrite_postgis', 'on', true);
				got := rows_of(q, false);
				queries := queries + 1;
				rows := rows + CASE WHEN want = '' THEN 0 ELSE array_length(string_to_array(want, ','), 1) END;
				IF got IS DISTINCT FROM want THEN differ := differ + 1; RAISE WARNING 'differs: %', q; END IF;
				IF NOT uses_geoidx(q) THEN no_geoidx := no_geoidx + 1; RAISE WARNING 'no geoidx: %', q; END IF;
			END LOOP;
		END LOOP;
	END LOOP;
	RETURN NEXT;
END $$;
SELECT * FROM sphere_check();
EXPLAIN (COSTS OFF) SELECT id FROM fpts WHERE ST_DistanceSphere(pos, 'SRID=4326;POINT(-73.96 40.71)'::geometry) < 500;

-- As the plans show them: what each form becomes
EXPLAIN (COSTS OFF) SELECT id FROM fpts WHERE ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(-73.96, 40.71), 4326)::geography, 500);
EXPLAIN (COSTS OFF) SELECT id FROM fpts WHERE ST_Distance('SRID=4326;POINT(-73.96 40.71)'::geography, pos::geography) <= 500;
EXPLAIN (COSTS OFF) SELECT id FROM fpts WHERE NOT ST_DWithin(pos::geography, 'SRID=4326;POINT(-73.96 40.71)'::geography, 1e7);
EXPLAIN (COSTS OFF) SELECT id FROM fzones WHERE ST_Covers(shape::geography, 'SRID=4326;POINT(-73.96 40.71)'::geography);
EXPLAIN (COSTS OFF) SELECT id, ST_Distance(pos::geography, 'SRID=4326;POINT(-73.96 40.71)'::geography) AS m FROM fpts
	ORDER BY ST_Distance(pos::geography, 'SRID=4326;POINT(-73.96 40.71)'::geography) LIMIT 5;
EXPLAIN (COSTS OFF) SELECT id FROM fgeog WHERE ST_DWithin(g, 'SRID=4326;POINT(-73.96 40.71)', 500);
-- geography's <-> (the sphere): geoidx's <~~>, that very call, an ordering of the index; rechecked
EXPLAIN (COSTS OFF) SELECT id, pos::geography <-> 'SRID=4326;POINT(-73.96 40.71)'::geography AS m FROM fpts
	ORDER BY pos::geography <-> 'SRID=4326;POINT(-73.96 40.71)'::geography LIMIT 5;
EXPLAIN (COSTS OFF) SELECT id FROM fzones ORDER BY shape::geography <-> 'SRID=4326;POINT(-73.96 40.71)'::geography LIMIT 3;
EXPLAIN (COSTS OFF) SELECT id FROM fgeog ORDER BY g <-> 'SRID=4326;POINT(-73.96 40.71)'::geography LIMIT 3;
-- the column second is left as written (the sphere's angle is not symmetric in its last bits)
EXPLAIN (COSTS OFF) SELECT id FROM fpts ORDER BY 'SRID=4326;POINT(-73.96 40.71)'::geography <-> pos::geography LIMIT 3;
SET geoidx.rewrite_postgis = off;
EXPLAIN (COSTS OFF) SELECT id FROM fpts WHERE ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(-73.96, 40.71), 4326)::geography, 500);
SET geoidx.rewrite_postgis = on;

-- a negative radius is rewritten too: nothing is within it, in both
EXPLAIN (COSTS OFF) SELECT id FROM fpts WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(-73.96 40.71)'::geography, -1);
SELECT count(*) FROM fpts WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(-73.96 40.71)'::geography, -1);

-- Left as PostGIS plans them, where geoidx's answer could differ:
-- a volatile radius,
EXPLAIN (COSTS OFF) SELECT id FROM fpts, (VALUES (500.0::float8)) v(r) WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(-73.96 40.71)'::geography, r + random());
-- a constant of another SRID (PostGIS's mixed-SRID error comes from a row; an index scan's would come first),
EXPLAIN (COSTS OFF) SELECT id FROM fpts WHERE ST_DWithin(pos::geography, 'SRID=4269;POINT(-73.96 40.71)'::geography, 500);
-- the sphere distance beyond a bound, an ORDER BY that is grouped, the column's own table on the other side,
EXPLAIN (COSTS OFF) SELECT id FROM fpts WHERE ST_Distance(pos::geography, 'SRID=4326;POINT(-73.96 40.71)'::geography, false) > 500;
EXPLAIN (COSTS OFF) SELECT min(ST_Distance(pos::geography, 'SRID=4326;POINT(-73.96 40.71)'::geography)) FROM fpts
	GROUP BY id % 2 ORDER BY min(ST_Distance(pos::geography, 'SRID=4326;POINT(-73.96 40.71)'::geography));
EXPLAIN (COSTS OFF) SELECT id FROM fpts WHERE ST_DWithin(pos::geography, ST_PointN(ST_MakeLine(pos, pos), 1)::geography, 500);
-- a column whose SRID no index checks (a partial index only, no SRID in the type)
CREATE TABLE fpartial (id int, pos geometry);
INSERT INTO fpartial SELECT id, pos FROM fpts WHERE id > 100000;
CREATE INDEX ON fpartial USING geoidx (pos) WHERE id > 0;
EXPLAIN (COSTS OFF) SELECT id FROM fpartial WHERE id > 0 AND ST_DWithin(pos::geography, 'SRID=4326;POINT(-73.96 40.71)'::geography, 500);

-- ORMs cast to a typed geography (GeoAlchemy2: CAST(pos AS geography(GEOMETRY,-1))): on a 2-D
-- column of SRID 4326 that cast changes nothing, and the call is rewritten; a cast that could
-- raise PostGIS's typmod error for some row (Z required here) is left as written
CREATE TABLE ftyped (id int PRIMARY KEY, pos geometry(Point, 4326));
INSERT INTO ftyped SELECT id, pos FROM fpts WHERE ST_SRID(pos) = 4326;
CREATE INDEX ftyped_pos ON ftyped USING geoidx (pos);
ANALYZE ftyped;
EXPLAIN (COSTS OFF) SELECT id FROM ftyped
	WHERE ST_DWithin(CAST(pos AS geography(GEOMETRY,-1)), CAST(ST_GeogFromText('SRID=4326;POINT(-73.96 40.71)') AS geography(GEOMETRY,-1)), 3000);
EXPLAIN (COSTS OFF) SELECT id FROM ftyped
	WHERE ST_DWithin(CAST(pos AS geography(POINTZ,4326)), 'SRID=4326;POINT(-73.96 40.71)'::geography, 3000);
CREATE TEMP TABLE typed_got AS SELECT c, (SELECT array_agg(id ORDER BY id) FROM ftyped
	WHERE ST_DWithin(CAST(pos AS geography(GEOMETRY,-1)), CAST(c AS geography(GEOMETRY,-1)), 3000)) AS ids FROM centres;
SET geoidx.rewrite_postgis = off;
SELECT count(*) AS centres, count(*) FILTER (WHERE g.ids IS DISTINCT FROM (SELECT array_agg(id ORDER BY id) FROM ftyped
	WHERE ST_DWithin(CAST(pos AS geography(GEOMETRY,-1)), CAST(g.c AS geography(GEOMETRY,-1)), 3000))) AS differ,
	sum(cardinality(g.ids)) AS rows FROM typed_got g;
SET geoidx.rewrite_postgis = on;

-- Errors: where PostGIS raises one, so does the rewritten query (the messages are geoidx's or PostGIS's)
\set VERBOSITY terse
SELECT count(*) FROM fpts WHERE ST_DWithin(pos::geography, 'SRID=4269;POINT(-73.96 40.71)'::geography, 500);
SET geoidx.rewrite_postgis = off;
SELECT count(*) FROM fpts WHERE ST_DWithin(pos::geography, 'SRID=4269;POINT(-73.96 40.71)'::geography, 500);
SET geoidx.rewrite_postgis = on;
\set VERBOSITY default

-- Parameters and generic plans: the same answers and a geoidx plan
PREPARE near(geometry, float8) AS SELECT id FROM fpts WHERE ST_DWithin(pos::geography, $1::geography, 500) ORDER BY id;
PREPARE near_r(float8) AS SELECT count(*) FROM fpts WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(-73.96 40.71)'::geography, $1);
PREPARE knn(geography) AS SELECT id, ST_Distance(pos::geography, $1) FROM fpts ORDER BY ST_Distance(pos::geography, $1) LIMIT 5;
PREPARE zone(geometry) AS SELECT id FROM fzones WHERE ST_Covers(shape::geography, $1::geography) ORDER BY id;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE near('SRID=4326;POINT(-73.96 40.71)', 0);
EXPLAIN (COSTS OFF) EXECUTE knn('SRID=4326;POINT(-73.96 40.71)');
EXPLAIN (COSTS OFF) EXECUTE zone('SRID=4326;POINT(-73.96 40.71)');
-- a radius parameter: any value, PostGIS's answer
EXPLAIN (COSTS OFF) EXECUTE near_r(500);
EXECUTE near_r(3000);
EXECUTE near_r(-1);
EXECUTE near_r('NaN');
SET geoidx.rewrite_postgis = off;
SELECT r, count(*) FILTER (WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(-73.96 40.71)'::geography, r)) AS postgis
	FROM fpts, unnest('{3000, -1, NaN}'::float8[]) r GROUP BY r ORDER BY r;
SET geoidx.rewrite_postgis = on;
CREATE FUNCTION generic_differs() RETURNS int LANGUAGE plpgsql AS $$
DECLARE c text; bad int := 0; a text; b text;
BEGIN
	FOR c IN SELECT centres.c FROM centres LOOP
		SELECT string_agg(id::text, ',') INTO a FROM (SELECT id FROM fpts WHERE ST_DWithin(pos::geography, c::geometry::geography, 3000) ORDER BY id) s;
		SELECT string_agg(d::text, ',') INTO b FROM (SELECT ST_Distance(pos::geography, c::geography) d FROM fpts ORDER BY ST_Distance(pos::geography, c::geography) LIMIT 7) s;
		PERFORM set_config('geoidx.rewrite_postgis', 'off', true);
		IF coalesce(a, '') IS DISTINCT FROM rows_of(format('SELECT id FROM fpts WHERE ST_DWithin(pos::geography, %L::geometry::geography, 3000)', c), false) THEN
			bad := bad + 1; RAISE WARNING 'differs: % %', c, a; END IF;
		IF coalesce(b, '') IS DISTINCT FROM rows_of(format('SELECT 0, ST_Distance(pos::geography, %L::geography) FROM fpts ORDER BY 2 LIMIT 7', c), true) THEN
			bad := bad + 1; RAISE WARNING 'differs: % %', c, b; END IF;
		PERFORM set_config('geoidx.rewrite_postgis', 'on', true);
	END LOOP;
	RETURN bad;
END $$;
SELECT generic_differs();
-- a parameter of another SRID: an error either way (geoidx's names the scan's centre)
\set VERBOSITY terse
EXECUTE near('SRID=4269;POINT(-73.96 40.71)', 0);
SET geoidx.rewrite_postgis = off;
PREPARE near_postgis(geometry) AS SELECT id FROM fpts WHERE ST_DWithin(pos::geography, $1::geography, 500) ORDER BY id;
EXECUTE near_postgis('SRID=4269;POINT(-73.96 40.71)');
SET geoidx.rewrite_postgis = on;
\set VERBOSITY default
-- the sphere's distance compared with a parameter (GeoDjango's distance_lte on a geometry
-- PointField, psycopg's server-side binding): the candidate disc of the parameter, a NaN
-- bound's the whole sphere (d < NaN holds for every row); PostGIS's rows for every value
PREPARE sphere_near(geometry, float8) AS
	SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '') AS ids FROM fpts WHERE ST_DistanceSphere(pos, $1) < $2;
PREPARE sphere_zones(geometry, float8) AS
	SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '') AS ids FROM fzones
	WHERE $2 >= ST_Distance($1::geography, shape::geography, false);
EXPLAIN (COSTS OFF) EXECUTE sphere_near('SRID=4326;POINT(-73.96 40.71)', 500);
CREATE FUNCTION sphere_param_differs() RETURNS TABLE (queries int, rows bigint, differ int) LANGUAGE plpgsql AS $$
DECLARE c text; r float8; got text; want text; n int;
BEGIN
	queries := 0; rows := 0; differ := 0;
	FOR c IN SELECT centres.c FROM centres WHERE centres.c NOT LIKE '%EMPTY%' LOOP
		FOREACH r IN ARRAY ARRAY[500, 3000, 800000, 0, -1, 'NaN', 'Infinity']::float8[] LOOP
			EXECUTE format('EXECUTE sphere_near(%L, %L)', c, r) INTO got;
			PERFORM set_config('geoidx.rewrite_postgis', 'off', true);
			want := rows_of(format('SELECT id FROM fpts WHERE ST_DistanceSphere(pos, %L::geometry) < %L::float8', c, r), false);
			PERFORM set_config('geoidx.rewrite_postgis', 'on', true);
			queries := queries + 1;
			rows := rows + coalesce(array_length(string_to_array(want, ','), 1), 0);
			IF got IS DISTINCT FROM want THEN differ := differ + 1; RAISE WARNING 'differs: % %', c, r; END IF;
			EXECUTE format('EXECUTE sphere_zones(%L, %L)', c, r) INTO got;
			PERFORM set_config('geoidx.rewrite_postgis', 'off', true);
			want := rows_of(format('SELECT id FROM fzones WHERE %L::float8 >= ST_Distance(%L::geography, shape::geography, false)', r, c), false);
			PERFORM set_config('geoidx.rewrite_postgis', 'on', true);
			queries := queries + 1;
			rows := rows + coalesce(array_length(string_to_array(want, ','), 1), 0);
			IF got IS DISTINCT FROM want THEN differ := differ + 1; RAISE WARNING 'differs (zones): % %', c, r; END IF;
		END LOOP;
	END LOOP;
	RETURN NEXT;
END $$;
SELECT queries, rows > 0 AS found, differ FROM sphere_param_differs();
RESET plan_cache_mode;

DROP TABLE fpts, fzones, fgeog, fpartial, ftyped, centres, qshapes, results;
DROP FUNCTION uses_geoidx, rows_of, check_form, generic_differs, sphere_check, sphere_param_differs;
