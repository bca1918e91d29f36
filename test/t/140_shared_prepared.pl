# The prepared polygons in shared memory (src/pg/covers_shared.cc), with geoidx
# in shared_preload_libraries and a region too small for the zones (1 MB), so
# that it starts again over and over while two clients use it:
#   - two pgbench clients ask geoidx_covers, geoidx_intersects and <~> of
#     (zone, point) pairs and "which zones cover this point" by index, and
#     abort on the first answer that differs from PostGIS's;
#   - a polygon one backend prepared serves the next backend (no second
#     preparation); another database prepares its own (TOAST OIDs are per
#     database); a polygon larger than the region is answered from the
#     backend's own cache; a line has no prepared form;
#   - without the preload, the same answers from each backend's own cache.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = geoidx_node('shared_prepared',
	conf => "shared_preload_libraries = 'geoidx'\ngeoidx.shared_prepared_memory = 1MB\n"
	  . "max_parallel_workers_per_gather = 0\n");
psql_file($node, "$FindBin::Bin/../sql/shapes_differential_data.sql",
	datadir => data_dir(), places => 2, step => 400, thin => 4);

sub stats
{
	my ($db) = @_;
	my @v = split /\|/, $node->safe_psql($db // 'postgres',
		'SELECT shared, polygons, bytes, capacity, hits, prepared, resets, own_cache FROM geoidx_prepared_shapes()');
	my %h;
	@h{qw(shared polygons bytes capacity hits prepared resets own_cache)} = @v;
	return \%h;
}

# PostGIS's answers (geoidx.rewrite_postgis is off on this node): every pair of
# an NYC zone (two places: its neighbourhoods and boroughs, up to ~15k vertices)
# and a probe in reach of its box; and per probe the zones that cover it. The
# probes are buses and a lattice: a point on an edge, where PostGIS's answer
# depends on its call history, is 090_shapes_differential's business.
$node->safe_psql('postgres', q{
	CREATE TABLE pairs AS
	SELECT row_number() OVER (ORDER BY z.id, p.id) AS n, z.id AS zid, p.id AS pid,
		ST_Covers(z.g, p.g) AS covers, ST_Intersects(z.g, p.g) AS intersects,
		ST_Distance(z.g, p.g) AS dist
	FROM zones z JOIN probes p ON z.shape && ST_Expand(p.pt, 0.005)
	WHERE z.id < 900000 AND p.kind IN ('bus', 'lattice');
	CREATE UNIQUE INDEX ON pairs (n);
	CREATE TABLE covering AS
	SELECT row_number() OVER (ORDER BY p.id) AS n, p.id AS pid,
		ARRAY(SELECT z.id FROM zones z WHERE ST_Covers(z.g, p.g) ORDER BY z.id) AS ids
	FROM probes p WHERE p.kind IN ('bus', 'lattice', 'special');
	CREATE UNIQUE INDEX ON covering (n);
	CREATE INDEX zones_geoidx ON zones USING geoidx (shape);
	ANALYZE pairs; ANALYZE covering; ANALYZE zones;
});
my ($npairs, $ncovered, $nprobes) = split /\|/, $node->safe_psql('postgres',
	'SELECT count(*), count(*) FILTER (WHERE covers), (SELECT count(*) FROM covering) FROM pairs');
diag("$npairs (zone, point) pairs, $ncovered covered; $nprobes probes by index");
cmp_ok($npairs, '>', 2000, 'pairs to ask');
cmp_ok($ncovered, '>', 300, 'covered pairs among them');

is($node->safe_psql('postgres', q{
	SELECT boot_val || ' ' || context || ' ' || vartype || ' ' || (short_desc <> '')
	FROM pg_settings WHERE name = 'geoidx.shared_prepared_memory'}),
	'262144 postmaster integer true', 'geoidx.shared_prepared_memory: 256MB, set at server start, described');
my $s0 = stats();
is($s0->{shared}, 't', 'the shared memory is there with the preload');
is($s0->{capacity}, 1024 * 1024, 'its capacity is geoidx.shared_prepared_memory');

# Two clients at once; a differing answer divides by zero and aborts the client.
my $dir = PostgreSQL::Test::Utils::tempdir;
open my $f, '>', "$dir/pairs.sql" or die;
print $f qq{\\set i random(1, $npairs)
SELECT 1 / (geoidx_covers(z.shape, p.pt) = r.covers AND geoidx_intersects(z.shape, p.pt) = r.intersects
	AND (z.shape <~> p.pt) = r.dist)::int
FROM pairs r JOIN zones z ON z.id = r.zid JOIN probes p ON p.id = r.pid WHERE r.n = :i;
\\set j random(1, $nprobes)
SELECT 1 / (ARRAY(SELECT z.id FROM zones z WHERE geoidx_covers(z.shape, p.pt) ORDER BY z.id) = c.ids)::int
FROM covering c JOIN probes p ON p.id = c.pid WHERE c.n = :j;
};
close $f;
my $transactions = $npairs;
command_ok([ 'pgbench', '-n', '-c', '2', '-j', '2', '-t', int($transactions / 2), '-f', "$dir/pairs.sql",
		'-d', $node->connstr('postgres') ],
	"two clients: $transactions pair and index answers equal to PostGIS's");

my $s1 = stats();
diag(sprintf('after the clients: %d hits, %d prepared, %d restarts, %d in a backend\'s own cache',
		$s1->{hits} - $s0->{hits}, $s1->{prepared} - $s0->{prepared}, $s1->{resets} - $s0->{resets},
		$s1->{own_cache} - $s0->{own_cache}));
cmp_ok($s1->{resets} - $s0->{resets}, '>', 5, 'the region started again many times under the clients');
cmp_ok($s1->{hits} - $s0->{hits}, '>', $s1->{prepared} - $s0->{prepared},
	'more answers from prepared polygons found than prepared');
cmp_ok($s1->{bytes}, '<=', $s1->{capacity}, 'the region never holds more than its capacity');

# One backend prepares, the next finds it: a copy of the largest neighbourhood
# (a new TOAST value, which nothing has prepared yet), stored out of line, which
# the cache knows by its TOAST pointer.
$node->safe_psql('postgres', q{
	CREATE TABLE one AS SELECT id, shape, g FROM zones WHERE id < 1000 ORDER BY ST_NPoints(shape) DESC, id LIMIT 1});
ok($node->safe_psql('postgres', 'SELECT pg_column_size(shape) > 4000 FROM one') eq 't',
	'the zone is stored out of line');
my $ask = q{SELECT geoidx_covers(shape, 'SRID=4326;POINT(-73.959 40.783)') FROM one};
my $want = $node->safe_psql('postgres',
	q{SELECT ST_Covers(g, 'SRID=4326;POINT(-73.959 40.783)'::geography) FROM one});
my $a0 = stats();
is($node->safe_psql('postgres', $ask), $want, 'a first backend: PostGIS\'s answer');
my $a1 = stats();
is($node->safe_psql('postgres', $ask), $want, 'a second backend: the same answer');
my $a2 = stats();
is($a1->{prepared} - $a0->{prepared}, 1, 'the first backend prepared the zone');
is($a2->{prepared} - $a1->{prepared}, 0, 'the second did not prepare it again');
cmp_ok($a2->{hits} - $a1->{hits}, '>=', 1, 'the second found it');

# Another database: the same TOAST table and value OIDs (a copy), its own entry.
$node->safe_psql('postgres', 'CREATE DATABASE other TEMPLATE postgres');
my $b0 = stats('other');
is($node->safe_psql('other', $ask), $want, 'another database: the same answer');
my $b1 = stats('other');
is($b1->{prepared} - $b0->{prepared}, 1, 'another database prepares its own copy of the zone');

# Larger than the region: 40,000 vertices (~1.7 MB prepared); and a line, which has none.
$node->safe_psql('postgres', q{
	CREATE TABLE big AS SELECT 1 AS id, ST_Buffer('SRID=4326;POINT(10 10)'::geometry, 5, 10000) AS shape
	UNION ALL SELECT 2, 'SRID=4326;LINESTRING(9 9, 11 11)'::geometry});
my $c0 = stats();
is($node->safe_psql('postgres', q{
	SELECT string_agg((geoidx_covers(shape, pt) = ST_Covers(shape::geography, pt::geography))::text, ',')
	FROM big, (VALUES ('SRID=4326;POINT(10 10)'::geometry), ('SRID=4326;POINT(10 16)'), ('SRID=4326;POINT(10.5 10.5)')) v(pt)}),
	'true,true,true,true,true,true', 'a polygon larger than the region, and a line: PostGIS\'s answers');
my $c1 = stats();
cmp_ok($c1->{own_cache} - $c0->{own_cache}, '>=', 1, 'the large polygon went to the backend\'s own cache');

# Without the preload: each backend's own cache, the same answers.
$node->append_conf('postgresql.conf', "shared_preload_libraries = ''\n");
$node->restart;
is(stats()->{shared}, 'f', 'no shared memory without the preload');
is($node->safe_psql('postgres', q{LOAD 'geoidx'; SELECT count(*) FROM pg_settings WHERE name = 'geoidx.shared_prepared_memory'}),
	'0', 'and no geoidx.shared_prepared_memory');
command_ok([ 'pgbench', '-n', '-c', '2', '-j', '2', '-t', int($npairs / 4), '-f', "$dir/pairs.sql",
		'-d', $node->connstr('postgres') ],
	'two clients without the preload: answers equal to PostGIS\'s');

$node->stop;
done_testing();
