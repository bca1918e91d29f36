# Physical replication: a primary with wal_consistency_checking =
# 'generic,geoidx' (every generic WAL record and every record of geoidx's own
# carries the page images it must produce, and the standby's redo fails on
# the first difference) and a streaming hot standby. Both preload geoidx, so
# an insert's leaf appends and box enlargements are geoidx's own records
# (src/pg/wal_rmgr.cc; pg_walinspect counts them); 070_filtered_knn's standby
# replays the same changes as generic WAL.
#
# The primary goes through a bulk build, inserts that split leaves, internal
# pages and the root (a table that starts as a one-leaf index and grows to
# depth 3, and a fillfactor=100 index), moving updates, deletes and VACUUM,
# REINDEX CONCURRENTLY and CREATE INDEX CONCURRENTLY under concurrent writers,
# and an UNLOGGED table. After each phase the standby catches up, and the
# index answers of both nodes (radius by index and bitmap scan, k-NN with
# distances) must equal PostGIS's by a sequential scan (ST_DWithin /
# ORDER BY ST_Distance on geography); geoidx_verify runs on the primary. While
# the primary inserts, a reader on the standby compares index and sequential
# answers in the same snapshot, so scans meet splits being replayed. Then the
# standby is promoted and written to, and everything is checked again. A table
# of shapes (polygons, lines, a pole cap, an antimeridian crossing) goes
# through the build, inserts, deletes and VACUUM beside the points. The
# growing table's index also keeps an integer category (values that are their
# own entry tags and hashed ones), so the replayed appends write its tags, and
# filtered k-NN on the standby is checked against the primary's sequential scan.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time sleep);

my $t0 = time;
my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
shared_buffers = 128MB
max_wal_size = 4GB
checkpoint_timeout = 30min
shared_preload_libraries = 'geoidx'  # the standby's copy of this file too
wal_consistency_checking = 'generic,geoidx'
wal_keep_size = 2GB  # pg_walinspect reads what the standby replayed
maintenance_work_mem = 64MB
work_mem = 32MB
hot_standby_feedback = on
jit = off
geoidx.rewrite_postgis = off  # PostGIS's SQL here is a reference
});
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION geoidx CASCADE;
	CREATE EXTENSION pg_walinspect;
	SELECT pg_create_physical_replication_slot('standby_slot');
});
my $wal_start = $primary->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', qq{
primary_slot_name = 'standby_slot'
max_standby_streaming_delay = -1
});
$standby->start;

my @hot = ([ 2.35, 48.85 ], [ -74.0, 40.7 ], [ 139.7, 35.7 ], [ 179.9, -16.5 ], [ -179.95, 65.0 ],
	[ 10.0, 89.9 ], [ 151.2, -33.9 ], [ -58.4, -34.6 ]);
my $hot_values = join(', ', map { "($_->[0], $_->[1])" } @hot);

# Points: uniform on the sphere, plus dense clusters at the hot spots (some
# across the antimeridian, one next to the pole), plus NULL and EMPTY rows.
sub points_sql
{
	my ($table, $n_uniform, $n_per_hot, $spread) = @_;
	return qq{
		INSERT INTO $table (pos)
		SELECT ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
		FROM generate_series(1, $n_uniform);
		INSERT INTO $table (pos)
		SELECT ST_SetSRID(ST_MakePoint(h.lon + $spread * (random() - 0.5),
			greatest(-90, least(90, h.lat + $spread * (random() - 0.5)))), 4326)
		FROM (VALUES $hot_values) h (lon, lat), generate_series(1, $n_per_hot);
	};
}

my ($n_phases, $n_compared, $n_rows, $n_standby, $n_verify) = (0, 0, 0, 0, 0);

sub verify_primary
{
	my ($node, @indexes) = @_;
	for my $ix (@indexes)
	{
		my ($ret, $out, $err) = $node->psql('postgres', "SELECT geoidx_verify('$ix')");
		is($ret, 0, "geoidx_verify($ix) on " . $node->name) or diag($err);
		$n_verify++;
	}
}

# Index answers on the primary (index and bitmap scans) and on the standby
# must all equal PostGIS's sequential-scan answers on the primary.
# A failure of the standby (wal_consistency_checking's "inconsistent page
# found", a redo error) ends the test with its log lines as the reason.
sub standby_failed
{
	my ($what, $err) = @_;
	my @lines = grep { /inconsistent|PANIC|FATAL|CONTEXT|terminated/ } split /\n/, slurp_file($standby->logfile);
	fail("$what: the standby keeps replaying");
	diag($err);
	diag(join("\n", @lines[ -(@lines < 20 ? @lines : 20) .. -1 ])) if @lines;
	$standby->_update_pid(-1);    # it may be gone: then the teardown must not try to stop it
	done_testing();
	exit 1;
}

sub check_phase
{
	my ($phase, $node, $replica, @tables) = @_;
	$n_phases++;
	eval { wait_for_replay($node, $replica); 1 } or standby_failed($phase, $@) if $replica;
	for my $t (@tables)
	{
		my ($table, $index, $prefix) = @$t;
		my %r = compare_with_seqscan($node, table => $table, index => $index, prefix => $prefix);
		$n_compared += $r{queries};
		$n_rows += $r{rows};
		is_deeply($r{bad}, [], "$phase: $table on " . $node->name . ": $r{queries} index answers ($r{rows} rows) equal a sequential scan");
		if ($replica)
		{
			my $sb = compare_index_answers($replica, table => $table, index => $index, prefix => $prefix);
			my $sbb = compare_index_answers($replica, table => $table, index => $index, prefix => $prefix, bitmap => 1);
			my %ref = map { my ($k, $q, $s) = split /\|/; ("$k|$q" => $s) } @{ $r{seq} };
			my @bad;
			for my $l (@$sb, @$sbb)
			{
				my ($k, $q, $a) = split /\|/, $l;
				push @bad, "$table $k query $q on the standby: $a, seq scan on the primary: " . ($ref{"$k|$q"} // 'none')
				  if ($ref{"$k|$q"} // '') ne $a;
			}
			$n_standby += @$sb + @$sbb;
			is(scalar(@$sb), $r{queries}, "$phase: $table: the standby answered every query");
			is_deeply(\@bad, [], "$phase: $table on the standby: index answers equal the primary's sequential scan");
			my $ps = geoidx_shape($node, $index);
			my $ss = geoidx_shape($replica, $index);
			is_deeply($ss, $ps, "$phase: $index has the same shape on both nodes (depth $ps->{depth}, $ps->{pages} pages, $ps->{entries} entries)");
		}
	}
	verify_primary($node, map { $_->[1] } @tables);
	diag(sprintf("%-28s %6.1f s", $phase, time - $t0));
}

# Runs pgbench on node with a custom script for seconds, in the background.
sub start_pgbench
{
	my ($node, $name, $script, $clients, $seconds) = @_;
	my $file = $node->basedir . "/$name.sql";
	PostgreSQL::Test::Utils::append_to_file($file, $script) unless -f $file;
	# output to files: a pipe nobody reads would stop pgbench, and its backends with it
	my ($out, $err) = ($node->basedir . "/$name.out", $node->basedir . "/$name.err");
	my $h = IPC::Run::start(
		[ 'pgbench', '-n', '-c', $clients, '-j', $clients, '-T', $seconds, '-f', $file, $node->connstr('postgres') ],
		'<', \undef, '>', $out, '2>', $err);
	return { h => $h, out => $out, err => $err };
}

sub finish_pgbench
{
	my ($b) = @_;
	$b->{h}->finish;
	my ($tx) = slurp_file($b->{out}) =~ /number of transactions actually processed: (\d+)/;
	ok(defined $tx && $tx > 0, "the concurrent writers ran (" . ($tx // 0) . " transactions)")
	  or diag(slurp_file($b->{err}));
	return $tx // 0;
}

# Shapes: small polygons and lines around the hot spots and anywhere.
sub zones_sql
{
	my ($n) = @_;
	return qq{INSERT INTO zones (pos)
	SELECT CASE WHEN g % 5 = 0 THEN ST_MakeLine(p, ST_Translate(p, 0.05 * random(), 0.05 * random()))
		ELSE ST_Buffer(p, 0.001 + 0.02 * random(), 2) END
	FROM (SELECT g, ST_SetSRID(ST_MakePoint(
		CASE WHEN g % 2 = 0 THEN (ARRAY[2.35, -74.0, 139.7, 179.9])[1 + g % 4] + 0.5 * (random() - 0.5) ELSE 360 * random() - 180 END,
		CASE WHEN g % 2 = 0 THEN (ARRAY[48.85, 40.7, 35.7, -16.5])[1 + g % 4] + 0.5 * (random() - 0.5) ELSE degrees(asin(1.8 * random() - 0.9)) END), 4326) AS p
	FROM generate_series(1, $n) g) s;
	};
}

# --- 1. bulk build -----------------------------------------------------------
$primary->safe_psql('postgres', q{SELECT setseed(0.2020)} . qq{;
	CREATE TABLE pts (id bigserial PRIMARY KEY, pos geometry(Point, 4326));
	} . points_sql('pts', 42000, 1000, 0.6) . q{
	INSERT INTO pts (pos) SELECT NULL FROM generate_series(1, 50);
	INSERT INTO pts (pos) SELECT 'SRID=4326;POINT EMPTY' FROM generate_series(1, 50);
	CREATE INDEX pts_pos_idx ON pts USING geoidx (pos) WITH (fillfactor = 100);
	CREATE TABLE grow (id bigserial PRIMARY KEY, pos geometry(Point, 4326),
		cat int GENERATED ALWAYS AS ((id * 7919 % 150)::int) STORED);
	} . points_sql('grow', 50, 5, 0.6) . q{
	CREATE INDEX grow_pos_idx ON grow USING geoidx (pos, cat);
	CREATE TABLE zones (id bigserial PRIMARY KEY, pos geometry);
	} . zones_sql(2500) . q{
	INSERT INTO zones (pos) VALUES ('SRID=4326;POLYGON((0 80, 90 80, 180 80, -90 80, 0 80))'),
		('SRID=4326;POLYGON((179.5 -16, 180.5 -16, 180.5 -17, 179.5 -17, 179.5 -16))'),
		('SRID=4326;LINESTRING(170 10, -170 12)'), (NULL), ('SRID=4326;POLYGON EMPTY');
	CREATE INDEX zones_pos_idx ON zones USING geoidx (pos);
	ANALYZE pts; ANALYZE grow; ANALYZE zones;
});
create_queries($primary, prefix => 'zones', nradius => 4, nknn => 2, seed => 0.13, hot => \@hot);
create_queries($primary, prefix => 'pts', nradius => 6, nknn => 3, seed => 0.11, hot => \@hot);
create_queries($primary, prefix => 'grow', nradius => 4, nknn => 2, seed => 0.12, hot => \@hot);
my $npts = $primary->safe_psql('postgres', 'SELECT count(*) FROM pts');
cmp_ok($npts, '>=', 50000, "bulk build over $npts rows");
my $shape = geoidx_shape($primary, 'pts_pos_idx');
is($shape->{depth}, 3, 'the bulk-built fillfactor=100 index has depth 3');
is(geoidx_shape($primary, 'grow_pos_idx')->{depth}, 1, 'grow starts as a one-leaf index');
check_phase('bulk build', $primary, $standby, [ 'pts', 'pts_pos_idx', 'pts' ], [ 'grow', 'grow_pos_idx', 'grow' ],
	[ 'zones', 'zones_pos_idx', 'zones' ]);

# --- 2. inserts: leaf, internal and root splits, with hot standby readers ------
my $before = geoidx_shape($primary, 'pts_pos_idx');
my ($ins_out, $ins_err) = ('', '');
my $ins_sql = join('', map {
	"BEGIN; SELECT setseed(0.3$_);" . points_sql('grow', 5000, 500, ($_ % 2 ? 0.05 : 2)) . points_sql('pts', 1000, 200, 0.4)
	  . zones_sql(400) . "COMMIT;\n"
} 1 .. 7);
my $writer = IPC::Run::start(
	[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $primary->connstr('postgres'), '-c', $ins_sql ],
	'>', \$ins_out, '2>', \$ins_err);
my ($reads, $read_bad, $read_rows) = (0, 0, 0);
while ($writer->pumpable)
{
	# one statement, one snapshot: index answers against a sequential scan while replay goes on
	my %r;
	eval {
		%r = compare_with_seqscan($standby, table => 'grow', index => 'grow_pos_idx', prefix => 'grow',
			rwhere => 'q.qid IN (1, 2)', kwhere => 'q.qid = 1', nobitmap => 1);
		1;
	} or standby_failed('hot standby reader', $@);
	$reads += $r{queries};
	$read_rows += $r{rows};
	$read_bad += @{ $r{bad} };
	diag(join("\n", @{ $r{bad} })) if @{ $r{bad} };
	$writer->pump_nb;
}
ok($writer->finish, 'the inserts on the primary succeeded') or diag($ins_err);
cmp_ok($reads, '>', 0, "hot standby readers ran during replay ($reads queries, $read_rows rows)");
is($read_bad, 0, 'hot standby readers saw the same answers by index and by sequential scan during replay');
my $after = geoidx_shape($primary, 'pts_pos_idx');
my $grow = geoidx_shape($primary, 'grow_pos_idx');
cmp_ok($grow->{depth}, '>=', 3, "grow reached depth $grow->{depth} by root splits ($grow->{entries} entries, $grow->{internal_pages} internal pages)");
cmp_ok($after->{internal_pages}, '>', $before->{internal_pages},
	"pts_pos_idx split internal pages ($before->{internal_pages} -> $after->{internal_pages}; leaves $before->{leaf_pages} -> $after->{leaf_pages})");
check_phase('inserts and splits', $primary, $standby, [ 'pts', 'pts_pos_idx', 'pts' ], [ 'grow', 'grow_pos_idx', 'grow' ],
	[ 'zones', 'zones_pos_idx', 'zones' ]);

# the 20 nearest of a category by the standby's index (its tags replayed), against the primary's heap
for my $cond ('cat = 7', 'cat = 140', 'cat IN (7, 149)')
{
	for my $c ([ 2.35, 48.85 ], [ -74.0, 40.7 ], [ 179.9, -16.5 ])
	{
		my $pt = "ST_SetSRID(ST_MakePoint($c->[0], $c->[1]), 4326)";
		my $idx = $standby->safe_psql('postgres', qq{SET enable_seqscan = off; SET enable_bitmapscan = off;
			SELECT string_agg(round((pos <~> $pt)::numeric, 6)::text, ',') FROM (
				SELECT pos FROM grow WHERE $cond ORDER BY pos <~> $pt LIMIT 20) a});
		my $ref = $primary->safe_psql('postgres', qq{SET enable_indexscan = off; SET enable_bitmapscan = off;
			SELECT string_agg(round(d::numeric, 6)::text, ',' ORDER BY d) FROM (
				SELECT ST_Distance(pos::geography, ${pt}::geography) d FROM grow
				 WHERE $cond AND pos IS NOT NULL ORDER BY 1 LIMIT 20) a});
		is($idx, $ref, "standby: the 20 nearest with $cond at ($c->[0] $c->[1]) equal the primary's geography");
	}
}

# --- 3. updates that move points -------------------------------------------------
$primary->safe_psql('postgres', qq{
	SELECT setseed(0.44);
	UPDATE pts SET pos = ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
	WHERE id % 5 = 0 AND pos IS NOT NULL;
	UPDATE pts p SET pos = ST_SetSRID(ST_MakePoint(h.lon + 0.3 * (random() - 0.5), h.lat + 0.05 * (random() - 0.5)), 4326)
	FROM (VALUES $hot_values) h (lon, lat)
	WHERE p.id % 97 = 1 AND h.lon = (ARRAY[2.35, -74.0, 139.7, 179.9])[1 + p.id % 4];
	UPDATE grow SET pos = ST_SetSRID(ST_MakePoint(ST_X(pos) + 0.01, ST_Y(pos) - 0.01), 4326) WHERE id % 3 = 0;
});
check_phase('moving updates', $primary, $standby, [ 'pts', 'pts_pos_idx', 'pts' ], [ 'grow', 'grow_pos_idx', 'grow' ]);

# --- 4. deletes and VACUUM -----------------------------------------------------
my $vac = $primary->safe_psql('postgres', q{
	DELETE FROM pts WHERE id % 7 = 3;
	DELETE FROM grow WHERE id % 4 = 1;
	DELETE FROM zones WHERE id % 3 = 1;
	VACUUM pts; VACUUM grow; VACUUM zones;
	SELECT count(*) FROM pts});
check_phase('deletes and VACUUM', $primary, $standby, [ 'pts', 'pts_pos_idx', 'pts' ], [ 'grow', 'grow_pos_idx', 'grow' ],
	[ 'zones', 'zones_pos_idx', 'zones' ]);

# --- 5. REINDEX CONCURRENTLY and 6. CREATE INDEX CONCURRENTLY, under writers ----
my $writes = q{
\set a random(1, 1000000)
BEGIN;
INSERT INTO pts (pos) SELECT ST_SetSRID(ST_MakePoint(2.35 + 0.6 * (random() - 0.5), 48.85 + 0.6 * (random() - 0.5)), 4326) FROM generate_series(1, 5);
INSERT INTO grow (pos) SELECT ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326) FROM generate_series(1, 5);
UPDATE pts SET pos = ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326) WHERE id = :a;
UPDATE grow SET pos = ST_SetSRID(ST_MakePoint(-74.0 + 0.6 * (random() - 0.5), 40.7 + 0.6 * (random() - 0.5)), 4326) WHERE id = :a % 40000;
DELETE FROM pts WHERE id = :a % 60000 + 7;
COMMIT;
};
my $bench = start_pgbench($primary, 'writers', $writes, 2, 8);
sleep(1);
$primary->safe_psql('postgres', 'REINDEX INDEX CONCURRENTLY pts_pos_idx');
finish_pgbench($bench);
check_phase('REINDEX CONCURRENTLY', $primary, $standby, [ 'pts', 'pts_pos_idx', 'pts' ]);

$bench = start_pgbench($primary, 'writers', $writes, 2, 8);
sleep(1);
$primary->safe_psql('postgres', q{
	DROP INDEX grow_pos_idx;
	CREATE INDEX CONCURRENTLY grow_pos_idx ON grow USING geoidx (pos, cat);
});
finish_pgbench($bench);
is($primary->safe_psql('postgres', q{SELECT indisvalid AND indisready FROM pg_index WHERE indexrelid = 'grow_pos_idx'::regclass}),
	't', 'the concurrently built index is valid');
check_phase('CREATE INDEX CONCURRENTLY', $primary, $standby, [ 'grow', 'grow_pos_idx', 'grow' ], [ 'pts', 'pts_pos_idx', 'pts' ]);

# --- 7. an UNLOGGED table ----------------------------------------------------------
$primary->safe_psql('postgres', q{SELECT setseed(0.77);
	CREATE UNLOGGED TABLE u (id bigserial PRIMARY KEY, pos geometry(Point, 4326));
	} . points_sql('u', 8000, 500, 1) . q{
	CREATE INDEX u_pos_idx ON u USING geoidx (pos);
	CREATE UNLOGGED TABLE u2 (id bigserial PRIMARY KEY, pos geometry(Point, 4326));
	CREATE INDEX u2_pos_idx ON u2 USING geoidx (pos);
	} . points_sql('u', 4000, 300, 0.1) . points_sql('u2', 4000, 300, 0.1) . q{
	ANALYZE u; ANALYZE u2;
});
create_queries($primary, prefix => 'u', nradius => 4, nknn => 2, seed => 0.13, hot => \@hot);
check_phase('UNLOGGED (primary)', $primary, undef, [ 'u', 'u_pos_idx', 'u' ], [ 'u2', 'u2_pos_idx', 'u' ]);
eval { wait_for_replay($primary, $standby); 1 } or standby_failed('UNLOGGED', $@);
my ($ret, $out, $err) = $standby->psql('postgres', 'SELECT count(*) FROM u');
like($err, qr/cannot access temporary or unlogged relations during recovery/, 'the standby refuses the unlogged table as PostgreSQL does');
is($standby->safe_psql('postgres', 'SELECT count(*) FROM pts'), $primary->safe_psql('postgres', 'SELECT count(*) FROM pts'),
	'the standby still replays and answers after the unlogged index was built');

# --- 8. promotion, and writes on the new primary ---------------------------------
eval { wait_for_replay($primary, $standby); 1 } or standby_failed('before promotion', $@);
my $wal = wal_record_counts($primary, $wal_start);
my $generic = $wal->{Generic} // 0;
cmp_ok($wal->{'geoidx/LEAF_APPEND'} // 0, '>', 0, "the standby replayed geoidx's own leaf appends (" . ($wal->{'geoidx/LEAF_APPEND'} // 0) . ')');
cmp_ok($wal->{'geoidx/ENTRY_ENLARGE'} // 0, '>', 0, "the standby replayed geoidx's own enlargements (" . ($wal->{'geoidx/ENTRY_ENLARGE'} // 0) . ')');
cmp_ok($generic, '>', 0, "the standby replayed generic WAL records: splits and VACUUM ($generic)");
$primary->stop('fast');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'the standby was not promoted';
is($standby->safe_psql('postgres', 'SELECT count(*) FROM u') . '/' . $standby->safe_psql('postgres', 'SELECT count(*) FROM u2'),
	'0/0', 'the unlogged tables are empty after promotion');
($ret, $out, $err) = $standby->psql('postgres', q{SET enable_seqscan = off; SELECT count(*) FROM u WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(0 0)', 1e7)});
is($ret . $out, '00', 'the unlogged index was reset to its init fork: an empty, readable index') or diag($err);
$standby->safe_psql('postgres', q{SELECT setseed(0.88);} . points_sql('u', 6000, 400, 0.2) . points_sql('u2', 300, 20, 0.2)
	  . q{SELECT setseed(0.99);} . points_sql('pts', 4000, 1500, 0.2) . points_sql('grow', 6000, 600, 0.05) . q{
	UPDATE pts SET pos = ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326) WHERE id % 11 = 0;
	DELETE FROM grow WHERE id % 9 = 2;
	VACUUM pts; VACUUM grow; ANALYZE u; ANALYZE u2;
});
cmp_ok(geoidx_shape($standby, 'u_pos_idx')->{depth}, '>=', 2, 'the unlogged index split its root on the promoted node');
check_phase('promoted standby', $standby, undef, [ 'pts', 'pts_pos_idx', 'pts' ], [ 'grow', 'grow_pos_idx', 'grow' ],
	[ 'u', 'u_pos_idx', 'u' ], [ 'u2', 'u2_pos_idx', 'u' ]);

diag(sprintf('standby: %d phases, %d index-vs-sequential comparisons (%d reference rows), %d standby answers compared, '
	  . '%d hot standby reads during replay (%d rows), %d geoidx_verify runs, %.0f s',
	$n_phases, $n_compared, $n_rows, $n_standby, $reads, $read_rows, $n_verify, time - $t0));
$standby->stop;
done_testing();
