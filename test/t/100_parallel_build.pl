# The parallel bulk build (src/pg/build_parallel.cc): an index built with
# workers is the same index, page for page, as the serial build of the same
# rows, and a streaming standby that replays it holds the same pages.
# - Shapes (the shared tuplesort): CREATE INDEX, REINDEX, CREATE INDEX
#   CONCURRENTLY, a multicolumn index with INCLUDE; a TOASTed table, whose
#   main fork alone the planner finds too small, gets workers from the TOAST
#   table's size.
# - Points (flat runs merged by the leader): 0, 1 and 2 workers, many runs a
#   participant (geoidx.build_run_records), CONCURRENTLY, a geography column.
# The workers are checked to have run every time (the build's DEBUG1 line
# names them); geoidx_verify passes and the answers are PostGIS's.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = geoidx_node('parallel_build', allows_streaming => 1,
	conf => "max_parallel_maintenance_workers = 2\nmaintenance_work_mem = 256MB\n"
	  . "max_worker_processes = 8\njit = off\n");
$node->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('parallel_build_standby');
$standby->init_from_backup($node, 'base', has_streaming => 1);
$standby->start;

# 420 polygons of ~2,000 vertices (32 kB each, TOASTed), holes and
# multipolygons among them, NULL, EMPTY, lines and points: the main fork is a
# few pages, the TOAST table ~13 MB
$node->safe_psql('postgres', q{
	CREATE EXTENSION pageinspect;
	CREATE TABLE zones (id int PRIMARY KEY, shape geometry, cat int, name text);
	INSERT INTO zones SELECT i,
		CASE WHEN i % 41 = 0 THEN NULL
		     WHEN i % 43 = 0 THEN 'SRID=4326;POLYGON EMPTY'::geometry
		     WHEN i % 47 = 0 THEN ST_SetSRID(ST_MakeLine(ST_MakePoint(i * 0.8 - 170, 10), ST_MakePoint(i * 0.8 - 169.5, 10.4)), 4326)
		     WHEN i % 53 = 0 THEN ST_SetSRID(ST_MakePoint(i * 0.8 - 170, -20), 4326)
		     WHEN i % 5 = 0 THEN ST_Difference(
		          ST_Buffer(ST_SetSRID(ST_MakePoint((i % 30) * 11 - 165, (i / 30) * 8 - 55), 4326), 3, 500),
		          ST_Buffer(ST_SetSRID(ST_MakePoint((i % 30) * 11 - 165, (i / 30) * 8 - 55), 4326), 1, 100))
		     WHEN i % 7 = 0 THEN ST_Multi(ST_Union(
		          ST_Buffer(ST_SetSRID(ST_MakePoint((i % 30) * 11 - 166, (i / 30) * 8 - 55), 4326), 1.5, 250),
		          ST_Buffer(ST_SetSRID(ST_MakePoint((i % 30) * 11 - 162, (i / 30) * 8 - 55), 4326), 1.5, 250)))
		     ELSE ST_Buffer(ST_SetSRID(ST_MakePoint((i % 30) * 11 - 165, (i / 30) * 8 - 55), 4326), 3 + (i % 4), 500) END,
		i % 9, 'zone ' || i
	FROM generate_series(0, 419) i;
	CREATE TABLE probes AS SELECT j AS p, ST_SetSRID(ST_MakePoint(-172 + (j % 120) * 2.91, -60 + (j / 120) * 1.73), 4326) AS pt
	FROM generate_series(0, 8399) j;
	ANALYZE;
});
my $sizes = $node->safe_psql('postgres', q{
	SELECT pg_relation_size('zones') < 1048576, pg_total_relation_size('zones') > 8 * 1048576});
is($sizes, 't|t', 'the zones live in the TOAST table: a small main fork, a large TOAST table');

# Build with the given workers; return the DEBUG1 lines that name geoidx's workers.
sub build
{
	my ($workers, $sql) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET max_parallel_maintenance_workers = $workers; SET client_min_messages = debug1; $sql");
	is($ret, 0, "$sql with $workers workers allowed") or diag($err);
	return join("\n", grep { /geoidx: building index/ } split /\n/, $err);
}

# Whether two indexes hold the same pages (past the page LSN and checksum).
sub same_pages
{
	my ($a, $b) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT pg_relation_size('$a') = pg_relation_size('$b') AND bool_and(
			substr(get_raw_page('$a', b), 11) = substr(get_raw_page('$b', b), 11))
		FROM generate_series(0, (pg_relation_size('$a') / 8192)::int - 1) b});
}

my $serial = build(0, 'CREATE INDEX zones_serial ON zones USING geoidx (shape)');
is($serial, '', 'no workers when none are allowed');
my $par = build(2, 'CREATE INDEX zones_par ON zones USING geoidx (shape)');
like($par, qr/building index "zones_par" with [12] parallel workers/, 'CREATE INDEX ran with workers');
is(same_pages('zones_serial', 'zones_par'), 't', 'the parallel build is the serial build, page for page');

$par = build(2, 'REINDEX INDEX zones_par');
like($par, qr/building index "zones_par" with [12] parallel workers/, 'REINDEX ran with workers');
is(same_pages('zones_serial', 'zones_par'), 't', 'REINDEX: the same pages');

build(0, 'CREATE INDEX zones_mc_serial ON zones USING geoidx (shape, cat) INCLUDE (name)');
$par = build(2, 'CREATE INDEX zones_mc_par ON zones USING geoidx (shape, cat) INCLUDE (name)');
like($par, qr/with [12] parallel workers/, 'the multicolumn index ran with workers');
is(same_pages('zones_mc_serial', 'zones_mc_par'), 't', 'multicolumn with INCLUDE: the same pages');

$par = build(2, 'CREATE INDEX CONCURRENTLY zones_conc ON zones USING geoidx (shape)');
like($par, qr/building index "zones_conc" with [12] parallel workers/,
	'CREATE INDEX CONCURRENTLY ran with workers');
is(same_pages('zones_serial', 'zones_conc'), 't', 'CONCURRENTLY: the same pages');

for my $idx (qw(zones_par zones_mc_par zones_conc))
{
	is($node->safe_psql('postgres', "SELECT geoidx_verify('$idx')"), '', "geoidx_verify('$idx')");
}

# answers through the parallel-built index, against PostGIS by a sequential scan
$node->safe_psql('postgres', 'DROP INDEX zones_serial, zones_mc_serial, zones_mc_par, zones_conc');
my $fp = q{SELECT count(*) || ':' || coalesce(sum(hashint8(p::bigint * 100003 + id)), 0) FROM (%s) s};
my $got = $node->safe_psql('postgres', sprintf("SET enable_seqscan = off; $fp",
	'SELECT q.p, z.id FROM probes q CROSS JOIN LATERAL (SELECT id FROM zones z WHERE geoidx_covers(z.shape, q.pt)) z'));
# PostGIS's own path: a geography column with its GiST index (a cast per pair
# of 3.5M would take minutes)
$node->safe_psql('postgres', q{
	CREATE TABLE zones_geog AS SELECT id, shape::geography AS g FROM zones;
	CREATE INDEX ON zones_geog USING gist (g);
	ANALYZE zones_geog;
});
my $want = $node->safe_psql('postgres', sprintf("SET enable_seqscan = off; $fp",
	'SELECT q.p, z.id FROM probes q JOIN zones_geog z ON ST_Covers(z.g, q.pt::geography)'));
is($got, $want, 'geoidx_covers through the parallel-built index: PostGIS geography\'s answers');
cmp_ok((split /:/, $want)[0], '>', 1000, 'many probes are covered');

# A column of points: each participant's flat runs, merged by the leader.
# 300k rows: a lattice with every point twice (ties broken by TID), NULLs,
# EMPTY points and the poles and the antimeridian; the heap is deleted from
# and updated, so that dead tuples and HOT chains are skipped.
$node->safe_psql('postgres', q{
	CREATE TABLE pts (id int PRIMARY KEY, pos geometry(Point, 4326), g geography(Point, 4326));
	INSERT INTO pts SELECT i,
		CASE WHEN i % 997 = 0 THEN NULL
		     WHEN i % 991 = 0 THEN 'SRID=4326;POINT EMPTY'::geometry
		     WHEN i % 983 = 0 THEN ST_SetSRID(ST_MakePoint(180, (i % 181) - 90), 4326)
		     ELSE ST_SetSRID(ST_MakePoint(((i / 2) % 600) * 0.6 - 180, ((i / 2) / 600) * 0.68 - 85), 4326) END
	FROM generate_series(0, 299999) i;
	UPDATE pts SET g = pos::geography WHERE pos IS NOT NULL AND NOT ST_IsEmpty(pos);
	DELETE FROM pts WHERE id % 13 = 0;
	UPDATE pts SET pos = ST_SetSRID(ST_MakePoint(ST_X(pos) + 0.01, ST_Y(pos)), 4326) WHERE id % 17 = 0 AND ST_X(pos) < 179;
	ANALYZE pts;
});
my $points_sql = 'SET min_parallel_table_scan_size = 0; CREATE INDEX %s ON pts USING geoidx (%s)';
is(build(0, sprintf($points_sql, 'pts_serial', 'pos')), '', 'points: no workers when none are allowed');
like(build(1, sprintf($points_sql, 'pts_par1', 'pos')), qr/"pts_par1" with 1 parallel workers/,
	'points: CREATE INDEX with one worker');
like(build(2, sprintf($points_sql, 'pts_par2', 'pos')), qr/"pts_par2" with 2 parallel workers/,
	'points: CREATE INDEX with two workers');
like(build(2, 'SET geoidx.build_run_records = 4000; ' . sprintf($points_sql, 'pts_runs', 'pos')),
	qr/"pts_runs" with 2 parallel workers/, 'points: runs of 4,000 records, ~25 a participant');
like(build(2, 'SET min_parallel_table_scan_size = 0; CREATE INDEX CONCURRENTLY pts_conc ON pts USING geoidx (pos)'),
	qr/"pts_conc" with 2 parallel workers/, 'points: CREATE INDEX CONCURRENTLY with workers');
for my $idx (qw(pts_par1 pts_par2 pts_runs pts_conc))
{
	is(same_pages('pts_serial', $idx), 't', "points: $idx is the serial build, page for page");
}
is(build(0, sprintf($points_sql, 'pts_g_serial', 'g')), '', 'geography points: serial');
like(build(2, sprintf($points_sql, 'pts_g_par', 'g')), qr/"pts_g_par" with 2 parallel workers/,
	'geography points: with workers');
is(same_pages('pts_g_serial', 'pts_g_par'), 't', 'geography points: the same pages');
for my $idx (qw(pts_runs pts_conc pts_g_par))
{
	is($node->safe_psql('postgres', "SELECT geoidx_verify('$idx')"), '', "geoidx_verify('$idx')");
}

# answers through the many-runs index against PostGIS geography by a sequential scan
$node->safe_psql('postgres', 'DROP INDEX pts_serial, pts_par1, pts_par2, pts_conc, pts_g_serial');
my $radius = q{SELECT count(*) || ':' || coalesce(sum(hashint4(id)), 0) FROM pts
	WHERE %s(pos%s, ST_SetSRID(ST_MakePoint(%s, %s), 4326)%s, %d)};
for my $c ([-73.9, 40.7, 150000], [179.95, 5, 90000], [0, -79.99, 60000], [12, 41.48, 200])
{
	my ($lon, $lat, $r) = @$c;
	my $got = $node->safe_psql('postgres',
		'SET enable_seqscan = off; ' . sprintf($radius, 'geoidx_dwithin', '', $lon, $lat, '', $r));
	my $want = $node->safe_psql('postgres',
		sprintf($radius, 'ST_DWithin', '::geography', $lon, $lat, '::geography', $r));
	is($got, $want, "points within $r m of ($lon $lat): PostGIS geography's rows");
	cmp_ok((split /:/, $want)[0], '>', 0, "points within $r m of ($lon $lat): some");
}
# distances, not ids: the lattice's twins tie
my $knn = q{SELECT string_agg(d::text, ',' ORDER BY d) FROM (SELECT id, %s AS d FROM pts
	WHERE pos IS NOT NULL AND NOT ST_IsEmpty(pos) ORDER BY %s LIMIT 20) s};
my $knn_got = $node->safe_psql('postgres', 'SET enable_seqscan = off; '
	  . sprintf($knn, "pos <~> 'SRID=4326;POINT(100 30)'", "pos <~> 'SRID=4326;POINT(100 30)'"));
my $knn_want = $node->safe_psql('postgres', sprintf($knn,
	"ST_Distance(pos::geography, 'SRID=4326;POINT(100 30)'::geography)",
	"ST_Distance(pos::geography, 'SRID=4326;POINT(100 30)'::geography)"));
is($knn_got, $knn_want, '20 nearest through the many-runs index: PostGIS geography\'s');

# the standby replayed every build: the same pages as the primary
wait_for_replay($node, $standby);
my $digest = q{SELECT md5(string_agg(substr(get_raw_page('%s', b), 11), '' ORDER BY b))
	FROM generate_series(0, (pg_relation_size('%s') / 8192)::int - 1) b};
for my $idx (qw(zones_par pts_runs pts_g_par))
{
	my $want = $node->safe_psql('postgres', sprintf($digest, $idx, $idx));
	is($standby->safe_psql('postgres', sprintf($digest, $idx, $idx)), $want,
		"the standby holds ${idx}'s pages");
}
my $standby_radius = 'SET enable_seqscan = off; ' . sprintf($radius, 'geoidx_dwithin', '', -73.9, 40.7, '', 150000);
is($standby->safe_psql('postgres', $standby_radius), $node->safe_psql('postgres', $standby_radius),
	'a radius scan of the replayed index on the standby: the primary\'s rows');

done_testing();
