# pg_dump and pg_restore of a database with geoidx indexes of every kind:
# single-column, multicolumn with INCLUDE and a reloption, on geography, on a
# partitioned table, on an UNLOGGED table, and one built CONCURRENTLY. Dumped
# in the custom format (restored by pg_restore) and in the plain format
# (restored by psql) into new databases. In each restored database: the same
# index definitions, the indexes used by the same queries, geoidx_verify
# clean, and every answer equal to PostGIS by a sequential scan in that
# database and to the source database's answers. Deterministic (setseed).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = geoidx_node('dump', conf => "jit = off\nclient_min_messages = warning\n");

$node->safe_psql('postgres', q{
	SELECT setseed(0.808);
	CREATE TABLE pts (id int PRIMARY KEY, pos geometry(Point, 4326), cat int, name text);
	INSERT INTO pts SELECT g,
		CASE WHEN g % 97 = 0 THEN NULL WHEN g % 89 = 0 THEN 'SRID=4326;POINT EMPTY'::geometry
		     ELSE ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326) END,
		g % 50, 'p' || g
	FROM generate_series(1, 20000) g;
	CREATE INDEX pts_pos ON pts USING geoidx (pos);
	CREATE INDEX pts_pos_cat ON pts USING geoidx (pos, cat) INCLUDE (name) WITH (fillfactor = 70);

	CREATE TABLE geog (id int PRIMARY KEY, g geography(Point, 4326));
	INSERT INTO geog SELECT id, pos::geography FROM pts WHERE id % 3 = 0 AND NOT ST_IsEmpty(pos);
	CREATE INDEX geog_g ON geog USING geoidx (g);

	CREATE TABLE part (id int, region int, pos geometry(Point, 4326)) PARTITION BY LIST (region);
	CREATE TABLE part_0 PARTITION OF part FOR VALUES IN (0);
	CREATE TABLE part_1 PARTITION OF part FOR VALUES IN (1);
	INSERT INTO part SELECT id, id % 2, pos FROM pts WHERE id % 5 = 0;
	CREATE INDEX part_pos ON part USING geoidx (pos);

	CREATE UNLOGGED TABLE unl (id int PRIMARY KEY, pos geometry(Point, 4326));
	INSERT INTO unl SELECT id, pos FROM pts WHERE id % 7 = 0;
	CREATE INDEX unl_pos ON unl USING geoidx (pos);
});
$node->safe_psql('postgres', 'CREATE INDEX CONCURRENTLY pts_pos_conc ON pts USING geoidx (pos) WITH (fillfactor = 100)');
$node->safe_psql('postgres', 'ANALYZE');

# [table, what the query uses as the point, query through the index, the same by PostGIS]
my @centres = ([ 10, 20 ], [ -179.5, -60 ], [ 120, 89.5 ], [ 0, 0 ]);
my @queries;
for my $c (@centres)
{
	my ($lon, $lat) = @$c;
	my $pt = "ST_Point($lon, $lat, 4326)";
	push @queries,
	  [ 'pts radius', "SELECT string_agg(id::text, ',' ORDER BY id) FROM pts WHERE geoidx_dwithin(pos, $pt, 800000)",
		"SELECT string_agg(id::text, ',' ORDER BY id) FROM pts WHERE ST_DWithin(pos::geography, ${pt}::geography, 800000)" ],
	  [ 'pts k-NN', "SELECT string_agg(id::text, ',' ORDER BY d, id) FROM (SELECT id, pos <~> $pt AS d FROM pts ORDER BY pos <~> $pt LIMIT 25) s",
		"SELECT string_agg(id::text, ',' ORDER BY d, id) FROM (SELECT id, ST_Distance(pos::geography, ${pt}::geography) AS d FROM pts WHERE NOT ST_IsEmpty(pos) ORDER BY 2 LIMIT 25) s" ],
	  [ 'pts filtered k-NN', "SELECT string_agg(id::text || name, ',' ORDER BY d, id) FROM (SELECT id, name, pos <~> $pt AS d FROM pts WHERE cat = 7 ORDER BY pos <~> $pt LIMIT 10) s",
		"SELECT string_agg(id::text || name, ',' ORDER BY d, id) FROM (SELECT id, name, ST_Distance(pos::geography, ${pt}::geography) AS d FROM pts WHERE cat = 7 AND NOT ST_IsEmpty(pos) ORDER BY 3 LIMIT 10) s" ],
	  [ 'geog k-NN', "SELECT string_agg(id::text, ',' ORDER BY d, id) FROM (SELECT id, g <~> ${pt}::geography AS d FROM geog ORDER BY g <~> ${pt}::geography LIMIT 25) s",
		"SELECT string_agg(id::text, ',' ORDER BY d, id) FROM (SELECT id, ST_Distance(g, ${pt}::geography) AS d FROM geog ORDER BY 2 LIMIT 25) s" ],
	  [ 'part radius', "SELECT string_agg(id::text, ',' ORDER BY id) FROM part WHERE geoidx_dwithin(pos, $pt, 1500000)",
		"SELECT string_agg(id::text, ',' ORDER BY id) FROM part WHERE ST_DWithin(pos::geography, ${pt}::geography, 1500000)" ],
	  [ 'unl k-NN', "SELECT string_agg(id::text, ',' ORDER BY d, id) FROM (SELECT id, pos <~> $pt AS d FROM unl ORDER BY pos <~> $pt LIMIT 25) s",
		"SELECT string_agg(id::text, ',' ORDER BY d, id) FROM (SELECT id, ST_Distance(pos::geography, ${pt}::geography) AS d FROM unl WHERE NOT ST_IsEmpty(pos) ORDER BY 2 LIMIT 25) s" ];
}
my $index_only = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $seq_only = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';

my $indexdefs = q{SELECT string_agg(c.relname || ': ' || pg_get_indexdef(i.indexrelid), E'\n' ORDER BY c.relname)
	FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'geoidx'};
# raises an error naming the index and the fault, if any
my $verify = q{SELECT count(geoidx_verify(c.oid::regclass)::text IS NULL)
	FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'geoidx' AND c.relkind = 'i'};

# The answers of one database, each checked against PostGIS there, and that
# every query's plan uses a geoidx index.
sub answers
{
	my ($db) = @_;
	my @out;
	for my $q (@queries)
	{
		my ($what, $iq, $sq) = @$q;
		my $plan = $node->safe_psql($db, "$index_only EXPLAIN (COSTS OFF) $iq");
		like($plan, qr/Index (Only )?Scan using (pts_pos\w*|geog_g|part_\d_pos_idx|unl_pos) /,
			"$db: $what uses a geoidx index") or diag($plan);
		my $got = $node->safe_psql($db, "$index_only $iq");
		my $want = $node->safe_psql($db, "$seq_only $sq");
		is($got, $want, "$db: $what equals PostGIS by a sequential scan");
		push @out, $got;
	}
	return \@out;
}

my $src_defs = $node->safe_psql('postgres', $indexdefs);
# three on pts, one each on geog and unl, and the partitions' two (the
# partitioned index itself has no storage to verify)
my $nindexes = $node->safe_psql('postgres', $verify);
is($nindexes, 7, 'the source database has its 7 geoidx indexes with storage, and they verify');
my $src = answers('postgres');
ok(length(join('', @$src)) > 1000, 'the source answers are not empty');

my $dumpdir = PostgreSQL::Test::Utils::tempdir();
my $port = $node->port;
my $host = $node->host;
my @conn = ('-h', $host, '-p', $port);

# custom format, pg_restore
$node->command_ok([ 'pg_dump', @conn, '-Fc', '-f', "$dumpdir/db.dump", 'postgres' ], 'pg_dump -Fc');
$node->safe_psql('postgres', 'CREATE DATABASE restored_custom');
$node->command_ok([ 'pg_restore', @conn, '--exit-on-error', '-d', 'restored_custom', "$dumpdir/db.dump" ],
	'pg_restore of the custom format');

# plain format, psql
$node->command_ok([ 'pg_dump', @conn, '-Fp', '-f', "$dumpdir/db.sql", 'postgres' ], 'pg_dump -Fp');
$node->safe_psql('postgres', 'CREATE DATABASE restored_plain');
$node->command_ok([ 'psql', '-X', '-q', @conn, '-v', 'ON_ERROR_STOP=1', '-d', 'restored_plain', '-f', "$dumpdir/db.sql" ],
	'psql restores the plain format');

for my $db ('restored_custom', 'restored_plain')
{
	is($node->safe_psql($db, q{SELECT extversion FROM pg_extension WHERE extname = 'geoidx'}),
		$node->safe_psql('postgres', q{SELECT extversion FROM pg_extension WHERE extname = 'geoidx'}),
		"$db: the extension at the same version");
	is($node->safe_psql($db, $indexdefs), $src_defs, "$db: the same geoidx index definitions");
	is($node->safe_psql($db, q{SELECT relpersistence FROM pg_class WHERE relname = 'unl_pos'}), 'u',
		"$db: the UNLOGGED table's index is unlogged");
	my ($ret, $nverified, $err) = $node->psql($db, $verify);
	is("$ret/$nverified", "0/$nindexes", "$db: geoidx_verify passes on every geoidx index") or diag($err);
	my $got = answers($db);
	is_deeply($got, $src, "$db: every answer equals the source database's");
}

done_testing();
