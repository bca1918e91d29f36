-- Hostile inputs through every entry point of geoidx (issue 3, reliability).
--
-- Every accepted value must give PostGIS geography's answer (the comparison is
-- made in the query: a cell shows t, or f(geoidx/postgis) when they differ);
-- every refused one a clear error (a cell shows E:<SQLSTATE>, the message is
-- in the last column). After every rejected write geoidx_verify must pass, and
-- the server must never crash.
--
-- Cells: op = a <~> C, sphere = geoidx_distance(C, a, false),
-- dwithin = geoidx_dwithin(a, C, 2500 km), within = a <@ geoidx_circle(C, ...),
-- circle = C <@ geoidx_circle(a, ..., sphere), box = geoidx_search_box(a, ...)
-- holds C when C is within, insert = INSERT into an indexed table (then
-- geoidx_verify), build = CREATE INDEX over good rows + a (then
-- geoidx_verify), scan_r / scan_k = an index scan (radius, k-NN) with a as the
-- query argument, against a sequential scan by PostGIS. C = POINT(10 20).
--
-- The raw varlenas are written in the host's byte order as PostGIS does;
-- le32/le64 assume a little-endian machine (x86-64, arm64).
SET client_min_messages = warning;
SET extra_float_digits = 1;
SET jit = off; -- enable_seqscan = off makes plans look expensive enough to compile

-- raw_geometry(bytes): any bytes as a geometry datum, with no PostGIS parsing
-- (byteain declared as returning geometry; needs a superuser, as pg_regress is).
CREATE FUNCTION raw_geometry_in(cstring) RETURNS geometry LANGUAGE internal IMMUTABLE STRICT AS 'byteain';
CREATE FUNCTION raw_geometry(bytea) RETURNS geometry LANGUAGE sql IMMUTABLE STRICT
	AS $$ SELECT raw_geometry_in($1::text::cstring) $$;
CREATE FUNCTION le32(bigint) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT set_byte(set_byte(set_byte(set_byte('\x00000000'::bytea, 0, ($1 & 255)::int),
		1, (($1 >> 8) & 255)::int), 2, (($1 >> 16) & 255)::int), 3, (($1 >> 24) & 255)::int) $$;
CREATE FUNCTION le64(float8) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT string_agg(substring(float8send($1) FROM i FOR 1), ''::bytea ORDER BY i DESC)
	FROM generate_series(1, 8) i $$;
-- GSERIALIZED header: 21-bit SRID in 3 bytes, then the flags byte
-- (0x01 Z, 0x02 M, 0x04 bbox, 0x08 geodetic, 0x10 extended (v2), 0x40 version 2).
CREATE FUNCTION gs_head(srid int, flags int) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT set_byte(set_byte(set_byte(set_byte('\x00000000'::bytea, 0, ($1 >> 16) & 31),
		1, ($1 >> 8) & 255), 2, $1 & 255), 3, $2) $$;
-- sanity of the helpers: a hand-made POINT(1.5 -2.25) is what PostGIS reads
SELECT ST_AsEWKT(raw_geometry(gs_head(4326, 64) || le32(1) || le32(1) || le64(1.5) || le64(-2.25))) AS raw_point;

-- The inputs. g is what geoidx gets; rg what PostGIS gets for the reference
-- (the same value, or its clean twin for hand-made bytes; NULL where PostGIS
-- must not be shown the bytes).
CREATE TEMP TABLE hostile (id int PRIMARY KEY, label text, g geometry, rg geometry);
INSERT INTO hostile (id, label, g) VALUES
	(1, 'control POINT(1 2)', 'SRID=4326;POINT(1 2)'),
	(2, 'NULL', NULL),
	(3, 'POINT EMPTY', 'SRID=4326;POINT EMPTY'),
	(4, 'POINT EMPTY, SRID 0', 'POINT EMPTY'),
	(5, 'LINESTRING', 'SRID=4326;LINESTRING(0 0, 1 1)'),
	(6, 'POLYGON', 'SRID=4326;POLYGON((0 0, 1 0, 1 1, 0 0))'),
	(7, 'MULTIPOINT of one point', 'SRID=4326;MULTIPOINT((1 2))'),
	(8, 'MULTIPOINT EMPTY', 'SRID=4326;MULTIPOINT EMPTY'),
	(9, 'GEOMETRYCOLLECTION(POINT)', 'SRID=4326;GEOMETRYCOLLECTION(POINT(1 2))'),
	(10, 'GEOMETRYCOLLECTION EMPTY', 'SRID=4326;GEOMETRYCOLLECTION EMPTY'),
	(11, 'CIRCULARSTRING', 'SRID=4326;CIRCULARSTRING(0 0, 1 1, 2 0)'),
	(12, 'COMPOUNDCURVE', 'SRID=4326;COMPOUNDCURVE(CIRCULARSTRING(0 0, 1 1, 2 0), (2 0, 3 0))'),
	(13, 'CURVEPOLYGON', 'SRID=4326;CURVEPOLYGON(CIRCULARSTRING(0 0, 2 0, 0 0))'),
	(14, 'TIN', 'SRID=4326;TIN(((0 0 0, 0 1 0, 1 0 0, 0 0 0)))'),
	(15, 'SRID 3857', 'SRID=3857;POINT(1 2)'),
	(16, 'SRID 4269 (geographic, the cast takes it)', 'SRID=4269;POINT(1 2)'),
	(17, 'SRID 0 (taken as 4326)', 'POINT(1 2)'),
	(18, 'POINT Z', 'SRID=4326;POINT Z (1 2 3)'),
	(19, 'POINT M', 'SRID=4326;POINT M (1 2 3)'),
	(20, 'POINT ZM', 'SRID=4326;POINT ZM (1 2 3 4)'),
	(21, 'POINT Z with NaN z', ST_SetSRID(ST_MakePoint(1, 2, 'NaN'), 4326)),
	(22, 'NaN longitude', ST_SetSRID(ST_MakePoint('NaN', 2), 4326)),
	(23, 'NaN latitude', ST_SetSRID(ST_MakePoint(1, 'NaN'), 4326)),
	(24, '+Infinity longitude', ST_SetSRID(ST_MakePoint('Infinity', 2), 4326)),
	(25, '-Infinity latitude', ST_SetSRID(ST_MakePoint(1, '-Infinity'), 4326)),
	(26, 'lat 90.0000001 (nudged)', ST_SetSRID(ST_MakePoint(1, 90.0000001), 4326)),
	(27, 'lat 95 (wrapped)', ST_SetSRID(ST_MakePoint(1, 95), 4326)),
	(28, 'lat -270', ST_SetSRID(ST_MakePoint(1, -270), 4326)),
	(29, 'lon 180.0000001', ST_SetSRID(ST_MakePoint(180.0000001, 2), 4326)),
	(30, 'lon 540', ST_SetSRID(ST_MakePoint(540, 2), 4326)),
	(31, 'lon -190 lat 91', ST_SetSRID(ST_MakePoint(-190, 91), 4326)),
	(32, 'lon 1e300', ST_SetSRID(ST_MakePoint(1e300, 2), 4326)),
	(33, 'lon/lat -1.7976931348623157e308', ST_SetSRID(ST_MakePoint(-1.7976931348623157e308, -1.7976931348623157e308), 4326)),
	(34, 'lon/lat 1e15', ST_SetSRID(ST_MakePoint(1e15, 1e15), 4326)),
	(35, 'negative zeros', ST_SetSRID(ST_MakePoint('-0', '-0'), 4326)),
	(36, 'denormals', ST_SetSRID(ST_MakePoint(5e-324, -5e-324), 4326)),
	(37, 'pole lon 180 lat -90', ST_SetSRID(ST_MakePoint(180, -90), 4326));
UPDATE hostile SET rg = g;
INSERT INTO hostile (id, label, g, rg) VALUES
	(38, 'raw: zero bytes', raw_geometry(''), NULL),
	(39, 'raw: header cut (8 bytes)', raw_geometry(gs_head(4326, 64) || le32(1)), NULL),
	(40, 'raw: coordinates cut (one double)', raw_geometry(gs_head(4326, 64) || le32(1) || le32(1) || le64(1)), NULL),
	(41, 'raw: Z flag, no z', raw_geometry(gs_head(4326, 64 + 1) || le32(1) || le32(1) || le64(1) || le64(2)), NULL),
	(42, 'raw: bbox flag, no bbox', raw_geometry(gs_head(4326, 64 + 4) || le32(1) || le32(1) || le64(1) || le64(2)), NULL),
	(43, 'raw: POINT with 2 points', raw_geometry(gs_head(4326, 64) || le32(1) || le32(2) || le64(1) || le64(2) || le64(3) || le64(4)), NULL),
	(44, 'raw: POINT with 2^32-1 points', raw_geometry(gs_head(4326, 64) || le32(1) || le32(4294967295) || le64(1) || le64(2)), NULL),
	(45, 'raw: type 0', raw_geometry(gs_head(4326, 64) || le32(0) || le32(1) || le64(1) || le64(2)), NULL),
	(46, 'raw: type 2^32-1', raw_geometry(gs_head(4326, 64) || le32(4294967295) || le32(1) || le64(1) || le64(2)), NULL),
	(47, 'raw: SRID bits all set (-1)', raw_geometry(gs_head(2097151, 64) || le32(1) || le32(1) || le64(1) || le64(2)), NULL),
	(48, 'raw: NaN payload', raw_geometry(gs_head(4326, 64) || le32(1) || le32(1) || '\x000000000000f87f'::bytea || le64(2)), NULL),
	-- accepted hand-made values, each with its clean twin as the reference
	(49, 'raw: v1 format (no version bit)', raw_geometry(gs_head(4326, 0) || le32(1) || le32(1) || le64(1.5) || le64(-2.25)), 'SRID=4326;POINT(1.5 -2.25)'),
	(50, 'raw: v2 extended flags', raw_geometry(gs_head(4326, 64 + 16) || '\x0000000000000000'::bytea || le32(1) || le32(1) || le64(1.5) || le64(-2.25)), 'SRID=4326;POINT(1.5 -2.25)'),
	(51, 'raw: 2-D bbox', raw_geometry(gs_head(4326, 64 + 4) || '\x00000000000000000000000000000000'::bytea || le32(1) || le32(1) || le64(1.5) || le64(-2.25)), 'SRID=4326;POINT(1.5 -2.25)'),
	(52, 'raw: geodetic bbox (6 floats)', raw_geometry(gs_head(4326, 64 + 4 + 8) || '\x000000000000000000000000000000000000000000000000'::bytea || le32(1) || le32(1) || le64(1.5) || le64(-2.25)), 'SRID=4326;POINT(1.5 -2.25)'),
	(53, 'raw: trailing bytes', raw_geometry(gs_head(4326, 64) || le32(1) || le32(1) || le64(1.5) || le64(-2.25) || '\xdeadbeef'::bytea), 'SRID=4326;POINT(1.5 -2.25)'),
	(54, 'raw: 100 kB (compressed when stored)', raw_geometry(gs_head(4326, 64) || le32(1) || le32(1) || le64(1.5) || le64(-2.25) || decode(repeat('00', 100000), 'hex')), 'SRID=4326;POINT(1.5 -2.25)');
SELECT count(*) AS hostile_inputs FROM hostile;

-- probe(expr, ref, g, rg): runs expr ($1 = g, $2 = rg); on error 'E:<sqlstate> <message>';
-- with a reference, 't' when equal to it, else 'f(geoidx/postgis)'.
CREATE FUNCTION probe(expr text, ref text, g geometry, rg geometry) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	res text;
	r text;
BEGIN
	BEGIN
		EXECUTE 'SELECT (' || expr || ')::text' INTO res USING g, rg;
	EXCEPTION WHEN OTHERS THEN
		RETURN 'E:' || SQLSTATE || ' ' || SQLERRM;
	END;
	IF ref IS NULL THEN
		RETURN coalesce(res, 'null');
	END IF;
	EXECUTE 'SELECT (' || ref || ')::text' INTO r USING g, rg;
	RETURN CASE WHEN res IS NOT DISTINCT FROM r THEN 't' ELSE 'f(' || coalesce(res, 'null') || '/' || coalesce(r, 'null') || ')' END;
END $$;

-- The indexed table the inserts go to: a 10-degree grid first, so that the
-- tree has internal levels; rg keeps the reference value of every row.
CREATE TEMP TABLE hx (id int, g geometry, rg geometry);
INSERT INTO hx SELECT 1000 + row_number() OVER (), p, p
FROM (SELECT ST_SetSRID(ST_MakePoint(lon, lat), 4326) AS p
	  FROM generate_series(-180, 170, 10) lon, generate_series(-85, 85, 10) lat) s;
CREATE INDEX hx_g ON hx USING geoidx (g) WITH (fillfactor = 10);
SELECT depth >= 2 AS has_internal_level FROM geoidx_stats('hx_g');

-- insert(id, g, rg): INSERT into hx, then geoidx_verify (whose failure is not caught).
CREATE FUNCTION probe_insert(i int, g geometry, rg geometry) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	res text := 'ok';
BEGIN
	BEGIN
		INSERT INTO hx VALUES (i, g, rg);
	EXCEPTION WHEN OTHERS THEN
		res := 'E:' || SQLSTATE || ' ' || SQLERRM;
	END;
	PERFORM geoidx_verify('hx_g');
	RETURN res;
END $$;

-- build(g): CREATE INDEX over 400 good rows and g; geoidx_verify when it succeeds,
-- and no index left behind when it fails.
CREATE FUNCTION probe_build(g geometry) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	res text := 'ok';
BEGIN
	CREATE TEMP TABLE hb (g geometry);
	INSERT INTO hb SELECT ST_SetSRID(ST_MakePoint(i % 360 - 180, i % 170 - 85), 4326) FROM generate_series(1, 400) i;
	INSERT INTO hb VALUES (g);
	BEGIN
		CREATE INDEX hb_g ON hb USING geoidx (g);
		PERFORM geoidx_verify('hb_g');
	EXCEPTION WHEN OTHERS THEN
		res := 'E:' || SQLSTATE || ' ' || SQLERRM;
	END;
	IF res <> 'ok' AND to_regclass('hb_g') IS NOT NULL THEN
		res := 'index left behind: ' || res;
	END IF;
	DROP TABLE hb;
	RETURN res;
END $$;

-- scans of hx (index forced, the plan checked) with g as the query argument,
-- against PostGIS over rg by a sequential scan. The radius argument is a
-- constant for the planner (its estimate and index condition decode it); the
-- k-NN one is hidden in an InitPlan, so that EXPLAIN never prints hand-made
-- bytes through PostGIS's output function.
CREATE FUNCTION probe_scan(q text, ref text, g geometry, rg geometry) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	plan text := '';
	line text;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	BEGIN
		FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q USING g, rg LOOP
			plan := plan || line;
		END LOOP;
	EXCEPTION WHEN OTHERS THEN
		RETURN 'E:' || SQLSTATE || ' ' || SQLERRM;
	END;
	-- (a NULL argument lets the planner drop the scan)
	IF plan NOT LIKE '%Index Scan using hx_g%' AND g IS NOT NULL THEN
		RETURN 'no index scan: ' || plan;
	END IF;
	RETURN probe(q, ref, g, rg);
END $$;

CREATE TEMP TABLE grid AS
SELECT id, label,
	probe('$1 <~> ''SRID=4326;POINT(10 20)''::geometry',
		  'ST_Distance($2::geography, ''SRID=4326;POINT(10 20)''::geography)', g, rg) AS op,
	probe('geoidx_distance(''SRID=4326;POINT(10 20)'', $1, false)',
		  'ST_Distance(''SRID=4326;POINT(10 20)''::geography, $2::geography, false)', g, rg) AS sphere,
	probe('geoidx_dwithin($1, ''SRID=4326;POINT(10 20)'', 2.5e6)',
		  'ST_DWithin($2::geography, ''SRID=4326;POINT(10 20)''::geography, 2.5e6)', g, rg) AS dwithin,
	probe('$1 <@ geoidx_circle(''SRID=4326;POINT(10 20)'', 2.5e6)',
		  'ST_DWithin(''SRID=4326;POINT(10 20)''::geography, $2::geography, 2.5e6)', g, rg) AS within,
	-- an EMPTY centre makes a NULL circle: within nothing, as ST_DWithin says
	probe('coalesce(''SRID=4326;POINT(10 20)''::geometry <@ geoidx_circle($1, 2.5e6, false), false)',
		  'coalesce(ST_DWithin($2::geography, ''SRID=4326;POINT(10 20)''::geography, 2.5e6, false), false)', g, rg) AS circle,
	probe('coalesce(ST_Covers(geoidx_search_box($1, 2.5e6), ''SRID=4326;POINT(10 20)''::geometry), false)
		   OR NOT coalesce(ST_DWithin($2::geography, ''SRID=4326;POINT(10 20)''::geography, 2.5e6), false)', 'true', g, rg) AS box,
	probe_insert(id, g, rg) AS insert,
	probe_build(g) AS build,
	probe_scan('SELECT count(*) FROM hx WHERE geoidx_dwithin(g, $1, 3e6)',
			   'SELECT count(*) FROM hx WHERE ST_DWithin(rg::geography, $2::geography, 3e6)', g, rg) AS scan_r,
	probe_scan('SELECT array_agg(d) FROM (SELECT g <~> (SELECT $1) AS d FROM hx ORDER BY g <~> (SELECT $1) LIMIT 5) s',
			   'SELECT array_agg(d) FROM (SELECT ST_Distance(rg::geography, $2::geography) AS d FROM hx
				WHERE rg IS NOT NULL AND NOT ST_IsEmpty(rg) ORDER BY 1 LIMIT 5) s', g, rg) AS scan_k
FROM hostile ORDER BY id;

-- one line per input: t = PostGIS's answer, E:<sqlstate> = refused, and the message
SELECT id, label,
	left(op, 7) AS op, left(sphere, 7) AS sphere, left(dwithin, 7) AS dwithin, left(within, 7) AS within,
	left(circle, 7) AS circle, left(box, 7) AS box, left(insert, 7) AS insert, left(build, 7) AS build,
	left(scan_r, 7) AS scan_r, left(scan_k, 7) AS scan_k,
	coalesce(substring(op FROM 9), '') AS message
FROM grid ORDER BY id;
-- nothing differs from PostGIS, and no cell is anything but t, null, ok or an error
SELECT count(*) AS cells_not_as_documented FROM grid,
	LATERAL unnest(ARRAY[op, sphere, dwithin, within, circle, box, insert, build, scan_r, scan_k]) c
WHERE c NOT IN ('t', 'ok') AND c NOT LIKE 'E:%';
-- the write path names the index in its errors (one of each kind)
SELECT DISTINCT ON (left(insert, 7)) left(insert, 7) AS sqlstate, substring(insert FROM 9) AS insert_message
FROM grid WHERE insert LIKE 'E:%' ORDER BY left(insert, 7), id;
-- every accepted input is in the index once; the rejected ones nowhere
SELECT geoidx_verify('hx_g');
SELECT count(*) AS accepted, count(*) FILTER (WHERE g IS NULL OR ST_IsEmpty(rg)) AS null_or_empty
FROM hx WHERE id < 1000;

-- The stored hostile values (wrapped, nudged, Z/M, SRID 0, hand-made) answer as PostGIS does.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM hx WHERE geoidx_dwithin(g, 'SRID=4326;POINT(0 0)', 5e5);
SELECT count(*) AS queries,
	count(*) FILTER (WHERE i IS DISTINCT FROM r) AS radius_differs
FROM (SELECT c.lon, c.lat, m,
		(SELECT array_agg(id ORDER BY id) FROM hx WHERE geoidx_dwithin(g, ST_SetSRID(ST_MakePoint(c.lon, c.lat), 4326), m)) AS i,
		(SELECT array_agg(id ORDER BY id) FROM hx WHERE ST_DWithin(rg::geography, ST_SetSRID(ST_MakePoint(c.lon, c.lat), 4326)::geography, m)) AS r
	  FROM (VALUES (0, 0), (1, 2), (1.5, -2.25), (180, 0), (-180, 0), (179, 89), (1, 90), (1, -90), (1, 85), (-170, 89), (10, 20), (-80, -80))
		   c(lon, lat), (VALUES (0::float8), (1), (1e5), (2.5e6), (1e7), (2.1e7)) m(m)) s;
-- k-NN: the same distances in the same order (ties of wrapped duplicates included)
SELECT count(*) AS queries, count(*) FILTER (WHERE i IS DISTINCT FROM r) AS knn_differs
FROM (SELECT c.lon, c.lat,
		(SELECT array_agg(d) FROM (SELECT g <~> ST_SetSRID(ST_MakePoint(c.lon, c.lat), 4326) AS d FROM hx
			ORDER BY g <~> ST_SetSRID(ST_MakePoint(c.lon, c.lat), 4326) LIMIT 40) x) AS i,
		(SELECT array_agg(d) FROM (SELECT ST_Distance(rg::geography, ST_SetSRID(ST_MakePoint(c.lon, c.lat), 4326)::geography) AS d
			FROM hx WHERE rg IS NOT NULL AND NOT ST_IsEmpty(rg) ORDER BY 1 LIMIT 40) x) AS r
	  FROM (VALUES (0, 0), (1, 2), (180, 0), (1, 90), (1, -90), (10, 20)) c(lon, lat)) s;
-- bitmap scans agree too
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT (SELECT array_agg(id ORDER BY id) FROM hx WHERE geoidx_dwithin(g, 'SRID=4326;POINT(1 2)', 2e6))
	 = (SELECT array_agg(id ORDER BY id) FROM hx WHERE ST_DWithin(rg::geography, 'SRID=4326;POINT(1 2)'::geography, 2e6)) AS bitmap_same;
RESET enable_indexscan;
SET enable_bitmapscan = off;

-- Radii: every one gives ST_DWithin's answer, by index scan too: negative,
-- NaN and -Infinity false (nothing is within them, geoidx_search_box NULL),
-- -0, 0, denormal, huge and +Infinity the distance compared.
CREATE TEMP TABLE radii (id int, r float8);
INSERT INTO radii VALUES (1, -1), (2, -1e-300), (3, 'NaN'), (4, '-Infinity'), (5, '-0'), (6, 0),
	(7, 5e-324), (8, 1), (9, 2e7), (10, 1e300), (11, 1.7976931348623157e308), (12, 'Infinity'), (13, NULL);
SELECT id, r,
	probe('geoidx_dwithin(''SRID=4326;POINT(1 2)'', ''SRID=4326;POINT(-179 -2)'', ' || quote_nullable(r) || '::float8)',
		  'ST_DWithin(''SRID=4326;POINT(1 2)''::geography, ''SRID=4326;POINT(-179 -2)''::geography, ' || quote_nullable(r) || '::float8)', NULL, NULL) AS dwithin,
	probe('''SRID=4326;POINT(1 2)''::geometry <@ geoidx_circle(''SRID=4326;POINT(1 2)'', ' || quote_nullable(r) || '::float8)',
		  'ST_DWithin(''SRID=4326;POINT(1 2)''::geography, ''SRID=4326;POINT(1 2)''::geography, ' || quote_nullable(r) || '::float8)', NULL, NULL) AS within_self,
	probe('ST_AsText(geoidx_search_box(''SRID=4326;POINT(1 2)'', ' || quote_nullable(r) || '::float8), 6)', NULL, NULL, NULL) AS box,
	-- the point rows only: at radii of 1e300 and beyond PostGIS answers the polygon row
	-- either way depending on its call history (cached or not), so no fixed answer exists
	probe_scan('SELECT array_agg(id ORDER BY id) FROM hx WHERE geoidx_dwithin(g, ''SRID=4326;POINT(1 2)'', ' || quote_nullable(r) || '::float8) AND GeometryType(g) = ''POINT''',
			   'SELECT array_agg(id ORDER BY id) FROM hx WHERE ST_DWithin(rg::geography, ''SRID=4326;POINT(1 2)''::geography, ' || quote_nullable(r) || '::float8) AND GeometryType(g) = ''POINT''', NULL, NULL) AS index_scan,
	probe_scan('SELECT array_agg(id ORDER BY id) FROM hx WHERE g <@ geoidx_circle(''SRID=4326;POINT(1 2)'', ' || quote_nullable(r) || '::float8, false) AND GeometryType(g) = ''POINT''',
			   'SELECT array_agg(id ORDER BY id) FROM hx WHERE ST_DWithin(''SRID=4326;POINT(1 2)''::geography, rg::geography, ' || quote_nullable(r) || '::float8, false) AND GeometryType(g) = ''POINT''', NULL, NULL) AS sphere_scan
FROM radii ORDER BY id;

-- geoidx_circle text input
SELECT replace(left(s, 30), E'\n', '\n') AS input, length(s) AS len, probe(quote_literal(s) || '::geoidx_circle', NULL, NULL, NULL) AS result
FROM unnest(ARRAY[
	'CIRCLE(1 2, 3)', ' circle ( 1 2 , 3 , SPHERE ) ', 'CIRCLE(190 95, 5, spheroid)', 'CIRCLE(1e300 -1e300, 5)',
	'CIRCLE(1 2, Infinity)', 'CIRCLE(1 2, -0)', 'CIRCLE(NaN 2, 3)', 'CIRCLE(1 -Infinity, 3)', 'CIRCLE(1 2, NaN)',
	'CIRCLE(1 2, -3)', 'CIRCLE(1 2, 1e400)', 'CIRCLE(1 2, 3, ellipsoid)', 'CIRCLE(1 2, 3, spheroidx)', 'CIRCLE(1 2, 3',
	'CIRCLE(1 2, 3) x', 'CIRCLE(1,2,3)', 'CIRCLE(1 2 3)', 'CIRCLE()', 'CIRCLE(', 'CIRCLE', '', 'POINT(1 2)',
	'CIRCLE(0x10 2, 3)', 'CIRCLE(1 2, 3,)', E'CIRCLE(1 2, 3\n)', 'CIRCLE(1 2, 3' || repeat(' ', 10000) || ')']) s;
SELECT geoidx_circle_in('CIRCLE(1 2, 3)') AS called_directly, geoidx_circle_in(NULL) IS NULL AS strict_in,
	geoidx_circle_out(NULL) IS NULL AS strict_out;

-- Scans with bad query arguments, as literals (the planner sees them: selectivity and index condition)
SELECT id FROM hx WHERE geoidx_dwithin(g, 'SRID=3857;POINT(0 0)', 10);
-- a shape is no bad argument (its estimate reads its box): PostGIS's rows
SELECT array_agg(id ORDER BY id) AS ids, array_agg(id ORDER BY id) = (SELECT array_agg(id ORDER BY id) FROM hx
	WHERE ST_DWithin('SRID=4326;LINESTRING(0 0, 1 1)'::geography, rg::geography, 10)) AS same_as_postgis
FROM hx WHERE geoidx_dwithin('SRID=4326;LINESTRING(0 0, 1 1)', g, 10);
SELECT id FROM hx WHERE geoidx_dwithin(g, ST_SetSRID(ST_MakePoint('NaN', 0), 4326), 10);
SELECT id FROM hx WHERE geoidx_dwithin(g, 'SRID=4326;POINT(0 0)', -5);
SELECT id FROM hx WHERE geoidx_dwithin(g, 'SRID=4326;POINT(0 0)', 'NaN');
SELECT count(*) FROM hx WHERE geoidx_dwithin(g, 'SRID=4326;POINT EMPTY', 1e9);
SELECT count(*) FROM hx WHERE geoidx_dwithin(g, NULL, 1e9);
SELECT count(*) FROM hx WHERE geoidx_dwithin(g, 'SRID=4326;POINT(0 0)', NULL);
SELECT count(*) FROM hx WHERE geoidx_dwithin(g, 'SRID=4326;POINT(0 0)', 1e9, NULL);
SELECT count(*) FROM hx WHERE g <@ geoidx_circle('SRID=4326;POINT EMPTY', 5);
SELECT id FROM hx ORDER BY g <~> 'SRID=3857;POINT(0 0)' LIMIT 1;
SELECT id FROM hx ORDER BY g <~> 'SRID=4326;MULTIPOINT((0 0))' LIMIT 1;
SELECT id FROM hx ORDER BY g <~> ST_SetSRID(ST_MakePoint(0, 'Infinity'), 4326) LIMIT 1;
SELECT count(*) FROM (SELECT id FROM hx ORDER BY g <~> 'SRID=4326;POINT EMPTY' LIMIT 3) s;
-- a parameterized index scan whose centre turns bad on a later row
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT count(*) FROM (VALUES (1, 'SRID=4326;POINT(0 0)'::geometry), (2, ST_SetSRID(ST_MakePoint(0, 'NaN'), 4326))) c(n, p)
	JOIN hx ON geoidx_dwithin(hx.g, c.p, 1e5);
SELECT count(*) FROM (VALUES (1, 'SRID=4326;POINT(0 0)'::geometry), (2, 'SRID=4326;LINESTRING(0 0, 1 1)')) c(n, p),
	LATERAL (SELECT id FROM hx ORDER BY hx.g <~> c.p LIMIT 2) k;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- k: enormous, zero, past the end; an empty table and a single row. Every row
-- comes back, those with a NULL or EMPTY point last (their distance is NULL).
SELECT count(*) = (SELECT count(*) FROM hx) AS limit_1e9_returns_all,
	bool_and((n > (SELECT count(*) FROM hx WHERE g IS NOT NULL AND NOT ST_IsEmpty(rg))) = (d IS NULL))
		AS null_distances_last
FROM (SELECT row_number() OVER () AS n, d FROM (SELECT g <~> 'SRID=4326;POINT(0 0)' AS d FROM hx
	ORDER BY g <~> 'SRID=4326;POINT(0 0)' LIMIT 1000000000) o) s;
SELECT count(*) AS limit_0 FROM (SELECT id FROM hx ORDER BY g <~> 'SRID=4326;POINT(0 0)' LIMIT 0) s;
SELECT count(*) AS offset_past_end FROM (SELECT id FROM hx ORDER BY g <~> 'SRID=4326;POINT(0 0)' OFFSET 100000) s;
CREATE TEMP TABLE h0 (g geometry);
CREATE INDEX h0_g ON h0 USING geoidx (g);
SELECT count(*) AS empty_radius FROM h0 WHERE geoidx_dwithin(g, 'SRID=4326;POINT(0 0)', 'Infinity');
SELECT count(*) AS empty_knn FROM (SELECT g FROM h0 ORDER BY g <~> 'SRID=4326;POINT(0 0)' LIMIT 1000000000) s;
INSERT INTO h0 VALUES (ST_SetSRID(ST_MakePoint(540, 95), 4326));
SELECT geoidx_verify('h0_g');
SELECT (SELECT g <~> 'SRID=4326;POINT(0 0)' FROM h0 ORDER BY g <~> 'SRID=4326;POINT(0 0)' LIMIT 1000000000)
	 = ST_Distance('SRID=4326;POINT(540 95)'::geography, 'SRID=4326;POINT(0 0)'::geography) AS single_row_knn,
	(SELECT count(*) FROM h0 WHERE geoidx_dwithin(g, 'SRID=4326;POINT(-180 85)', 1)) = 1 AS single_row_radius;
-- ORDER BY several distances: the index orders by the first, its ties by the
-- others (the first may be NULL or EMPTY: then the next one leads); rows at
-- equal distances (the wrapped duplicates of hx) make the ties.
CREATE FUNCTION knn_keys(c1 geometry, c2 geometry, c3 geometry, k int, OUT index_order text[], OUT postgis_order text[])
LANGUAGE sql AS $$
	SELECT (SELECT array_agg(concat_ws('/', a, b, c)) FROM (SELECT g <~> c1 AS a, g <~> c2 AS b, g <~> c3 AS c FROM hx
				ORDER BY g <~> c1, g <~> c2, g <~> c3 LIMIT k) s),
		   (SELECT array_agg(concat_ws('/', a, b, c)) FROM (SELECT ST_Distance(rg::geography, c1::geography) AS a,
				ST_Distance(rg::geography, c2::geography) AS b, ST_Distance(rg::geography, c3::geography) AS c
				FROM hx ORDER BY 1, 2, 3 LIMIT k) s) $$;
EXPLAIN (COSTS OFF) SELECT id FROM hx
ORDER BY g <~> 'SRID=4326;POINT(0 0)', g <~> 'SRID=4326;POINT(1 2)', g <~> 'SRID=4326;POINT(5 5)' LIMIT 10;
SELECT count(*) AS queries, count(*) FILTER (WHERE index_order IS DISTINCT FROM postgis_order) AS order_differs
FROM (VALUES ('SRID=4326;POINT(0 0)'::geometry, 'SRID=4326;POINT(1 2)'::geometry, 'SRID=4326;POINT(5 5)'::geometry, 30),
			 ('SRID=4326;POINT(0 0)', 'SRID=4326;POINT(1 2)', 'SRID=4326;POINT(5 5)', 1000),
			 ('SRID=4326;POINT(1 90)', 'SRID=4326;POINT(-179 2)', NULL, 100),
			 (NULL, 'SRID=4326;POINT(1 2)', 'SRID=4326;POINT(0 0)', 100),
			 ('SRID=4326;POINT EMPTY', NULL, 'SRID=4326;POINT(180 0)', 100),
			 (NULL, NULL, NULL, 5)) q(c1, c2, c3, k),
	LATERAL knn_keys(c1, c2, c3, k);
DROP FUNCTION knn_keys(geometry, geometry, geometry, int);
SELECT id FROM hx ORDER BY g <~> 'SRID=4326;POINT(0 0)', g <~> 'SRID=3857;POINT(0 0)' LIMIT 1;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- DDL that geoidx does not support, and bad reloptions
CREATE INDEX ON hx USING geoidx (g, rg);
CREATE INDEX ON hx USING geoidx (id, g);
CREATE INDEX hx_incl ON hx USING geoidx (g) INCLUDE (id);
SELECT geoidx_verify('hx_incl');
DROP INDEX hx_incl;
CREATE UNIQUE INDEX ON hx USING geoidx (g);
CREATE INDEX ON hx USING geoidx (g) WITH (fillfactor = 9);
CREATE INDEX ON hx USING geoidx (g) WITH (fillfactor = 101);
CREATE INDEX ON hx USING geoidx (g) WITH (pages_per_range = 4);
CREATE INDEX ON hx USING geoidx ((g::geography));
CREATE INDEX ON hx USING geoidx (id);
ALTER TABLE hx ADD EXCLUDE USING geoidx (g WITH <@);
SELECT geoidx_verify('hx_g');

-- geoidx_verify and geoidx_stats on what is not a geoidx index
CREATE TEMP TABLE notidx (id int PRIMARY KEY, g geometry);
CREATE INDEX notidx_gist ON notidx USING gist (g);
CREATE TEMP SEQUENCE notidx_seq;
CREATE TEMP VIEW notidx_view AS SELECT 1 AS one;
CREATE TABLE hpart (id int, g geometry) PARTITION BY RANGE (id);
CREATE TABLE hpart1 PARTITION OF hpart FOR VALUES FROM (0) TO (10);
CREATE INDEX hpart_g ON hpart USING geoidx (g);
INSERT INTO hpart VALUES (1, 'SRID=4326;POINT(1 2)');
SELECT r AS relation, probe('geoidx_verify(' || quote_literal(r) || ')', NULL, NULL, NULL) AS verify,
	probe('geoidx_stats(' || quote_literal(r) || ')', NULL, NULL, NULL) AS stats
FROM unnest(ARRAY['notidx', 'notidx_pkey', 'notidx_gist', 'notidx_seq', 'notidx_view', 'pg_class', 'pg_class_oid_index',
	'hpart', 'hpart_g', 'hpart1_g_idx', '0', '4294967295']) r;
SELECT geoidx_verify(NULL), geoidx_stats(NULL);
SELECT geoidx_verify('no_such_index');
DROP TABLE hpart;

-- The opclass support procedure, the planner support function, the estimator and
-- the handler take internal arguments: SQL has no way to call them.
SELECT geoidx_geometry_decode(NULL::internal);
SELECT geoidx_geometry_decode(NULL);
SELECT geoidx_geometry_decode(geoidx_dwithin_support(NULL));
SELECT geoidx_dwithin_support('SRID=4326;POINT(1 2)'::geometry);
SELECT geoidx_circle_sel(NULL, 0, NULL, 0);
SELECT geoidx_handler(NULL);
SELECT p.oid::regprocedure AS takes_internal, p.prorettype::regtype AS returns, p.proisstrict AS strict
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'geoidx'
WHERE 'internal'::regtype = ANY (p.proargtypes) OR p.prorettype = 'internal'::regtype
ORDER BY p.oid::regprocedure::text;

-- the server is still up, the index still valid
SELECT geoidx_verify('hx_g');
DROP FUNCTION probe_scan(text, text, geometry, geometry), probe_build(geometry), probe_insert(int, geometry, geometry),
	probe(text, text, geometry, geometry), gs_head(int, int), le64(float8), le32(bigint), raw_geometry(bytea), raw_geometry_in(cstring);
