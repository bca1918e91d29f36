-- Large polygons (4,096 vertices or more) keep their pieces in their index
-- entries (format.h, the _PIECES kinds): the index answers as PostGIS
-- geography does, the pieces decide rows that the box and grid leave open,
-- geoidx_verify checks them, and the candidate disc's operator says of a heap
-- row what the index says of its entry.
SET client_min_messages = warning;
CREATE FUNCTION pfp(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text; BEGIN EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(hashint8(a::bigint * 100003 + b)), 0) FROM (%s) s', q) INTO r; RETURN r; END $$;
-- wobbly rings of 6,000 to 12,000 vertices (NYC, across the antimeridian, far
-- north), a diagonal band, a two-part multipolygon, and a neighbourhood-sized
-- polygon of 40 vertices (no pieces)
CREATE TABLE bigz (id int PRIMARY KEY, shape geometry, g geography);
INSERT INTO bigz (id, shape)
SELECT k, ST_SetSRID(ST_MakePolygon(ST_AddPoint(l, ST_StartPoint(l))), 4326) FROM (
	SELECT k, ST_MakeLine(ST_MakePoint(cx + r * (1 + 0.1 * sin(37 * a)) * cos(a) / cos(radians(cy)),
		cy + r * (1 + 0.1 * sin(37 * a)) * sin(a)) ORDER BY i) AS l
	FROM (VALUES (1, -73.9, 40.7, 0.2, 12000), (2, 179.9, -30.0, 3.0, 8000), (3, -60.0, 70.0, 5.0, 6000),
		(4, -73.9, 40.7, 0.01, 40)) c(k, cx, cy, r, n),
		LATERAL (SELECT i, 2 * pi() * i / n AS a FROM generate_series(0, n - 1) i) s
	GROUP BY k) q;
INSERT INTO bigz (id, shape) VALUES
	(5, ST_SetSRID(ST_Segmentize('POLYGON((-74 40, -64 50, -63.75 50, -73.75 40, -74 40))'::geometry, 0.004), 4326)),
	(6, ST_SetSRID(ST_Segmentize('MULTIPOLYGON(((10 -10, 12 -10, 12 -8, 10 -8, 10 -10)), ((20 0, 22 0, 22 2, 20 2, 20 0)))'::geometry, 0.002), 4326));
UPDATE bigz SET g = shape::geography;
SELECT id, ST_NPoints(shape) >= 4096 AS large FROM bigz ORDER BY id;
-- probes: a lattice over each zone's box and a margin
CREATE TABLE bprobes (id serial PRIMARY KEY, pt geometry, g geography);
INSERT INTO bprobes (pt)
SELECT ST_SetSRID(ST_MakePoint(ST_XMin(b) - 0.05 * w + 1.1 * w * i / 40.0, ST_YMin(b) - 0.05 * h + 1.1 * h * j / 30.0), 4326)
FROM (SELECT ST_Envelope(shape) AS b, ST_XMax(shape) - ST_XMin(shape) AS w, ST_YMax(shape) - ST_YMin(shape) AS h
	FROM bigz WHERE id <> 2) z, generate_series(0, 40) i, generate_series(0, 30) j
WHERE ST_YMin(b) - 0.05 * h + 1.1 * h * j / 30.0 BETWEEN -90 AND 90;
-- zone 2 crosses the antimeridian: its lattice in longitudes 176.5 .. 183.3, wrapped
INSERT INTO bprobes (pt)
SELECT ST_SetSRID(ST_MakePoint(CASE WHEN x > 180 THEN x - 360 ELSE x END, -33.3 + 6.6 * j / 30.0), 4326)
FROM generate_series(0, 40) i, generate_series(0, 30) j, LATERAL (SELECT 176.5 + 6.8 * i / 40.0 AS x) v;
UPDATE bprobes SET g = pt::geography;
CREATE INDEX ON bigz USING gist (g);
CREATE INDEX ON bprobes USING gist (g);
CREATE INDEX bigz_gx ON bigz USING geoidx (shape);
ANALYZE bigz; ANALYZE bprobes;
SELECT geoidx_verify('bigz_gx');

-- PostGIS's answers, zone by zone through GiST on the probes
SET enable_seqscan = off;
SELECT pfp('SELECT p.id AS a, z.id AS b FROM bigz z CROSS JOIN LATERAL (SELECT id FROM bprobes p WHERE ST_Covers(z.g, p.g)) p') AS covers_ref \gset
SELECT pfp('SELECT p.id AS a, z.id AS b FROM bigz z CROSS JOIN LATERAL (SELECT id FROM bprobes p WHERE ST_DWithin(z.g, p.g, 20000)) p') AS dwithin_ref \gset
-- geoidx's, probe by probe through the zones' index
SET enable_bitmapscan = off;
CREATE TABLE pd0 AS SELECT * FROM geoidx_shape_decisions();
SELECT pfp('SELECT p.id AS a, z.id AS b FROM bprobes p CROSS JOIN LATERAL (SELECT id FROM bigz z WHERE geoidx_covers(z.shape, p.pt)) z') AS covers_got \gset
CREATE TABLE pd1 AS SELECT * FROM geoidx_shape_decisions();
SELECT pfp('SELECT p.id AS a, z.id AS b FROM bprobes p CROSS JOIN LATERAL (SELECT id FROM bigz z WHERE geoidx_dwithin(z.shape, p.pt, 20000)) z') AS dwithin_got \gset
CREATE TABLE pd2 AS SELECT * FROM geoidx_shape_decisions();
SELECT :'covers_got' = :'covers_ref' AS covers_same, :'dwithin_got' = :'dwithin_ref' AS dwithin_same,
	split_part(:'covers_ref', ':', 1)::int > 2000 AS enough_covered,
	split_part(:'dwithin_ref', ':', 1)::int > split_part(:'covers_ref', ':', 1)::int AS dwithin_reaches_out;
-- the pieces decided rows in both (the probes in a ring's box corners, in the band's empty triangles)
SELECT pd1.by_pieces - pd0.by_pieces > 500 AS covers_by_pieces, pd2.by_pieces - pd1.by_pieces > 500 AS dwithin_by_pieces
	FROM pd0, pd1, pd2;
-- bitmap scans too
SET enable_indexscan = off; SET enable_bitmapscan = on;
SELECT pfp('SELECT p.id AS a, z.id AS b FROM bprobes p CROSS JOIN LATERAL (SELECT id FROM bigz z WHERE geoidx_covers(z.shape, p.pt)) z') = :'covers_ref' AS bitmap_covers_same;
SET enable_indexscan = on; SET enable_bitmapscan = off;
-- a constant centre: a plain region (not a candidate disc), the pieces for a ring's outside too
SELECT ST_AsText(v.c) AS c, v.r, (SELECT array_agg(id ORDER BY id) FROM bigz WHERE geoidx_dwithin(shape, v.c, v.r)) AS geoidx,
	(SELECT array_agg(id ORDER BY id) FROM bigz WHERE ST_DWithin(g, v.c::geography, v.r)) AS postgis
FROM (VALUES ('SRID=4326;POINT(-65 49)'::geometry, 30000.0), ('SRID=4326;POINT(-73.6 40.9)', 5000.0),
	('SRID=4326;POINT(-179.5 -31)', 100000.0), ('SRID=4326;POINT(-75 65)', 200000.0)) v(c, r) ORDER BY v.r;

-- rings around constant centres: NOT geoidx_dwithin is an index condition (the
-- outside of a disc), which a shape meets when every piece lies beyond it
-- (typed Point: a centre that could be a shape would get the candidate disc)
SET enable_seqscan = off;
CREATE TABLE pd3 AS SELECT * FROM geoidx_shape_decisions();
SELECT ST_AsText(v.c) AS c, v.r1, v.r2,
	(SELECT array_agg(id ORDER BY id) FROM bigz WHERE geoidx_ring(shape, v.c, v.r1, v.r2)) AS geoidx,
	(SELECT array_agg(id ORDER BY id) FROM bigz WHERE ST_DWithin(g, v.c::geography, v.r2) AND NOT ST_DWithin(g, v.c::geography, v.r1)) AS postgis
FROM (VALUES ('SRID=4326;POINT(-65 41)'::geometry(Point, 4326), 150000.0, 1500000.0),
	('SRID=4326;POINT(-73 49)'::geometry(Point, 4326), 150000.0, 3000000.0),
	('SRID=4326;POINT(-69 45.5)'::geometry(Point, 4326), 10000.0, 4000000.0)) v(c, r1, r2) ORDER BY v.r2, v.r1;
-- the band's box holds the first two centres, its pieces lie beyond 150 km of them
SELECT d.by_pieces - pd3.by_pieces >= 2 AS rings_by_pieces FROM geoidx_shape_decisions() d, pd3;
-- the two nearest zones of every 25th probe: PostGIS's distances (~30 ms a probe: 12,000 vertices)
SELECT count(*) AS probes, count(*) FILTER (WHERE got IS DISTINCT FROM ref) AS differ FROM (
	SELECT (SELECT array_agg(d ORDER BY n) FROM (SELECT z.shape <~> p.pt AS d, row_number() OVER () AS n
			FROM bigz z ORDER BY z.shape <~> p.pt LIMIT 2) k) AS got,
		(SELECT array_agg(d ORDER BY d) FROM (SELECT ST_Distance(z.g, p.g) AS d FROM bigz z ORDER BY 1 LIMIT 2) k) AS ref
	FROM bprobes p WHERE p.id % 25 = 0) s;
RESET enable_seqscan; RESET enable_indexscan; RESET enable_bitmapscan;

-- the candidate disc's operator on heap rows says what the index says of their entries
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT pfp('SELECT p.id AS a, z.id AS b FROM bprobes p CROSS JOIN LATERAL (SELECT id FROM bigz z WHERE z.shape <@ geoidx_candidate_circle(p.pt, 2000)) z WHERE p.id % 53 = 0') AS cand_index \gset
RESET enable_seqscan; SET enable_indexscan = off;
SELECT pfp('SELECT p.id AS a, z.id AS b FROM bprobes p CROSS JOIN LATERAL (SELECT id FROM bigz z WHERE z.shape <@ geoidx_candidate_circle(p.pt, 2000)) z WHERE p.id % 53 = 0') AS cand_heap \gset
RESET enable_indexscan; RESET enable_bitmapscan;
SELECT :'cand_index' = :'cand_heap' AS candidate_same;
-- ... and leaves out the far corners of the diagonal band, which its box holds
SELECT ST_AsText(c) AS c, ST_Covers(ST_Envelope(shape), c) AS in_box, shape <@ geoidx_candidate_circle(c, 1000.0) AS candidate
FROM bigz, (VALUES ('SRID=4326;POINT(-65 41)'::geometry), ('SRID=4326;POINT(-73 49)'), ('SRID=4326;POINT(-68.9 45)')) v(c)
WHERE id = 5 ORDER BY ST_X(c);

-- writes: rows inserted, updated and deleted keep their pieces, VACUUM, verify
INSERT INTO bigz (id, shape, g) SELECT id + 100, ST_Translate(shape, 0.5, 0.25), NULL FROM bigz WHERE id <= 3;
UPDATE bigz SET g = shape::geography WHERE g IS NULL;
UPDATE bigz SET shape = ST_Translate(shape, -0.5, 0) WHERE id = 101;
UPDATE bigz SET g = shape::geography WHERE id = 101;
DELETE FROM bigz WHERE id = 102;
VACUUM bigz;
SELECT geoidx_verify('bigz_gx');
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT pfp('SELECT p.id AS a, z.id AS b FROM bprobes p CROSS JOIN LATERAL (SELECT id FROM bigz z WHERE geoidx_covers(z.shape, p.pt)) z')
	= pfp('SELECT p.id AS a, z.id AS b FROM bigz z CROSS JOIN LATERAL (SELECT id FROM bprobes p WHERE ST_Covers(z.g, p.g)) p') AS covers_same_after_writes;
RESET enable_seqscan; RESET enable_bitmapscan;

-- a large polygon's pieces take up to 776 bytes of its entry: with columns
-- after the point too long to leave room, the row is refused, clearly; a
-- small polygon with the same columns is indexed. The short note of a wide
-- row (compressed in the heap, not in the INSERT) is the same payload
-- whichever way it came.
CREATE TABLE wide (shape geometry, note text);
INSERT INTO wide VALUES ((SELECT shape FROM bigz WHERE id = 4), (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 40) i));
CREATE INDEX wide_gx ON wide USING geoidx (shape) INCLUDE (note);
SELECT geoidx_verify('wide_gx');
\set VERBOSITY default
INSERT INTO wide VALUES ((SELECT shape FROM bigz WHERE id = 1), (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 40) i));
\set VERBOSITY terse
INSERT INTO wide VALUES ((SELECT shape FROM bigz WHERE id = 1), repeat('x', 100));
SELECT geoidx_verify('wide_gx');
