# The README's table of PostGIS's SQL forms ("PostGIS's SQL, unchanged": one
# example of each), checked row by row, as the drop-in issue asks: each
# example runs on the tables the README names, with geoidx.rewrite_postgis on
# (the default). Its plan, with sequential scans disabled so that it shows what
# the index can serve, must contain the row's fragment, or read no geoidx index
# where the row says so. Where it reads one, its rows must equal PostGIS's own
# answer to the same SQL: the rewrites off and no index scan.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $readme = "$FindBin::Bin/../../README.md";
open(my $fh, '<', $readme) or die "cannot read $readme: $!";
my ($in, @rows) = (0);
while (my $line = <$fh>)
{
	$in = 1 if $line =~ /^### PostGIS's SQL, unchanged/;
	last if $in && $line =~ /^### / && $line !~ /PostGIS's SQL, unchanged/;
	next unless $in;
	# | form | `SQL` | `fragment` or "no geoidx index" |
	if ($line =~ /^\| (.+?) \| `(SELECT .+?)` \| (.+?) \|\s*$/)
	{
		my ($form, $sql, $plan) = ($1, $2, $3);
		my $fragment = $plan =~ /`([^`]+)`/ ? $1 : undef;
		die "row '$form': the last column is neither a `fragment` nor 'no geoidx index'"
			unless defined $fragment || $plan eq 'no geoidx index';
		push @rows, [ $form, $sql, $fragment ];
	}
}
close $fh;
cmp_ok(scalar @rows, '>=', 20, scalar(@rows) . ' example rows read from the README');

my $node = geoidx_node('readme_forms', conf => "client_min_messages = warning\nautovacuum = off\n");
$node->safe_psql('postgres', q{
	SELECT setseed(0.42);
	-- a dense city (Paris) and points all over the sphere
	CREATE TABLE shops (id int PRIMARY KEY, pos geometry(Point, 4326));
	INSERT INTO shops SELECT i, ST_Point(2.2 + 0.3 * random(), 48.75 + 0.2 * random(), 4326) FROM generate_series(1, 3000) i;
	INSERT INTO shops SELECT 3000 + i, ST_Point(360 * random() - 180, degrees(asin(2 * random() - 1)), 4326)
		FROM generate_series(1, 3000) i;
	CREATE INDEX shops_pos ON shops USING geoidx (pos);
	CREATE TABLE places (id int PRIMARY KEY, geog geography(Point, 4326));
	INSERT INTO places SELECT id, pos::geography FROM shops;
	CREATE INDEX places_geog ON places USING geoidx (geog);
	CREATE TABLE zones (id int PRIMARY KEY, shape geometry(Polygon, 4326));
	INSERT INTO zones SELECT i, ST_Buffer(ST_Point(2.2 + (i % 10) * 0.03, 48.75 + (i / 10) * 0.02, 4326), 0.012, 2)
		FROM generate_series(0, 99) i;
	CREATE INDEX zones_shape ON zones USING geoidx (shape);
	ANALYZE shops, places, zones;
});
my $indexes = qr/\b(shops_pos|places_geog|zones_shape)\b/;

# The rows of a query as text (sql: a SELECT whose first column is the id), in order.
sub rows_of
{
	my ($settings, $sql) = @_;
	return $node->safe_psql('postgres', "$settings\nSELECT string_agg(x::text, ',') FROM ($sql) s(x)");
}

my ($indexed, $compared) = (0, 0);
for my $row (@rows)
{
	my ($form, $sql, $fragment) = @$row;
	my $plan = $node->safe_psql('postgres',
		"SET geoidx.rewrite_postgis = on; SET enable_seqscan = off;\nEXPLAIN (COSTS OFF) $sql");
	if (!defined $fragment)
	{
		unlike($plan, $indexes, "$form: the plan reads no geoidx index, as the README says");
		next;
	}
	$indexed++;
	like($plan, qr/\Q$fragment\E/, "$form: the plan shows $fragment");
	like($plan, $indexes, "$form: the plan reads a geoidx index");
	my $got = rows_of('SET geoidx.rewrite_postgis = on;', $sql);
	my $want = rows_of('SET geoidx.rewrite_postgis = off; SET enable_indexscan = off; '
		  . 'SET enable_bitmapscan = off; SET enable_indexonlyscan = off;', $sql);
	# without an ORDER BY the order is the plan's: compare the sets
	if ($sql !~ /ORDER BY/)
	{
		$got = join(',', sort { $a <=> $b } split(/,/, $got));
		$want = join(',', sort { $a <=> $b } split(/,/, $want));
	}
	is($got, $want, "$form: PostGIS's rows (" . scalar(split(/,/, $want)) . ')');
	$compared++;
}
note("$indexed README rows served by a geoidx index, $compared compared with PostGIS's rows");
cmp_ok($indexed, '>=', 15, 'most rows of the table are served by the index');

$node->stop;
done_testing();
