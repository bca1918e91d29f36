# Index pages read through the buffer the backend last found them in
# (src/pg/recent_buffer.cc), on a server whose shared_buffers (32 pages) is far
# smaller than one query's pages, so that between two reads of a page its
# remembered buffer has almost always been given to another page: every query
# runs into stale remembered buffers, and must then read the page the usual way.
#   - 400 k-NN and radius queries in one backend, each against PostGIS's
#     answer computed with no index;
#   - the same query twice, after the others: some of its pages had to be read
#     again (a remembered buffer was stale), and both runs count as many pages
#     (hit + read) as the first, in EXPLAIN (BUFFERS) and in pg_statio.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = geoidx_node('recent_buffers',
	conf => "shared_buffers = 256kB\nmax_parallel_workers_per_gather = 0\njit = off\n");
is($node->safe_psql('postgres', 'SHOW shared_buffers'), '256kB', 'a pool of 32 pages');

$node->safe_psql('postgres', q{
	SELECT setseed(0.31);
	CREATE TABLE pts (id int PRIMARY KEY, pos geometry(Point, 4326), cat int);
	INSERT INTO pts SELECT i,
		ST_SetSRID(ST_MakePoint(CASE WHEN i % 3 = 0 THEN 8 + random() ELSE -180 + 360 * random() END,
			CASE WHEN i % 3 = 0 THEN 47 + random() ELSE degrees(asin(2 * random() - 1)) END), 4326), i % 10
	FROM generate_series(1, 40000) i;
	CREATE INDEX pts_geoidx ON pts USING geoidx (pos, cat);
	VACUUM ANALYZE pts;
	CREATE TABLE other AS SELECT * FROM pts;
	CREATE INDEX other_geoidx ON other USING geoidx (pos);
	VACUUM ANALYZE other;
	CREATE TABLE q AS SELECT g AS qid,
		ST_SetSRID(ST_MakePoint(CASE WHEN g % 2 = 0 THEN 8 + random() ELSE -180 + 360 * random() END,
			CASE WHEN g % 2 = 0 THEN 47 + random() ELSE degrees(asin(2 * random() - 1)) END), 4326) AS c,
		g % 10 AS cat, CASE WHEN g % 2 = 0 THEN 5000.0 ELSE 400000.0 END AS r
	FROM generate_series(1, 200) g;
});
my $pages = $node->safe_psql('postgres', "SELECT pg_relation_size('pts_geoidx') / 8192");
cmp_ok($pages, '>', 100, "the index ($pages pages) is several times the pool");

# PostGIS's answers, with no index at all
$node->safe_psql('postgres', q{
	CREATE TABLE ref AS
	SELECT qid, 'knn' AS kind, ARRAY(SELECT id FROM pts WHERE cat = q.cat
		ORDER BY ST_Distance(pos::geography, q.c), id LIMIT 20) AS ids FROM q
	UNION ALL
	SELECT qid, 'radius', ARRAY(SELECT id FROM pts WHERE ST_DWithin(pos::geography, q.c::geography, q.r)
		ORDER BY id) FROM q;
});

# geoidx's, all in one backend (its remembered buffers are per backend)
my $out = $node->safe_psql('postgres', q{
	SET enable_seqscan = off; SET enable_bitmapscan = off;
	CREATE TABLE got (qid int, kind text, ids int[]);
	DO $$
	DECLARE r record;
	BEGIN
		FOR r IN SELECT * FROM q ORDER BY qid LOOP
			INSERT INTO got SELECT r.qid, 'knn', ARRAY(SELECT id FROM (SELECT id, pos <~> r.c AS d FROM pts
				WHERE cat = r.cat ORDER BY pos <~> r.c LIMIT 20) s ORDER BY d, id);
			INSERT INTO got SELECT r.qid, 'radius', ARRAY(SELECT id FROM pts
				WHERE geoidx_dwithin(pos, r.c, r.r) ORDER BY id);
		END LOOP;
	END $$;
	SELECT count(*), count(*) FILTER (WHERE g.ids IS NOT DISTINCT FROM f.ids),
		sum(cardinality(f.ids)) FROM ref f JOIN got g USING (qid, kind);
});
my ($n, $same, $rows) = split /\|/, $out;
is($n, 400, '400 queries');
is($same, $n, "every answer is PostGIS's ($rows rows)");
cmp_ok($rows, '>', 4000, 'queries with rows to return');

# One query three times, with another table's index scans between them that
# take the pool, in a backend that remembers the buffers of the pages it read:
# the later runs read pages again (their remembered buffers had gone to other
# pages), and every run counts as many pages (hit + read) as the first, in
# EXPLAIN (BUFFERS) and in pg_statio, hits and reads alike.
my $q = q{SELECT id FROM pts WHERE cat = 3 ORDER BY pos <~> 'SRID=4326;POINT(8.5 47.5)' LIMIT 200};
my $pollute = q{SELECT count(*) FROM (SELECT id FROM other WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(8.5 47.5)', 2e5)
	UNION ALL SELECT id FROM other WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(100 0)', 5e6)) s};
# and a query of a few pages twice in a row: the second finds them in the buffers it remembers
my $small = q{SELECT id FROM pts WHERE cat = 4 ORDER BY pos <~> 'SRID=4326;POINT(-60 -20)' LIMIT 1};
my $explain = $node->safe_psql('postgres', qq{
	SET enable_seqscan = off; SET enable_bitmapscan = off; SET stats_fetch_consistency = none;
	SELECT pg_stat_reset_single_table_counters('pts'::regclass);
	SELECT pg_stat_reset_single_table_counters('pts_geoidx'::regclass);
	EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) $q;
	$pollute;
	EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) $q;
	$pollute;
	EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) $q;
	EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) $small;
	EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) $small;
	SELECT pg_stat_force_next_flush();
	SELECT 'statio ' || (SELECT heap_blks_hit FROM pg_statio_user_tables WHERE relname = 'pts')
		|| ' ' || (SELECT heap_blks_read FROM pg_statio_user_tables WHERE relname = 'pts')
		|| ' ' || (SELECT idx_blks_hit FROM pg_statio_user_indexes WHERE indexrelname = 'pts_geoidx')
		|| ' ' || (SELECT idx_blks_read FROM pg_statio_user_indexes WHERE indexrelname = 'pts_geoidx');
});
# each plan's first Buffers line is its Limit's (the planner's come after the plan)
my (@limit, $want);
for (split /\n/, $explain)
{
	$want = 1 if /^\s*Limit/;
	next unless $want && /Buffers: shared/;
	my ($h) = /hit=(\d+)/;
	my ($r) = /read=(\d+)/;
	push @limit, [ $h // 0, $r // 0 ];
	$want = 0;
}
diag(join(', ', map { "hit=$_->[0] read=$_->[1]" } @limit));
is(scalar @limit, 5, 'five runs');
cmp_ok($limit[1][1] + $limit[2][1], '>', 0, 'later runs read pages again: remembered buffers were stale');
my $per_run = $limit[0][0] + $limit[0][1];
is($limit[1][0] + $limit[1][1], $per_run, "the second run counts as many pages as the first ($per_run)");
is($limit[2][0] + $limit[2][1], $per_run, 'and so does the third');
is($limit[4][1], 0, 'the small query read nothing the second time');
is($limit[4][0], $limit[3][0] + $limit[3][1], 'and counted each of its pages as a hit');
my ($heap_hit, $heap_read, $idx_hit, $idx_read) = $explain =~ /statio (\d+) (\d+) (\d+) (\d+)/;
my ($hits, $reads) = (0, 0);
$hits += $_->[0] for @limit;
$reads += $_->[1] for @limit;
is($heap_hit + $idx_hit, $hits, "pg_statio counts the hits too: heap $heap_hit + index $idx_hit");
is($heap_read + $idx_read, $reads, "and the reads: heap $heap_read + index $idx_read");
done_testing();
