# Differential test: geoidx against PostGIS geography on 300,000+ points
# (uniform, clusters, antimeridian, poles, wrapped coordinates, duplicates,
# and the real data sets), 1,000 radius queries (1 m .. 5,000 km, a tenth of
# them with the radius exactly equal to a distance in the table) and 1,000
# k-NN queries (k = 1 .. 1,000).
#
# The references are PostGIS's own answers: ST_DWithin(geography) through a
# GiST index on (pos::geography), and ORDER BY ST_Distance(geography); a
# sample of each is also computed by a plain sequential scan.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = geoidx_node('differential', conf => "work_mem = 64MB\n");
psql_file($node, "$FindBin::Bin/../sql/differential_data.sql", datadir => data_dir());

my $npts = $node->safe_psql('postgres', 'SELECT count(*) FROM pts WHERE pos IS NOT NULL AND NOT ST_IsEmpty(pos)');
cmp_ok($npts, '>=', 200000, "at least 200,000 points ($npts)");

$node->safe_psql('postgres', q{
	CREATE INDEX pts_geoidx ON pts USING geoidx (pos);
	CREATE INDEX pts_geog ON pts USING gist ((pos::geography));
	ANALYZE pts;
});
$node->safe_psql('postgres', q{SELECT geoidx_verify('pts_geoidx')});
pass('geoidx_verify after the build');

# --- radius -----------------------------------------------------------------
my $plan = $node->safe_psql('postgres', q{
	SET enable_seqscan = off; SET enable_bitmapscan = off;
	EXPLAIN (COSTS OFF) SELECT id FROM pts WHERE geoidx_dwithin(pos, (SELECT center FROM radius_q WHERE qid = 1), 1000)});
like($plan, qr/Index Scan using pts_geoidx/, 'the radius query is a geoidx index scan');
unlike($plan, qr/Filter|Recheck/, 'with no filter or recheck');

$node->safe_psql('postgres', q{
	SET enable_seqscan = off; SET enable_bitmapscan = off;
	CREATE TABLE r_index AS
	SELECT q.qid, coalesce((SELECT array_agg(id ORDER BY id) FROM pts
		WHERE geoidx_dwithin(pos, q.center, q.metres)), '{}') AS ids
	FROM radius_q q;
	SET enable_bitmapscan = on; SET enable_indexscan = off;
	CREATE TABLE r_bitmap AS
	SELECT q.qid, coalesce((SELECT array_agg(id ORDER BY id) FROM pts
		WHERE geoidx_dwithin(pos, q.center, q.metres)), '{}') AS ids
	FROM radius_q q;
	RESET enable_indexscan; RESET enable_bitmapscan;
	DROP INDEX pts_geoidx;
	CREATE TABLE r_ref AS
	SELECT q.qid, coalesce((SELECT array_agg(id ORDER BY id) FROM pts
		WHERE ST_DWithin(pos::geography, q.center::geography, q.metres)), '{}') AS ids
	FROM radius_q q;
	SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_seqscan = on;
	CREATE TABLE r_seq AS
	SELECT q.qid, coalesce((SELECT array_agg(id ORDER BY id) FROM pts
		WHERE ST_DWithin(pos::geography, q.center::geography, q.metres)), '{}') AS ids
	FROM radius_q q WHERE q.qid % 40 = 0;
});
my ($nq, $rows, $bad_index, $bad_bitmap) = split /\|/, $node->safe_psql('postgres', q{
	SELECT count(*), sum(cardinality(r.ids)),
		count(*) FILTER (WHERE i.ids IS DISTINCT FROM r.ids),
		count(*) FILTER (WHERE b.ids IS DISTINCT FROM r.ids)
	FROM r_ref r JOIN r_index i USING (qid) JOIN r_bitmap b USING (qid)});
is($nq, 1000, '1,000 radius queries');
is($bad_index, 0, "index scan answers equal ST_DWithin(geography) ($rows rows in all)");
is($bad_bitmap, 0, 'bitmap scan answers equal ST_DWithin(geography)');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM r_seq s JOIN r_ref r USING (qid) WHERE s.ids IS DISTINCT FROM r.ids}), 0,
	'the GiST reference equals a sequential scan on its sample');
my $boundary = $node->safe_psql('postgres', q{
	SELECT count(*) FROM radius_q q JOIN r_index i USING (qid)
	WHERE q.qid % 10 = 7 AND q.qid * 37 = ANY (i.ids)});
is($boundary, 100, "points 10 nm inside the radius are included ($boundary of 100)");

# --- k-NN -------------------------------------------------------------------
$node->safe_psql('postgres', q{CREATE INDEX pts_geoidx ON pts USING geoidx (pos); ANALYZE pts;});
$plan = $node->safe_psql('postgres', q{
	EXPLAIN (COSTS OFF) SELECT id FROM pts ORDER BY pos <~> (SELECT center FROM knn_q WHERE qid = 1) LIMIT 10});
like($plan, qr/Index Scan using pts_geoidx/, 'k-NN is a geoidx index scan');
unlike($plan, qr/Sort|Filter|Recheck/, 'with no sort, filter or recheck');

$node->safe_psql('postgres', q{
	SET enable_seqscan = off;
	CREATE TABLE k_index AS
	SELECT q.qid, s.rn, s.id, s.d
	FROM knn_q q CROSS JOIN LATERAL (
		SELECT id, d, row_number() OVER () AS rn FROM (
			SELECT id, pos <~> q.center AS d FROM pts ORDER BY pos <~> q.center LIMIT q.k) x) s;
	RESET enable_seqscan;
	-- the exact distances, by PostGIS
	CREATE TABLE k_exact AS
	SELECT k.qid, k.rn, k.id, k.d, ST_Distance(p.pos::geography, q.center::geography) AS pd
	FROM k_index k JOIN pts p USING (id) JOIN knn_q q USING (qid);
	-- PostGIS's k nearest: everything within the k-th distance (plus a margin) by ST_DWithin(geography)
	DROP INDEX pts_geoidx;
	CREATE TABLE k_ref AS
	SELECT q.qid, s.rn, s.id, s.d FROM knn_q q
	CROSS JOIN LATERAL (SELECT max(d) AS kth FROM k_index k WHERE k.qid = q.qid) m
	CROSS JOIN LATERAL (
		SELECT id, d, row_number() OVER (ORDER BY d, id) AS rn FROM (
			SELECT id, ST_Distance(pos::geography, q.center::geography) AS d FROM pts
			WHERE ST_DWithin(pos::geography, q.center::geography, m.kth * 1.01 + 1)
			ORDER BY 2 LIMIT q.k) x) s;
	SET enable_indexscan = off; SET enable_bitmapscan = off;
	CREATE TABLE k_seq AS
	SELECT q.qid, s.rn, s.id, s.d FROM knn_q q CROSS JOIN LATERAL (
		SELECT id, d, row_number() OVER (ORDER BY d, id) AS rn FROM (
			SELECT id, ST_Distance(pos::geography, q.center::geography) AS d FROM pts
			WHERE pos IS NOT NULL AND NOT ST_IsEmpty(pos) ORDER BY 2 LIMIT q.k) x) s
	WHERE q.qid % 50 = 0;
});
my ($kq, $krows) = split /\|/, $node->safe_psql('postgres', q{SELECT count(DISTINCT qid), count(*) FROM k_index});
is($kq, 1000, '1,000 k-NN queries');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM knn_q q WHERE q.k <> (SELECT count(*) FROM k_index k WHERE k.qid = q.qid)}), 0,
	'every k-NN query returned k rows');
is($node->safe_psql('postgres', q{SELECT count(*) FROM k_exact WHERE d IS DISTINCT FROM pd}), 0,
	"<~> equals ST_Distance(geography) on all $krows returned rows");
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM k_index a JOIN k_index b ON a.qid = b.qid AND b.rn = a.rn + 1 WHERE b.d < a.d}), 0,
	'index order is nearest first');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT qid, rn, d FROM k_index) i FULL JOIN
		(SELECT qid, rn, d FROM k_ref) r USING (qid, rn) WHERE i.d IS DISTINCT FROM r.d}), 0,
	'the k distances equal PostGIS ORDER BY ST_Distance(geography)');
is($node->safe_psql('postgres', q{
	WITH kth AS (SELECT qid, max(d) AS d FROM k_index GROUP BY qid)
	SELECT count(*) FROM (SELECT qid, id FROM k_index JOIN kth USING (qid) WHERE k_index.d < kth.d) i
	FULL JOIN (SELECT qid, id FROM k_ref JOIN kth USING (qid) WHERE k_ref.d < kth.d) r USING (qid, id)
	WHERE i.id IS NULL OR r.id IS NULL}), 0,
	'the same rows below the k-th distance (ties at it may differ)');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM k_seq s JOIN k_ref r USING (qid, rn) WHERE s.d IS DISTINCT FROM r.d}), 0,
	'the reference equals a full sort by ST_Distance(geography) on its sample');

diag("differential: $npts points, $nq radius queries returning $rows rows, $kq k-NN queries returning $krows rows");
$node->stop;
done_testing();
