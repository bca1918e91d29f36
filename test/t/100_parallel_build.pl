# The parallel bulk build (src/pg/build_parallel.cc): an index of shapes built
# with workers is the same index, page for page, as the serial build of the
# same rows (CREATE INDEX, REINDEX, CREATE INDEX CONCURRENTLY, a multicolumn
# index with INCLUDE), geoidx_verify passes, and it answers as PostGIS does.
# The workers are checked to have run every time (the build's DEBUG1 line
# names them): a TOASTed table, whose main fork alone the planner finds too
# small, gets one from the TOAST table's size; a column of points stays
# serial.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = geoidx_node('parallel_build',
	conf => "max_parallel_maintenance_workers = 2\nmaintenance_work_mem = 256MB\n"
	  . "max_worker_processes = 8\njit = off\n");

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

# a column of points: the serial flat sort, no workers
$node->safe_psql('postgres', q{
	CREATE TABLE pts (id int PRIMARY KEY, pos geometry(Point, 4326));
	INSERT INTO pts SELECT i, ST_SetSRID(ST_MakePoint((i % 3600) * 0.1 - 180, (i / 3600) * 0.05 - 80), 4326)
	FROM generate_series(0, 299999) i;
});
is(build(2, 'SET min_parallel_table_scan_size = 0; CREATE INDEX pts_pos ON pts USING geoidx (pos)'),
	'', 'a point column builds serially');

done_testing();
