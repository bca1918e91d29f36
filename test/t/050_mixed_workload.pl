# Mixed workload: 8 pgbench clients run radius and k-NN queries, inserts,
# moving-point updates, deletes and VACUUM against one geoidx index at once;
# then geoidx_verify, and every radius and k-NN answer must equal PostGIS's by
# a sequential scan. 60 s by default, 10 minutes with GEOIDX_SOAK=1.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $seconds = soak() ? 600 : 60;
my $node = geoidx_node('mixed', conf => "autovacuum = off\nmax_connections = 40\n");
$node->safe_psql('postgres', q{
	SELECT setseed(0.31);
	CREATE TABLE pts (id serial PRIMARY KEY, pos geometry(Point, 4326));
	-- a dense city-sized cluster (many splits), a band over the antimeridian, the rest of the world
	INSERT INTO pts (pos)
	SELECT ST_SetSRID(ST_MakePoint(13.4 + 0.5 * (random() - 0.5), 52.5 + 0.5 * (random() - 0.5)), 4326) FROM generate_series(1, 20000);
	INSERT INTO pts (pos)
	SELECT ST_SetSRID(ST_MakePoint(CASE WHEN random() < 0.5 THEN 179 + random() ELSE -180 + random() END, 40 * random() - 20), 4326)
	FROM generate_series(1, 5000);
	INSERT INTO pts (pos)
	SELECT ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326) FROM generate_series(1, 25000);
	CREATE INDEX pts_idx ON pts USING geoidx (pos);
});
create_queries($node, prefix => 'mq', nradius => 40, nknn => 20, seed => 0.77,
	hot => [ [ 13.4, 52.5 ], [ 180, 0 ], [ -179.5, 10 ] ]);

my $dir = PostgreSQL::Test::Utils::tempdir();
my %scripts = (
	radius => q{
\set lon random(13150, 13650)
\set lat random(52250, 52750)
\set r random(100, 20000)
SELECT count(*) FROM pts WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(:lon / 1000.0, :lat / 1000.0), 4326), :r);
},
	knn => q{
\set lon random(-180000, 180000)
\set lat random(-80000, 80000)
SELECT id FROM pts ORDER BY pos <~> ST_SetSRID(ST_MakePoint(:lon / 1000.0, :lat / 1000.0), 4326) LIMIT 10;
},
	insert => q{
\set lon random(13150, 13650)
\set lat random(52250, 52750)
INSERT INTO pts (pos) VALUES (ST_SetSRID(ST_MakePoint(:lon / 1000.0, :lat / 1000.0), 4326));
},
	update => q{
\set id random(1, 50000)
\set dx random(-500, 500)
\set dy random(-500, 500)
UPDATE pts SET pos = ST_SetSRID(ST_MakePoint(least(180, greatest(-180, ST_X(pos) + :dx / 10000.0)), least(90, greatest(-90, ST_Y(pos) + :dy / 10000.0))), 4326) WHERE id = :id;
},
	delete => q{
\set id random(1, 60000)
DELETE FROM pts WHERE id = :id;
},
	vacuum => q{
VACUUM pts;
},
);
for my $name (keys %scripts)
{
	open my $fh, '>', "$dir/$name.sql" or die $!;
	print $fh $scripts{$name};
	close $fh;
}

my ($out, $err) = run_command([
	'pgbench', '-n', '-c', '8', '-j', '2', '-T', $seconds,
	'-f', "$dir/radius.sql\@30", '-f', "$dir/knn.sql\@30", '-f', "$dir/insert.sql\@15",
	'-f', "$dir/update.sql\@15", '-f', "$dir/delete.sql\@8", '-f', "$dir/vacuum.sql\@2",
	$node->connstr('postgres') ]);
my ($tx) = $out =~ /number of transactions actually processed: (\d+)/;
my ($failed) = $out =~ /number of failed transactions: (\d+)/;
ok(defined $tx && $tx > 0, "pgbench ran ${\($tx // 0)} transactions in $seconds s with 8 clients");
unlike($err . $out, qr/aborted|ERROR|FATAL/i, 'no client aborted, no error');
is($failed // 0, 0, 'no failed transaction');
ok($node->safe_psql('postgres', 'SELECT 1') eq '1', 'the server is up');

$node->safe_psql('postgres', q{SELECT geoidx_verify('pts_idx')});
pass('geoidx_verify after the mixed workload');
my $stats = $node->safe_psql('postgres', q{SELECT pages, entries, depth, incomplete_splits FROM geoidx_stats('pts_idx')});

my %c = compare_with_seqscan($node, table => 'pts', prefix => 'mq', index => 'pts_idx');
is_deeply($c{bad}, [], "$c{queries} radius and k-NN answers equal a sequential scan ($c{rows} rows)");

$node->safe_psql('postgres', 'VACUUM pts');
$node->safe_psql('postgres', q{SELECT geoidx_verify('pts_idx')});
%c = compare_with_seqscan($node, table => 'pts', prefix => 'mq', index => 'pts_idx');
is_deeply($c{bad}, [], "and again after a final VACUUM ($c{rows} rows)");

diag("mixed workload: $tx transactions in $seconds s; index pages|entries|depth|unfinished splits: $stats");
$node->stop;
done_testing();
