-- One half (:half = 0 or 1, by zone id) of the shapes differential's
-- row-by-row answers: every (zone, probe) pair within :reach metres and
-- every (zone, query shape) pair within :reach metres, found by PostGIS
-- (ST_DWithin on the stored geography columns, through GiST), each with
-- PostGIS's answers and geoidx's answers to the same questions, function by
-- function. The test compares them; two sessions run the two halves at once.
--
-- Zone by zone (the LATERAL), so that PostGIS's cached circle tree of the
-- zone serves its ST_Intersects, ST_DWithin and ST_Distance as in an
-- application's scan. ST_CoveredBy(a, b) is PostGIS's ST_Covers(b, a) (the
-- test checks that on a sample): geoidx_coveredby is compared with covers.
SET client_min_messages = warning;
SET enable_seqscan = off;

CREATE TABLE pt_pairs_:half AS
SELECT z.id AS zid, p.id AS pid,
	ST_Covers(z.g, p.g) AS covers,
	ST_Intersects(z.g, p.g) AS intersects,
	ST_DWithin(z.g, p.g, :reach / 2.0) AS dwithin,
	ST_DWithin(p.g, z.g, :reach / 3.0, false) AS dwithin_sphere,
	ST_Distance(z.g, p.g) AS distance,
	geoidx_covers(z.shape, p.pt) AS x_covers,
	geoidx_coveredby(p.pt, z.shape) AS x_coveredby,
	geoidx_intersects(z.shape, p.pt) AS x_intersects,
	geoidx_intersects(p.pt, z.shape) AS x_intersects_rev,
	geoidx_dwithin(z.shape, p.pt, :reach / 2.0) AS x_dwithin,
	geoidx_dwithin(p.pt, z.shape, :reach / 3.0, false) AS x_dwithin_sphere,
	z.shape <~> p.pt AS x_distance
FROM zones z CROSS JOIN LATERAL (
	SELECT id, pt, g FROM probes p WHERE ST_DWithin(z.g, p.g, :reach)) p
WHERE z.id % 2 = :half;

CREATE TABLE sh_pairs_:half AS
SELECT z.id AS zid, q.id AS qid,
	ST_Covers(z.g, q.g) AS covers,
	ST_Intersects(z.g, q.g) AS intersects,
	ST_DWithin(z.g, q.g, :reach / 2.0) AS dwithin,
	ST_Distance(z.g, q.g) AS distance,
	geoidx_covers(z.shape, q.shape) AS x_covers,
	geoidx_coveredby(q.shape, z.shape) AS x_coveredby,
	geoidx_intersects(z.shape, q.shape) AS x_intersects,
	geoidx_dwithin(z.shape, q.shape, :reach / 2.0) AS x_dwithin,
	z.shape <~> q.shape AS x_distance
FROM zones z CROSS JOIN LATERAL (
	SELECT id, shape, g FROM qshapes q WHERE ST_DWithin(z.g, q.g, :reach)) q
WHERE z.id % 2 = :half;
