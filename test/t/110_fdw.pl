# postgres_fdw shards: a table hash-partitioned by tenant whose partitions
# are foreign tables on a second cluster, through a server with
# extensions 'postgis, geoidx' (postgis too: a geometry constant is shipped
# only when its type's extension is listed). geoidx_dwithin, <~> and the rewritten forms
# (pos <~> c < x, NOT geoidx_dwithin) are shipped in the remote SQL, the
# remote side answers them from its geoidx indexes, and every answer equals
# the same rows in a local table (through its own geoidx index) and PostGIS
# geography by a sequential scan: radius, k-NN (distances; the lattice's
# twins tie), filtered k-NN, rings.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $remote = geoidx_node('fdw_remote');
my $local = geoidx_node('fdw_local');

# 60k rows: a lattice with every position twice, NULL and EMPTY points, the
# antimeridian; tenant 0..29. Shard 0 and 1 hold the rows whose tenant hashes
# to them (the local partition bounds route each row), shard 1 with tenant in
# its index too.
my $rows = q{
	SELECT i AS id, i % 30 AS tenant,
		CASE WHEN i % 997 = 0 THEN NULL
		     WHEN i % 991 = 0 THEN 'SRID=4326;POINT EMPTY'::geometry
		     WHEN i % 983 = 0 THEN ST_SetSRID(ST_MakePoint(180, (i % 161) - 80), 4326)
		     ELSE ST_SetSRID(ST_MakePoint(((i / 2) % 300) * 1.2 - 180, ((i / 2) / 300) * 1.6 - 80), 4326) END AS pos
	FROM generate_series(0, 59999) i};
$remote->safe_psql('postgres', q{
	CREATE TABLE shard0 (id int, tenant int, pos geometry(Point, 4326));
	CREATE TABLE shard1 (id int, tenant int, pos geometry(Point, 4326));
	CREATE INDEX shard0_pos ON shard0 USING geoidx (pos);
	CREATE INDEX shard1_pos ON shard1 USING geoidx (pos, tenant);
});
$local->safe_psql('postgres', sprintf(q{
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER shards FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '%s', port '%d', dbname 'postgres', extensions 'postgis, geoidx');
	CREATE USER MAPPING FOR CURRENT_USER SERVER shards;
	CREATE TABLE fleet (id int, tenant int, pos geometry(Point, 4326)) PARTITION BY HASH (tenant);
	CREATE FOREIGN TABLE fleet0 PARTITION OF fleet FOR VALUES WITH (MODULUS 2, REMAINDER 0)
		SERVER shards OPTIONS (table_name 'shard0');
	CREATE FOREIGN TABLE fleet1 PARTITION OF fleet FOR VALUES WITH (MODULUS 2, REMAINDER 1)
		SERVER shards OPTIONS (table_name 'shard1');
	INSERT INTO fleet %s;
	CREATE TABLE flat AS %s;
	CREATE INDEX flat_pos ON flat USING geoidx (pos, tenant);
	ANALYZE flat;
}, $remote->host, $remote->port, $rows, $rows));
$remote->safe_psql('postgres', 'ANALYZE shard0; ANALYZE shard1');
$local->safe_psql('postgres', 'ANALYZE fleet');
is($remote->safe_psql('postgres', 'SELECT (SELECT count(*) FROM shard0) + (SELECT count(*) FROM shard1), (SELECT count(*) FROM shard0) > 20000'),
	'60000|t', 'the rows live on the remote cluster, split between the shards');

# What the local planner sends: the geoidx calls, shipped.
sub remote_sql
{
	my ($sql) = @_;
	my $plan = $local->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $sql");
	return join("\n", grep { /Remote SQL/ } split /\n/, $plan);
}
my $c = q{'SRID=4326;POINT(-73.9 40.7)'::geometry};
like(remote_sql("SELECT id FROM fleet WHERE geoidx_dwithin(pos, $c, 500000)"),
	qr/WHERE \(public\.geoidx_dwithin\(pos, .*500000.*\n.*WHERE \(public\.geoidx_dwithin/,
	'geoidx_dwithin is shipped to both shards');
like(remote_sql("SELECT id FROM fleet ORDER BY pos <~> $c LIMIT 10"),
	qr/ORDER BY \(pos OPERATOR\(public\.<~>\) .*\n.*ORDER BY \(pos OPERATOR\(public\.<~>\)/,
	'ORDER BY <~> is shipped to both shards');
# as written, or as geoidx's rewrite of it where this session has loaded the
# library (the remote side rewrites it into its index condition either way)
like(remote_sql("SELECT id FROM fleet WHERE pos <~> $c < 300000"),
	qr/WHERE (\(public\.geoidx_nearer\(pos, |\(\(\(pos OPERATOR\(public\.<~>\) .*\) < 300000)/,
	'pos <~> c < x is shipped');
like(remote_sql("SELECT id FROM fleet WHERE NOT geoidx_dwithin(pos, $c, 9000000)"),
	qr/WHERE (\(public\.geoidx_outside\(pos, |\(NOT public\.geoidx_dwithin\(pos, )/,
	'NOT geoidx_dwithin is shipped');
my $pruned = remote_sql("SELECT id FROM fleet WHERE tenant IN (3) ORDER BY pos <~> $c LIMIT 10");
is(scalar(() = $pruned =~ /Remote SQL/g), 1, 'tenant IN (3) reaches one shard');

# Answers: the foreign shards, the local table's geoidx index, and PostGIS
# geography by a sequential scan of the local table.
my $set = q{SELECT count(*) || ':' || coalesce(sum(hashint4(id)), 0) FROM %s WHERE %s};
my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off; ';
my $seq = 'SET enable_indexscan = off; SET enable_bitmapscan = off; ';
my @centres = ([-73.9, 40.7], [179.9, 12.8], [0, -79.9], [120.6, 33.6]);
for my $ctr (@centres)
{
	my $p = sprintf(q{'SRID=4326;POINT(%s %s)'::geometry}, @$ctr);
	for my $r (100, 250000, 2000000)
	{
		my $fdw = $local->safe_psql('postgres', sprintf($set, 'fleet', "geoidx_dwithin(pos, $p, $r)"));
		my $flat = $local->safe_psql('postgres', $idx . sprintf($set, 'flat', "geoidx_dwithin(pos, $p, $r)"));
		my $pg = $local->safe_psql('postgres', $seq . sprintf($set, 'flat', "ST_DWithin(pos::geography, ${p}::geography, $r)"));
		is($fdw, $pg, "radius $r m of (@$ctr) over the shards: PostGIS geography's rows");
		is($flat, $pg, "radius $r m of (@$ctr) in the local table: PostGIS geography's rows");
	}
	my $ring = "pos <~> $p >= 100000 AND pos <~> $p < 900000";
	is($local->safe_psql('postgres', sprintf($set, 'fleet', $ring)),
		$local->safe_psql('postgres', $seq . sprintf($set, 'flat',
			"ST_Distance(pos::geography, ${p}::geography) >= 100000 AND ST_Distance(pos::geography, ${p}::geography) < 900000")),
		"ring 100-900 km of (@$ctr) over the shards: PostGIS geography's rows");
	my $knn = q{SELECT string_agg(round(d::numeric, 6)::text, ',' ORDER BY d) FROM (SELECT %s AS d FROM %s
		WHERE pos IS NOT NULL AND NOT ST_IsEmpty(pos) %s ORDER BY %s LIMIT %d) s};
	for my $k (1, 10, 100)
	{
		for my $filter ('', 'AND tenant IN (4, 17)', 'AND tenant = 9')
		{
			my $fdw = $local->safe_psql('postgres', sprintf($knn, "pos <~> $p", 'fleet', $filter, "pos <~> $p", $k));
			my $pg = $local->safe_psql('postgres', $seq . sprintf($knn,
				"ST_Distance(pos::geography, ${p}::geography)", 'flat', $filter, "ST_Distance(pos::geography, ${p}::geography)", $k));
			is($fdw, $pg, "$k nearest to (@$ctr) $filter over the shards: PostGIS geography's distances");
		}
	}
}

# the shards answered from their geoidx indexes (a remote backend reports its
# counts as it exits, after the local session that opened it)
ok($remote->poll_query_until('postgres', q{SELECT bool_and(idx_scan > 0) FROM pg_stat_user_indexes
	WHERE indexrelname IN ('shard0_pos', 'shard1_pos')}), 'the remote side used its geoidx indexes');

done_testing();
