-- geography columns (issue 5): the operator class geoidx_geography_ops, and the
-- geography overloads of geoidx_dwithin, geoidx_distance, <~>, geoidx_circle and <@.
-- Every answer is compared, in the query, with PostGIS's ST_DWithin / ST_Distance
-- on geography: t means identical, and the mismatch counts must be 0.
SET client_min_messages = warning;
SELECT setseed(0.5);

-- uniform on the sphere, and what is hard: the antimeridian, the poles, values
-- the geography input wraps, duplicates, NULL and EMPTY
CREATE TABLE gg (id int PRIMARY KEY, g geography(Point, 4326));
INSERT INTO gg
SELECT i, ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)::geography
FROM generate_series(1, 3000) i;
INSERT INTO gg VALUES
	(3001, 'SRID=4326;POINT(180 0)'), (3002, 'SRID=4326;POINT(-180 0)'),
	(3003, 'SRID=4326;POINT(179.9999999 10)'), (3004, 'SRID=4326;POINT(-179.9999999 10)'),
	(3005, 'SRID=4326;POINT(180 -45)'), (3006, 'SRID=4326;POINT(-180 45)'),
	(3007, 'SRID=4326;POINT(0 90)'), (3008, 'SRID=4326;POINT(123 90)'), (3009, 'SRID=4326;POINT(-180 90)'),
	(3010, 'SRID=4326;POINT(0 -90)'), (3011, 'SRID=4326;POINT(-77 -90)'),
	(3012, 'SRID=4326;POINT(45 89.99999)'), (3013, 'SRID=4326;POINT(-135 -89.99999)'),
	(3014, 'SRID=4326;POINT(190 95)'), (3015, 'SRID=4326;POINT(-540 -100)'), (3016, 'POINT(10 20)'),
	(3017, NULL), (3018, 'SRID=4326;POINT EMPTY');
-- duplicates: the same coordinates under other ids
INSERT INTO gg SELECT id + 4000, g FROM gg WHERE id % 100 = 0 OR id BETWEEN 3001 AND 3016;
INSERT INTO gg SELECT id + 5000, g FROM gg WHERE id BETWEEN 3007 AND 3009;
SELECT count(*) AS rows, count(g) AS not_null FROM gg;
CREATE INDEX gg_idx ON gg USING geoidx (g);
ANALYZE gg;
SELECT geoidx_verify('gg_idx');
SELECT entries, depth >= 2 AS has_internal_level, incomplete_splits FROM geoidx_stats('gg_idx');

-- the operator class
SELECT c.opcname, c.opcdefault, c.opcintype::regtype, amvalidate(c.oid)
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod WHERE a.amname = 'geoidx' ORDER BY 1;
SELECT p.name, pg_index_column_has_property('gg_idx'::regclass, 1, p.name)
FROM unnest(array['distance_orderable', 'returnable', 'search_array', 'search_nulls']) p(name);

-- plans: one index condition (no filter), index order (no sort)
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT id FROM gg WHERE geoidx_dwithin(g, 'SRID=4326;POINT(10 20)', 500000);
EXPLAIN (COSTS OFF)
SELECT id FROM gg WHERE geoidx_dwithin('SRID=4326;POINT(10 20)', g, 500000, false);
EXPLAIN (COSTS OFF)
SELECT id, g <~> 'SRID=4326;POINT(10 20)' AS metres FROM gg ORDER BY g <~> 'SRID=4326;POINT(10 20)' LIMIT 10;
EXPLAIN (COSTS OFF)
SELECT id FROM gg WHERE geoidx_dwithin(g, 'SRID=4326;POINT(10 20)', 500000)
ORDER BY g <~> 'SRID=4326;POINT(10 20)' LIMIT 10;
-- the sphere with the column first: a radius 1 um larger, the call stays as the filter (as for geometry)
EXPLAIN (COSTS OFF)
SELECT id FROM gg WHERE geoidx_dwithin(g, 'SRID=4326;POINT(10 20)', 500000, false);

-- the same rows as ST_DWithin(geography), in either argument order, either model
SELECT count(*) AS rows,
	array_agg(id ORDER BY id) = (SELECT array_agg(id ORDER BY id) FROM gg
		WHERE ST_DWithin(g, 'SRID=4326;POINT(10 20)'::geography, 500000)) AS same_rows
FROM gg WHERE geoidx_dwithin(g, 'SRID=4326;POINT(10 20)', 500000);
SELECT (SELECT array_agg(id ORDER BY id) FROM gg WHERE geoidx_dwithin('SRID=4326;POINT(-179.5 0)', g, 2e6, false))
	 = (SELECT array_agg(id ORDER BY id) FROM gg WHERE ST_DWithin('SRID=4326;POINT(-179.5 0)'::geography, g, 2e6, false)) AS antimeridian_sphere,
	(SELECT array_agg(id ORDER BY id) FROM gg WHERE geoidx_dwithin(g, 'SRID=4326;POINT(30 89)', 3e5, false))
	 = (SELECT array_agg(id ORDER BY id) FROM gg WHERE ST_DWithin(g, 'SRID=4326;POINT(30 89)'::geography, 3e5, false)) AS pole_sphere,
	(SELECT array_agg(id ORDER BY id) FROM gg WHERE g <@ geoidx_circle('SRID=4326;POINT(0 -90)'::geography, 1e6))
	 = (SELECT array_agg(id ORDER BY id) FROM gg WHERE ST_DWithin('SRID=4326;POINT(0 -90)'::geography, g, 1e6)) AS circle_south_pole;
-- k-NN: the same ids and distances as ORDER BY ST_Distance(geography)
SELECT (SELECT array_agg(id ORDER BY d, id) FROM (SELECT id, g <~> 'SRID=4326;POINT(180 0)' AS d FROM gg
		ORDER BY g <~> 'SRID=4326;POINT(180 0)' LIMIT 25) s)
	 = (SELECT array_agg(id ORDER BY d, id) FROM (SELECT id, ST_Distance(g, 'SRID=4326;POINT(180 0)'::geography) AS d FROM gg
		WHERE g IS NOT NULL AND NOT ST_IsEmpty(g::geometry) ORDER BY d, id LIMIT 25) s) AS same_knn_ids,
	(SELECT array_agg(d) FROM (SELECT g <~> 'SRID=4326;POINT(180 0)' AS d FROM gg ORDER BY g <~> 'SRID=4326;POINT(180 0)' LIMIT 25) s)
	 = (SELECT array_agg(d) FROM (SELECT ST_Distance(g, 'SRID=4326;POINT(180 0)'::geography) AS d FROM gg
		WHERE g IS NOT NULL AND NOT ST_IsEmpty(g::geometry) ORDER BY d LIMIT 25) s) AS same_knn_metres;
-- the pole: nine rows at distance 0 (three spellings of it, three rows each)
SELECT array_agg(id ORDER BY id) AS at_the_pole FROM (SELECT id, g <~> 'SRID=4326;POINT(77 90)' AS d FROM gg
	ORDER BY g <~> 'SRID=4326;POINT(77 90)' LIMIT 12) s WHERE d = 0;
-- NULL and EMPTY rows: within no radius; an ORDER BY returns them last
SELECT count(*) AS everything FROM gg WHERE geoidx_dwithin(g, 'SRID=4326;POINT(0 0)', 2.1e7);
SELECT count(*) = (SELECT count(*) FROM gg) AS everything_ordered,
	count(*) FILTER (WHERE d IS NULL) = (SELECT count(*) FROM gg WHERE g IS NULL OR ST_IsEmpty(g::geometry)) AS null_rows
FROM (SELECT g <~> 'SRID=4326;POINT(0 0)' AS d FROM gg ORDER BY g <~> 'SRID=4326;POINT(0 0)') s;
-- bitmap scans agree
RESET enable_bitmapscan;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM gg WHERE geoidx_dwithin(g, 'SRID=4326;POINT(-100 40)', 1e6);
SELECT count(*) = (SELECT count(*) FROM gg WHERE ST_DWithin(g, 'SRID=4326;POINT(-100 40)'::geography, 1e6)) AS bitmap_same
FROM gg WHERE geoidx_dwithin(g, 'SRID=4326;POINT(-100 40)', 1e6);
RESET enable_indexscan;
SET enable_bitmapscan = off;

-- index-only scans rebuild the geography (geodetic flag, SRID 4326) bit for bit:
-- record_image_eq compares the stored bytes
VACUUM gg;
CREATE TYPE gg_value AS (g geography);
EXPLAIN (COSTS OFF) SELECT g FROM gg WHERE geoidx_dwithin(g, 'SRID=4326;POINT(179 -5)', 1e6);
EXPLAIN (COSTS OFF) SELECT g FROM gg ORDER BY g <~> 'SRID=4326;POINT(0 90)' LIMIT 30;
SELECT count(*) AS rows,
	count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM gg h
		WHERE record_image_eq(ROW(h.g)::gg_value, ROW(s.g)::gg_value))) AS not_bitwise_in_heap,
	string_agg(DISTINCT ST_Summary(s.g), ', ') AS summary
FROM (SELECT g FROM gg WHERE geoidx_dwithin(g, 'SRID=4326;POINT(179 -5)', 1e6)) s;
SELECT count(*) AS rows,
	count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM gg h
		WHERE record_image_eq(ROW(h.g)::gg_value, ROW(s.g)::gg_value))) AS not_bitwise_in_heap
FROM (SELECT g FROM gg ORDER BY g <~> 'SRID=4326;POINT(0 90)' LIMIT 30) s;
SELECT (SELECT array_agg(ST_AsEWKT(g) ORDER BY ST_AsEWKT(g)) FROM gg WHERE geoidx_dwithin(g, 'SRID=4326;POINT(179 -5)', 1e6))
	 = (SELECT array_agg(ST_AsEWKT(g) ORDER BY ST_AsEWKT(g)) FROM gg WHERE ST_DWithin(g, 'SRID=4326;POINT(179 -5)'::geography, 1e6)) AS same_ewkt,
	(SELECT array_agg(g::text ORDER BY g::text) FROM gg WHERE geoidx_dwithin(g, 'SRID=4326;POINT(179 -5)', 1e6))
	 = (SELECT array_agg(g::text ORDER BY g::text) FROM gg WHERE ST_DWithin(g, 'SRID=4326;POINT(179 -5)'::geography, 1e6)) AS same_text;
-- a bare geography column (no type modifier) is read from the heap
CREATE TABLE gg_bare (id int, g geography);
CREATE INDEX gg_bare_idx ON gg_bare USING geoidx (g);
SELECT pg_index_column_has_property('gg_bare_idx'::regclass, 1, 'returnable') AS bare_returnable;

-- the estimate of a radius condition comes from PostGIS's geography statistics:
-- within a factor of 3 of the truth
CREATE FUNCTION gg_estimate(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;
SELECT c.lon, c.lat, r, e.rows BETWEEN a.rows / 3.0 AND a.rows * 3.0 AS estimate_close
FROM (VALUES (10, 20), (180, 0), (0, 90)) c(lon, lat), (VALUES (1e6), (3e6)) m(r),
	LATERAL (SELECT gg_estimate(format('SELECT id FROM gg WHERE geoidx_dwithin(g, %L::geography, %s)',
		'SRID=4326;POINT(' || c.lon || ' ' || c.lat || ')', r)) AS rows) e,
	LATERAL (SELECT count(*) AS rows FROM gg
		WHERE ST_DWithin(g, ST_SetSRID(ST_MakePoint(c.lon, c.lat), 4326)::geography, r)) a
ORDER BY 1, 2, 3;

-- differential: 100 radius and 100 k-NN queries (random centres on the sphere and
-- the hard places, radii from 1 m to beyond half the circumference, both models)
CREATE TEMP TABLE probes AS
SELECT i, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography AS c,
	CASE WHEN i % 10 = 0 THEN 0 ELSE exp(random() * ln(2.1e7)) END AS r,
	i % 4 <> 1 AS spheroid, 1 + (random() * 40)::int AS k
FROM (SELECT i,
		CASE i % 8 WHEN 0 THEN 180 WHEN 1 THEN -180 + random() * 0.01 ELSE 360 * random() - 180 END AS lon,
		CASE i % 8 WHEN 2 THEN 90 - random() * 1e-3 WHEN 3 THEN -90 WHEN 4 THEN 90 ELSE degrees(asin(2 * random() - 1)) END AS lat
	  FROM generate_series(1, 100) i) s;
-- the inner queries are index scans
EXPLAIN (COSTS OFF)
SELECT (SELECT array_agg(id ORDER BY id) FROM gg WHERE geoidx_dwithin(g, p.c, p.r, p.spheroid)) FROM probes p;
EXPLAIN (COSTS OFF)
SELECT (SELECT array_agg(d) FROM (SELECT g <~> p.c AS d FROM gg ORDER BY g <~> p.c LIMIT p.k) s) FROM probes p;
SELECT count(*) AS radius_queries, sum(coalesce(array_length(i, 1), 0)) AS rows_found,
	count(*) FILTER (WHERE i IS DISTINCT FROM r) AS radius_differs,
	count(*) FILTER (WHERE ic IS DISTINCT FROM rc) AS circle_differs
FROM (SELECT
		(SELECT array_agg(id ORDER BY id) FROM gg WHERE geoidx_dwithin(g, p.c, p.r, p.spheroid)) AS i,
		(SELECT array_agg(id ORDER BY id) FROM gg WHERE ST_DWithin(g, p.c, p.r, p.spheroid)) AS r,
		(SELECT array_agg(id ORDER BY id) FROM gg WHERE g <@ geoidx_circle(p.c, p.r, p.spheroid)) AS ic,
		(SELECT array_agg(id ORDER BY id) FROM gg WHERE ST_DWithin(p.c, g, p.r, p.spheroid)) AS rc
	  FROM probes p) s;
-- k-NN: the distances in the order returned, and the ids below the k-th distance
-- (ties at the k-th distance may be broken either way: not compared)
SELECT count(*) AS knn_queries, sum(array_length(x.d, 1)) AS rows_found,
	count(*) FILTER (WHERE x.d IS DISTINCT FROM y.d) AS metres_differ,
	count(*) FILTER (WHERE (SELECT array_agg(i ORDER BY d, i) FROM unnest(x.ids, x.d) u(i, d) WHERE d < x.d[p.k])
		IS DISTINCT FROM (SELECT array_agg(i ORDER BY d, i) FROM unnest(y.ids, y.d) u(i, d) WHERE d < y.d[p.k])) AS ids_differ
FROM probes p,
	LATERAL (SELECT array_agg(d) AS d, array_agg(id) AS ids
		FROM (SELECT id, g <~> p.c AS d FROM gg ORDER BY g <~> p.c LIMIT p.k) s) x,
	LATERAL (SELECT array_agg(d) AS d, array_agg(id) AS ids
		FROM (SELECT id, ST_Distance(g, p.c) AS d FROM gg WHERE g IS NOT NULL AND NOT ST_IsEmpty(g::geometry)
			ORDER BY 2, 1 LIMIT p.k) s) y;
-- the functions on every row (sequential): geoidx_distance, <~> and geoidx_dwithin
SELECT count(*) AS pairs,
	count(*) FILTER (WHERE geoidx_distance(g, c) IS DISTINCT FROM ST_Distance(g, c)) AS distance_differs,
	count(*) FILTER (WHERE geoidx_distance(c, g, false) IS DISTINCT FROM ST_Distance(c, g, false)) AS sphere_differs,
	count(*) FILTER (WHERE (g <~> c) IS DISTINCT FROM ST_Distance(g, c)) AS op_differs,
	count(*) FILTER (WHERE geoidx_dwithin(c, g, r, spheroid) IS DISTINCT FROM ST_DWithin(c, g, r, spheroid)) AS dwithin_differs
FROM gg, (SELECT c, r, spheroid FROM probes WHERE i <= 5) p
WHERE g IS NOT NULL AND NOT ST_IsEmpty(g::geometry);

-- a geoidx index on geography of a geometry column serves the same calls
CREATE TABLE gm (id int, pos geometry(Point, 4326));
INSERT INTO gm SELECT id, g::geometry FROM gg;
CREATE INDEX gm_geog ON gm USING geoidx ((pos::geography));
EXPLAIN (COSTS OFF) SELECT id FROM gm WHERE geoidx_dwithin(pos::geography, 'SRID=4326;POINT(10 20)', 5e5);
SELECT (SELECT array_agg(id ORDER BY id) FROM gm WHERE geoidx_dwithin(pos::geography, 'SRID=4326;POINT(10 20)', 5e5))
	 = (SELECT array_agg(id ORDER BY id) FROM gm WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(10 20)'::geography, 5e5)) AS expression_index_same;
DROP TABLE gm;

-- PostGIS's own GiST index on geography gets no condition from geoidx_dwithin
-- (ST_DWithin is the function for it): a sequential scan, the same answer
CREATE TABLE gg_gist AS SELECT * FROM gg;
CREATE INDEX gg_gist_idx ON gg_gist USING gist (g);
ANALYZE gg_gist;
EXPLAIN (COSTS OFF) SELECT id FROM gg_gist WHERE geoidx_dwithin(g, 'SRID=4326;POINT(10 20)', 5e5);
SELECT (SELECT array_agg(id ORDER BY id) FROM gg_gist WHERE geoidx_dwithin(g, 'SRID=4326;POINT(10 20)', 5e5))
	 = (SELECT array_agg(id ORDER BY id) FROM gg_gist WHERE ST_DWithin(g, 'SRID=4326;POINT(10 20)'::geography, 5e5)) AS gist_same;
DROP TABLE gg_gist;

-- other SRIDs and curves are refused, as for geometry; other shapes are PostGIS's answers
SELECT geoidx_distance('SRID=4269;POINT(1 2)'::geography, 'SRID=4326;POINT(1 2)'::geography);
SELECT geoidx_dwithin('SRID=4326;POINT(1 2)'::geography, 'SRID=4269;POINT(1 2)'::geography, 10);
SELECT geoidx_circle('SRID=4269;POINT(1 2)'::geography, 10);
SELECT ('SRID=4326;LINESTRING(0 0, 1 1)'::geography <~> 'SRID=4326;POINT(1 2)'::geography)
	= ST_Distance('SRID=4326;LINESTRING(0 0, 1 1)'::geography, 'SRID=4326;POINT(1 2)'::geography) AS line_distance_is_postgis;
SELECT 'SRID=4326;CIRCULARSTRING(0 0, 1 1, 2 0)'::geometry::geography;
SELECT 'SRID=4326;CIRCULARSTRING(0 0, 1 1, 2 0)'::geometry <~> 'SRID=4326;POINT(1 2)';
SELECT id FROM gg ORDER BY g <~> 'SRID=4269;POINT(0 0)'::geography LIMIT 1;
INSERT INTO gg_bare VALUES (1, 'SRID=4326;POINT(1 2)'), (2, 'SRID=4269;POINT(1 2)');
INSERT INTO gg_bare VALUES (3, 'SRID=4326;LINESTRING(0 0, 1 1)');
SELECT count(*) AS bare_rows FROM gg_bare;
DROP TABLE gg_bare;

-- calls on geometry, untyped literals included, resolve as before the geography
-- overloads (to geometry, or to the string overloads, which read geometry)
CREATE TEMP TABLE shapes (pos geometry, geog geography, txt text);
INSERT INTO shapes VALUES ('SRID=4326;POINT(1 2)', 'SRID=4326;POINT(1 2)', 'SRID=4326;POINT(1 2)');
SELECT geoidx_dwithin('SRID=4326;POINT(1 2)', 'SRID=4326;POINT(1 1)', 110576) AS unknown_unknown,
	geoidx_dwithin(pos, 'SRID=4326;POINT(1 1)', 110576) AS geometry_unknown,
	geoidx_dwithin('SRID=4326;POINT(1 1)', pos, 110576) AS unknown_geometry,
	geoidx_dwithin(pos, txt, 0) AS geometry_text,
	geoidx_dwithin(txt, txt, 0) AS text_text,
	geoidx_dwithin(geog, 'SRID=4326;POINT(1 1)', 110576) AS geography_unknown,
	geoidx_dwithin(pos, geog, 0) AS geometry_geography
FROM shapes;
SELECT round(geoidx_distance('SRID=4326;POINT(0 0)', 'SRID=4326;POINT(1 1)')) AS unknown_unknown,
	round(geoidx_distance(pos, 'SRID=4326;POINT(0 0)', false)) AS geometry_unknown,
	round(geoidx_distance(txt, 'SRID=4326;POINT(0 0)')) AS text_unknown,
	round(('SRID=4326;POINT(0 0)' <~> 'SRID=4326;POINT(1 1)')::numeric) AS op_unknown_unknown,
	round((pos <~> txt)::numeric) AS op_geometry_text,
	round((geog <~> 'SRID=4326;POINT(0 0)')::numeric) AS op_geography_unknown,
	geoidx_circle('SRID=4326;POINT(190 95)', 5, false) AS circle_unknown,
	geoidx_circle(geog, 5) AS circle_geography,
	'SRID=4326;POINT(1 2)' <@ geoidx_circle(geog, 0) AS within_unknown,
	txt <@ geoidx_circle(geog, 0) AS within_text
FROM shapes;
-- the untyped literal's errors are geometry's
SELECT geoidx_dwithin('SRID=4326;CIRCULARSTRING(0 0, 1 1, 2 0)', 'SRID=4326;POINT(0 0)', 10);
SELECT geoidx_distance('SRID=3857;POINT(0 0)', 'SRID=4326;POINT(0 0)');
SELECT geoidx_circle('SRID=4326;POINT EMPTY', 10) IS NULL AS empty_circle;
-- the geometry call on a geometry column is the one the planner turns into an index condition
EXPLAIN (VERBOSE, COSTS OFF) SELECT geoidx_dwithin(pos, 'SRID=4326;POINT(1 1)', 1) FROM shapes;
PREPARE geom_call AS SELECT geoidx_dwithin(pos, $1, $2) FROM shapes;
SELECT parameter_types FROM pg_prepared_statements WHERE name = 'geom_call';
DEALLOCATE geom_call;

-- writes after the build, VACUUM, verify
DELETE FROM gg WHERE id % 7 = 0;
VACUUM gg;
SELECT geoidx_verify('gg_idx');
INSERT INTO gg
SELECT 10000 + i, ST_SetSRID(ST_MakePoint(CASE WHEN i % 2 = 0 THEN 180 ELSE -180 END - (i % 3) * 1e-7,
	CASE WHEN i % 5 = 0 THEN 90 ELSE degrees(asin(2 * random() - 1)) END), 4326)::geography
FROM generate_series(1, 2000) i;
INSERT INTO gg VALUES (20001, NULL), (20002, 'SRID=4326;POINT EMPTY');
SELECT geoidx_verify('gg_idx');
UPDATE gg SET g = 'SRID=4326;POINT(0 -90)' WHERE id BETWEEN 10001 AND 10100;
VACUUM gg;
SELECT geoidx_verify('gg_idx');
SELECT entries, incomplete_splits FROM geoidx_stats('gg_idx');
SELECT (SELECT array_agg(id ORDER BY id) FROM gg WHERE geoidx_dwithin(g, 'SRID=4326;POINT(180 60)', 2e6))
	 = (SELECT array_agg(id ORDER BY id) FROM gg WHERE ST_DWithin(g, 'SRID=4326;POINT(180 60)'::geography, 2e6)) AS same_after_writes,
	(SELECT array_agg(d) FROM (SELECT g <~> 'SRID=4326;POINT(0 -89)' AS d FROM gg ORDER BY g <~> 'SRID=4326;POINT(0 -89)' LIMIT 150) s)
	 = (SELECT array_agg(d) FROM (SELECT ST_Distance(g, 'SRID=4326;POINT(0 -89)'::geography) AS d FROM gg
		WHERE g IS NOT NULL AND NOT ST_IsEmpty(g::geometry) ORDER BY 1 LIMIT 150) s) AS knn_after_writes;
REINDEX INDEX gg_idx;
SELECT geoidx_verify('gg_idx');

RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE gg;
DROP TYPE gg_value;
DROP FUNCTION gg_estimate(text);
