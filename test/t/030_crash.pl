# Crash recovery, with wal_consistency_checking = 'generic,geoidx' (redo that
# does not reproduce the original page fails recovery). geoidx is preloaded,
# so an insert's leaf appends and box enlargements are logged by geoidx's own
# records (src/pg/wal_rmgr.cc) while geoidx.own_wal_records is on and by
# generic WAL while it is off; pg_walinspect counts which records each crash
# replayed.
#
# First, crashes whose outcome is known: an all-zero page at the end of the
# index (what a crash between a split's relation extension and its WAL record
# leaves), an UNLOGGED table, whose index crash recovery resets to its init
# fork, and a crash at every WAL record boundary of inserts, splits (both
# records, leaf and internal, and both root splits) and VACUUM, through the
# test-only fault points (geoidx.fault_point, src/pg/fault.cc): see that
# section below. Each must be reached in every run.
#
# Then random cycles. Each starts writers (pgbench, 2 clients: clustered and
# uniform inserts, updates that keep moving the same rows, deletes) and a
# VACUUM loop, lets them run for a random moment (geoidx.own_wal_records is
# switched halfway, so that each recovery replays both kinds of records on the
# same pages), and then crashes the server
# in one of two ways:
#   immediate  pg_ctl stop -m immediate, then start;
#   kill9      kill -9 of a backend found in pg_stat_activity (a writer or the
#              VACUUM), which makes the postmaster restart everything through
#              crash recovery.
# After each restart: geoidx_stats (unfinished splits are counted),
# geoidx_verify, radius (index and bitmap scans) and k-NN answers compared
# with PostGIS by a sequential scan, and VACUUM; unfinished splits must be
# finished by the inserts that pass by. 20 cycles, 200 with GEOIDX_SOAK=1 (or
# GEOIDX_CRASH_CYCLES=<n>); GEOIDX_SEED=<n> repeats a run's random choices
# (not their timing).
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
my $cycles = $ENV{GEOIDX_CRASH_CYCLES} // (soak() ? 200 : 20);
my $seed = $ENV{GEOIDX_SEED} // int(time * 1000) % 1000000;
srand($seed);
diag("crash: $cycles cycles, GEOIDX_SEED=$seed");

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_buffers = 128MB
max_wal_size = 4GB
checkpoint_timeout = 30min
shared_preload_libraries = 'geoidx'
wal_consistency_checking = 'generic,geoidx'
wal_keep_size = 2GB  # pg_walinspect reads what each recovery replayed
jit = off
autovacuum = off
restart_after_crash = on
geoidx.rewrite_postgis = off  # PostGIS's SQL here is a reference
log_min_messages = warning
log_statement = none
});
$node->start;

# The server did not come back: report why (wal_consistency_checking's
# "inconsistent page found", a redo error) and end the test.
sub recovery_failed
{
	my ($what, $err) = @_;
	my @lines = grep { /inconsistent|PANIC|FATAL|CONTEXT|terminated/ } split /\n/, slurp_file($node->logfile);
	fail("$what: the server recovers from the crash");
	diag($err) if $err;
	diag(join("\n", @lines[ -(@lines < 20 ? @lines : 20) .. -1 ])) if @lines;
	$node->_update_pid(-1);
	done_testing();
	exit 1;
}

# Switch geoidx.own_wal_records (a reload); with $wait, until new sessions see it.
sub set_own_records
{
	my ($on, $wait) = @_;
	my $v = $on ? 'on' : 'off';
	$node->safe_psql('postgres', "ALTER SYSTEM SET geoidx.own_wal_records = $v; SELECT pg_reload_conf()");
	$node->poll_query_until('postgres', "SELECT current_setting('geoidx.own_wal_records') = '$v'")
	  or die "geoidx.own_wal_records did not become $v"
	  if $wait;
	return;
}

sub wal_insert_lsn { return $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()'); }

sub crash_restart
{
	my ($what) = @_;
	$node->stop('immediate');
	$node->start(fail_ok => 1) or recovery_failed($what);
	return;
}

my @hot = ([ 2.35, 48.85 ], [ -74.0, 40.7 ], [ 139.7, 35.7 ], [ 179.9, -16.5 ], [ 10.0, 89.9 ], [ -58.4, -34.6 ]);
my $hot_lon = join(', ', map { $_->[0] } @hot);
my $hot_lat = join(', ', map { $_->[1] } @hot);
my $nhot = @hot;

$node->safe_psql('postgres', qq{
	CREATE EXTENSION geoidx CASCADE;
	CREATE EXTENSION pg_walinspect;
	SELECT setseed(0.303);
	CREATE TABLE pts (id bigserial PRIMARY KEY, pos geometry(Point, 4326));
	INSERT INTO pts (pos)
	SELECT ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
	FROM generate_series(1, 24000);
	INSERT INTO pts (pos)
	SELECT ST_SetSRID(ST_MakePoint((ARRAY[$hot_lon])[1 + g % $nhot] + 0.4 * (random() - 0.5),
		least(90, (ARRAY[$hot_lat])[1 + g % $nhot] + 0.4 * (random() - 0.5))), 4326)
	FROM generate_series(1, 12000) g;
	CREATE INDEX pts_pos_idx ON pts USING geoidx (pos) WITH (fillfactor = 100);
	ANALYZE pts;
	CHECKPOINT;
});
# --- a crash after a relation extension, made deterministic --------------
# A split takes its new page with ReadBuffer(P_NEW), which extends the file at
# once, while the WAL record that initialises the page comes later: a crash in
# between leaves an all-zero page at the end of the index, that no WAL record
# will ever write (the cycles below produce it now and then: "the page is all
# zeroes"). PostgreSQL's own indexes take such pages as free ones (PageIsNew);
# so must geoidx: VACUUM, geoidx_stats, geoidx_verify, inserts and scans.
$node->safe_psql('postgres', qq{
	CREATE TABLE z (id bigserial PRIMARY KEY, pos geometry(Point, 4326));
	INSERT INTO z (pos) SELECT ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
	FROM generate_series(1, 3000);
	CREATE INDEX z_pos_idx ON z USING geoidx (pos) WITH (fillfactor = 100);
	CHECKPOINT;
});
my $zfile = $node->data_dir . '/' . $node->safe_psql('postgres', q{SELECT pg_relation_filepath('z_pos_idx')});
my $zblocks = $node->safe_psql('postgres', q{SELECT pg_relation_size('z_pos_idx') / 8192});
$node->stop('immediate');
open(my $zfh, '>>', $zfile) or die "cannot open $zfile: $!";
binmode $zfh;
print $zfh "\0" x 8192;
close $zfh;
$node->start(fail_ok => 1) or recovery_failed('the all-zero page');
is($node->safe_psql('postgres', q{SELECT pg_relation_size('z_pos_idx') / 8192}), $zblocks + 1,
	"z_pos_idx has an all-zero block $zblocks at its end, as a crash after an extension leaves it");
my @zero_checks = (
	[ 'VACUUM', q{DELETE FROM z WHERE id % 10 = 0; VACUUM z} ],
	[ 'geoidx_stats', q{SELECT * FROM geoidx_stats('z_pos_idx')} ],
	[ 'geoidx_verify', q{SELECT geoidx_verify('z_pos_idx')} ],
	[ 'inserts that split', q{INSERT INTO z (pos) SELECT ST_SetSRID(ST_MakePoint(360 * random() - 180,
		degrees(asin(2 * random() - 1))), 4326) FROM generate_series(1, 3000)} ],
	[ 'VACUUM after the inserts', q{VACUUM z} ],
	[ 'geoidx_verify after the inserts', q{SELECT geoidx_verify('z_pos_idx')} ]);
my $zero_failures = 0;
for my $c (@zero_checks)
{
	my ($ret, $out, $err) = $node->psql('postgres', $c->[1]);
	is($ret, 0, "an all-zero page left by a crash: $c->[0] works") or do { diag($err); $zero_failures++; };
}
create_queries($node, prefix => 'z', nradius => 6, nknn => 3, seed => 0.32, hot => [ [ 0, 0 ] ]);
my %zr = compare_with_seqscan($node, table => 'z', index => 'z_pos_idx', prefix => 'z');
is_deeply($zr{bad}, [], "an all-zero page left by a crash: $zr{queries} index answers equal a sequential scan");
$node->safe_psql('postgres', 'DROP TABLE z');

# --- an UNLOGGED table: crash recovery resets its index to the init fork ----
$node->safe_psql('postgres', q{
	CREATE UNLOGGED TABLE u (id bigserial PRIMARY KEY, pos geometry(Point, 4326));
	INSERT INTO u (pos) SELECT ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
	FROM generate_series(1, 5000);
	CREATE INDEX u_pos_idx ON u USING geoidx (pos);
	INSERT INTO u (pos) SELECT ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
	FROM generate_series(1, 3000);
});
crash_restart('the unlogged table');
my ($uret, $uout, $uerr) = $node->psql('postgres', q{SET enable_seqscan = off;
	SELECT count(*) FROM u WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(0 0)', 2.1e7)});
is($uret . '/' . $uout, '0/0', 'after a crash the unlogged table and its index are empty and readable') or diag($uerr);
($uret, $uout, $uerr) = $node->psql('postgres', q{
	INSERT INTO u (pos) SELECT ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
	FROM generate_series(1, 6000);
	SELECT geoidx_verify('u_pos_idx'), depth FROM geoidx_stats('u_pos_idx')});
is($uret, 0, "inserts after the reset split the unlogged index (depth $uout) and it verifies") or diag($uerr);
%zr = compare_with_seqscan($node, table => 'u', index => 'u_pos_idx', prefix => 'z');
is_deeply($zr{bad}, [], "after the reset: $zr{queries} index answers on the unlogged table equal a sequential scan");
$node->safe_psql('postgres', 'DROP TABLE u');

my ($queries, $rows) = (0, 0);

# --- every WAL record boundary, crashed on purpose (geoidx.fault_point) ------
# A session arms one fault point and runs a statement that reaches it: the
# backend writes that record, flushes it, logs 'geoidx fault point "NAME"
# reached by pid PID' and waits; the test kills it with kill -9, and the
# postmaster restarts everything through crash recovery. So every run crashes
# between the records of every kind of change, at every level: the two
# records of a leaf split and of an internal (level 1) split, both root splits
# (of a leaf root and of an internal root), an insert's append and its entry
# enlargement, and VACUUM's compaction of a leaf. The table's index carries a
# 1,440-byte payload per row (INCLUDE; a polygon's adds its 32-byte grid), so that
# five entries fill a leaf, in the build as in inserts, and a few hundred rows
# build every shape; its data lie
# around (10, 10), every third row a small polygon and every seventh a line
# (shape entries go through every record too).
#
# After each crash: the recovery replayed consistently, geoidx_stats counts
# the unfinished splits the point must leave (one after a split's first
# record, none otherwise), geoidx_verify passes, no committed row is lost
# (count by index scan and by sequential scan), every answer equals PostGIS by
# a sequential scan, and for an unfinished split the next insert that passes
# by finishes it. A point that is never reached fails the test.
my $fp_pad = q{(SELECT decode(string_agg(md5(random()::text || i::text || g::text), ''), 'hex')
	FROM generate_series(1, 90) i)};
sub fp_rows
{
	my ($n, $lon, $lat, $spread) = @_;
	return qq{INSERT INTO fp (pos, pad) SELECT CASE WHEN g % 3 = 0 THEN ST_Expand(p, 0.002)
		WHEN g % 7 = 0 THEN ST_MakeLine(p, ST_Translate(p, 0.01, 0.003)) ELSE p END, $fp_pad
		FROM (SELECT g, ST_SetSRID(ST_MakePoint($lon + $spread * (random() - 0.5),
			$lat + $spread * (random() - 0.5)), 4326) AS p FROM generate_series(1, $n) g) r};
}
$node->safe_psql('postgres', q{
	CREATE TABLE fp (id bigserial PRIMARY KEY, pos geometry, pad bytea);
	CREATE INDEX fp_pos_idx ON fp USING geoidx (pos) INCLUDE (pad) WITH (fillfactor = 100);
});
create_queries($node, prefix => 'fp', nradius => 6, nknn => 3, seed => 0.33, hot => [ [ 10, 10 ] ]);
my $fp_rows = 0;    # rows committed in fp

# Arms the point in a new session, runs sql there, and kills the backend when it
# reports the point; returns the pid, or undef (a failed test) if the
# statement ends, or 60 s pass, without reaching it.
sub crash_at_fault_point
{
	my ($point, $sql) = @_;
	my $offset = log_position();
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-q', '-d', $node->connstr('postgres'),
			'-c', "SET geoidx.fault_point = '$point'", '-c', $sql ],
		'<', \undef, '>', \$out, '2>', \$err);
	my ($pid, $deadline) = (undef, time + 60);
	while (time < $deadline)
	{
		if (slurp_file($node->logfile, $offset) =~ /geoidx fault point "\Q$point\E" reached by pid (\d+)/)
		{
			$pid = $1;
			last;
		}
		last unless $h->pumpable;
		$h->pump_nb;
		sleep(0.02);
	}
	ok(defined $pid, "fault point $point: a backend reached it and logged its pid")
	  or diag("the statement ended or timed out first: $err");
	# not reached: what the statement committed counts
	$fp_rows = $node->safe_psql('postgres', 'SELECT count(*) FROM fp') unless defined $pid;
	if (defined $pid)
	{
		kill 'KILL', $pid;
		my $ok = eval { wait_restart_after_crash($offset); 1 };
		recovery_failed("fault point $point", $@) unless $ok;
	}
	eval { $h->kill_kill(grace => 1); $h->finish; };
	unlike(slurp_file($node->logfile, $offset), qr/inconsistent page found|PANIC/,
		"fault point $point: recovery replayed every record consistently");
	return $pid;
}

# The checks after a crash at a point; returns the number of unfinished splits.
sub check_after_fault
{
	my ($point, $want_incomplete) = @_;
	my $shape = geoidx_shape($node, 'fp_pos_idx');
	if ($want_incomplete)
	{
		cmp_ok($shape->{incomplete_splits}, '>=', 1, "fault point $point: geoidx_stats counts the unfinished split");
	}
	else
	{
		is($shape->{incomplete_splits}, 0, "fault point $point: no unfinished split");
	}
	my ($ret, $out, $err) = $node->psql('postgres', q{SELECT geoidx_verify('fp_pos_idx')});
	is($ret, 0, "fault point $point: geoidx_verify after recovery") or diag($err);
	my $counts = $node->safe_psql('postgres', q{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT (SELECT count(*) FROM fp WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 10)', 2.1e7))
			|| '/' || (SELECT count(*) FROM fp WHERE pos IS NOT NULL)});
	is($counts, "$fp_rows/$fp_rows", "fault point $point: no committed row lost (index scan / sequential scan)");
	my %r = compare_with_seqscan($node, table => 'fp', index => 'fp_pos_idx', prefix => 'fp');
	$queries += $r{queries};
	$rows += $r{rows};
	is_deeply($r{bad}, [], "fault point $point: $r{queries} index answers equal a sequential scan");
	return $shape;
}

# The splits left unfinished are reached by inserts of one point again and
# again: the point the finishing insert repeats (finish_by_insert).
my @fp_spot = (10.00003, 9.99997);
my $spot_insert = fp_rows(3000, @fp_spot, 0);

# The next insert that passes by finishes an unfinished split. It inserts the
# point whose insert the crash interrupted: its descent is a function of the
# pages it reads, and the only change on its path since is the enlargement that
# insert itself made, so it reaches the page with FOLLOW_RIGHT every time
# (random points nearby may all go to other leaves of the spot).
sub finish_by_insert
{
	my ($point) = @_;
	$node->safe_psql('postgres', fp_rows(20, @fp_spot, 0));
	$fp_rows += 20;
	my $shape = geoidx_shape($node, 'fp_pos_idx');
	is($shape->{incomplete_splits}, 0, "fault point $point: the next insert finished the split");
	my ($ret, $out, $err) = $node->psql('postgres', q{SELECT geoidx_verify('fp_pos_idx')});
	is($ret, 0, "fault point $point: geoidx_verify after the split was finished") or diag($err);
	return;
}

# The scenarios, in an order that builds the shapes each needs: [point, setup
# (committed first), the statement that reaches the point, whether a split is
# left unfinished, a check of the shape before the crash, and for an append or
# an enlargement the record that logs it: geoidx's own or generic WAL].
# geoidx.own_wal_records is on but for the points logged by generic WAL.
my $hot_insert = fp_rows(3000, 10, 10, 0.0002);
my @fault_points = (
	# an empty index: five rows fill the root leaf, the sixth splits it
	[ 'root-split-leaf', fp_rows(5, 10, 10, 20), fp_rows(1, 10, 10, 20), 0, sub { $_[0]{depth} == 1 } ],
	# rebuilt with 720 rows: 144 full leaves under a full root of level 1
	[ 'root-split-internal', 'TRUNCATE fp; ' . fp_rows(720, 10, 10, 20) . '; REINDEX INDEX fp_pos_idx',
		fp_rows(1, 10, 10, 0.0002), 0, sub { $_[0]{depth} == 2 && $_[0]{leaf_pages} == 144 } ],
	# rows at one spot split its leaf again and again, until its level-1 parent splits
	[ 'page-split-internal', undef, $spot_insert, 1, sub { $_[0]{depth} == 3 } ],
	[ 'downlink-internal', undef, $hot_insert, 0, undef ],
	[ 'page-split-leaf', undef, $spot_insert, 1, undef ],
	[ 'downlink-leaf', undef, $hot_insert, 0, undef ],
	# the insert's own records, then the same changes logged by generic WAL
	[ 'leaf-append', undef, fp_rows(1, 10, 10, 0.0002), 0, undef, 'geoidx/LEAF_APPEND' ],
	[ 'leaf-append', undef, fp_rows(1, 10, 10, 0.0002), 0, undef, 'Generic' ],
	# far from every box: the root's entry must grow
	[ 'entry-enlarge', undef, fp_rows(1, -170, -60, 0), 0, undef, 'geoidx/ENTRY_ENLARGE' ],
	[ 'entry-enlarge', undef, fp_rows(1, 170, 60, 0), 0, undef, 'Generic' ],
	[ 'vacuum-leaf', 'DELETE FROM fp WHERE id % 7 = 0', 'VACUUM fp', 0, undef ],
);
my $fault_t0 = time;
for my $f (@fault_points)
{
	my ($point, $setup, $sql, $want_incomplete, $shape_ok, $record) = @$f;
	set_own_records(($record // '') ne 'Generic', 1);
	if (defined $setup)
	{
		$node->safe_psql('postgres', $setup);
		$fp_rows = $node->safe_psql('postgres', 'SELECT count(*) FROM fp');
	}
	if ($shape_ok)
	{
		my $before = geoidx_shape($node, 'fp_pos_idx');
		ok($shape_ok->($before), "fault point $point: the index has the shape that reaches it")
		  or diag(join(', ', map { "$_ $before->{$_}" } sort keys %$before));
	}
	my $lsn = wal_insert_lsn();
	crash_at_fault_point($point, $sql);
	if ($record)
	{
		my $n = wal_record_counts($node, $lsn);
		my $own = ($n->{'geoidx/LEAF_APPEND'} // 0) + ($n->{'geoidx/ENTRY_ENLARGE'} // 0);
		if ($record eq 'Generic')
		{
			ok($own == 0 && ($n->{Generic} // 0) > 0, "fault point $point: logged by generic WAL, none of geoidx's records")
			  or diag(explain($n));
		}
		else
		{
			cmp_ok($n->{$record} // 0, '>=', 1, "fault point $point: logged by geoidx's own record $record") or diag(explain($n));
		}
	}
	my $shape = check_after_fault($point, $want_incomplete);
	finish_by_insert($point) if $want_incomplete;
	diag(sprintf('fault point %-20s crashed (%s); then %d entries, depth %d, %d unfinished splits', $point,
		$record // 'own records on', $shape->{entries}, $shape->{depth}, $shape->{incomplete_splits}));
	$node->safe_psql('postgres', 'CHECKPOINT');
}
my $fault_seconds = time - $fault_t0;
$node->safe_psql('postgres', 'DROP TABLE fp');

create_queries($node, prefix => 'pts', nradius => 8 * $cycles + 8, nknn => 4 * $cycles + 4, seed => 0.31, hot => \@hot);
my $index_oid = $node->safe_psql('postgres', q{SELECT 'pts_pos_idx'::regclass::oid});
my $start_shape = geoidx_shape($node, 'pts_pos_idx');
diag("start: $start_shape->{entries} entries, depth $start_shape->{depth}, $start_shape->{leaf_pages} leaves");

# Writers (2 clients), three transactions in four: 24 points at a hot spot
# (so that the same leaves keep splitting) and 4 anywhere; the fourth moves 3
# of the first 1,000 rows and deletes rows (each client in its own half of
# the ids, so that they do not delete the same rows) so that the table keeps
# about 36,000 rows.
my $insert_sql = qq{
\\set h random(1, $nhot)
BEGIN;
INSERT INTO pts (pos)
SELECT ST_SetSRID(ST_MakePoint((ARRAY[$hot_lon])[:h] + 0.4 * (random() - 0.5),
	least(90, (ARRAY[$hot_lat])[:h] + 0.4 * (random() - 0.5))), 4326)
FROM generate_series(1, 24);
INSERT INTO pts (pos)
SELECT ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
FROM generate_series(1, 4);
COMMIT;
};
my $change_sql = qq{
\\set u random(1, 997)
SELECT max(id) AS maxid, count(*) AS n FROM pts \\gset
\\set d random(1001, :maxid)
\\set lim least(300, greatest(20, :n - 36000))
BEGIN;
UPDATE pts SET pos = ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
WHERE id BETWEEN :u AND :u + 2;
DELETE FROM pts WHERE id IN (SELECT id FROM pts WHERE id >= :d AND id % 2 = :client_id ORDER BY id LIMIT :lim);
COMMIT;
};
my $vacuum_sql = qq{
VACUUM pts;
\\sleep 200 ms
};
my $dir = $node->basedir;
append_to_file("$dir/insert.sql", $insert_sql);
append_to_file("$dir/change.sql", $change_sql);
append_to_file("$dir/vacuum.sql", $vacuum_sql);

sub start_load
{
	my @h;
	for my $w ([ 'writer', 2, "$dir/insert.sql\@3", "$dir/change.sql\@1" ], [ 'vacuum', 1, "$dir/vacuum.sql" ])
	{
		my ($name, $clients, @scripts) = @$w;
		push @h, IPC::Run::start(
			[ 'pgbench', '-n', '-c', $clients, '-j', $clients, '-T', 600, (map { ('-f', $_) } @scripts),
				$node->connstr('postgres') . " application_name=geoidx_$name" ],
			'<', \undef, '>>', "$dir/$name.out", '2>>', "$dir/$name.err");
	}
	return \@h;
}

sub stop_load
{
	my ($h) = @_;
	for my $x (@$h)
	{
		eval { $x->kill_kill(grace => 5) if $x->pumpable; $x->finish; };
	}
	return;
}

sub backend_pids
{
	my ($filter) = @_;
	my $out = $node->safe_psql('postgres', qq{
		SELECT pid FROM pg_stat_activity
		WHERE backend_type = 'client backend' AND application_name IN ('geoidx_writer', 'geoidx_vacuum') $filter});
	return grep { /^\d+$/ } split /\n/, $out;
}

sub log_position { return -s $node->logfile; }

# geoidx_stats as a hash, or (undef, error)
sub try_shape
{
	my ($ret, $out, $err) = $node->psql('postgres', q{
		SELECT pages, leaf_pages, internal_pages, entries, depth, incomplete_splits FROM geoidx_stats('pts_pos_idx')});
	return (undef, $err) if $ret != 0;
	my %h;
	@h{qw(pages leaf_pages internal_pages entries depth incomplete_splits)} = split /\|/, $out;
	return (\%h, '');
}

# Waits until the postmaster has gone through crash recovery after a backend
# was killed, and accepts connections again.
sub wait_restart_after_crash
{
	my ($offset) = @_;
	$node->wait_for_log(qr/all server processes terminated; reinitializing/, $offset);
	$node->wait_for_log(qr/database system is ready to accept connections/, $offset);
	$node->poll_query_until('postgres', 'SELECT true') or die 'the server did not come back after the crash';
	return;
}

my (%modes, $incomplete_seen, $cycles_with_incomplete, $verified, @bad_all);
my ($finished_splits, $damaged_cycles) = (0, 0);
my ($own_records, $generic_records, $cycles_both) = (0, 0, 0);
($incomplete_seen, $cycles_with_incomplete, $verified) = (0) x 3;
my $max_depth = 0;
my @modes = ('immediate', 'kill9');

for my $cycle (1 .. $cycles)
{
	my $mode = $modes[ ($cycle - 1) % 2 ];
	my $note = '';
	$modes{$mode}++;
	# own records first in odd pairs of cycles, generic WAL first in even ones
	my $own_first = int(($cycle - 1) / 2) % 2 == 0;
	set_own_records($own_first, 1);
	my $cycle_lsn = wal_insert_lsn();
	my $load = start_load();
	my $pause = 0.5 + rand(2.5);
	sleep($pause / 2);
	set_own_records(!$own_first, 0);
	sleep($pause / 2);
	my $offset = log_position();
	if ($mode eq 'immediate')
	{
		$node->stop('immediate');
		stop_load($load);
		$node->start(fail_ok => 1) or recovery_failed("cycle $cycle (immediate)");
	}
	else
	{
		my @pids = backend_pids('');
		my $victim = $pids[ int(rand(@pids)) ];
		kill 'KILL', $victim if defined $victim;
		my $ok = eval { wait_restart_after_crash($offset); 1 };
		stop_load($load);
		recovery_failed("cycle $cycle ($mode)", $@) unless $ok;
	}
	my $recovery_log = slurp_file($node->logfile, $offset);
	unlike($recovery_log, qr/inconsistent page found|PANIC/, "cycle $cycle ($mode): recovery replayed every record consistently");
	my $nrec = wal_record_counts($node, $cycle_lsn);
	my $own_n = ($nrec->{'geoidx/LEAF_APPEND'} // 0) + ($nrec->{'geoidx/ENTRY_ENLARGE'} // 0);
	$own_records += $own_n;
	$generic_records += $nrec->{Generic} // 0;
	$cycles_both++ if $own_n > 0 && ($nrec->{Generic} // 0) > 0;
	$note .= sprintf(', %d own and %d generic records', $own_n, $nrec->{Generic} // 0);

	# the index must be usable as a whole after recovery: its statistics, a
	# full verification, VACUUM (which reads every page), and the answers
	my $damaged = 0;
	my ($shape, $serr) = try_shape();
	ok(defined $shape, "cycle $cycle ($mode): geoidx_stats reads every page after recovery") or do { diag($serr); $damaged++; };
	$shape //= { entries => -1, depth => 0, incomplete_splits => 0 };
	$max_depth = $shape->{depth} if $shape->{depth} > $max_depth;
	if ($shape->{incomplete_splits} > 0)
	{
		$incomplete_seen += $shape->{incomplete_splits};
		$cycles_with_incomplete++;
	}
	my ($ret, $out, $err) = $node->psql('postgres', q{SELECT geoidx_verify('pts_pos_idx')});
	is($ret, 0, "cycle $cycle ($mode): geoidx_verify after recovery") or do { diag($err); $damaged++; };
	$verified++;
	my $lo = 8 * ($cycle - 1);
	my %r = compare_with_seqscan($node, table => 'pts', index => 'pts_pos_idx', prefix => 'pts',
		rwhere => sprintf('q.qid BETWEEN %d AND %d', $lo + 1, $lo + 8),
		kwhere => sprintf('q.qid BETWEEN %d AND %d', $lo / 2 + 1, $lo / 2 + 4));
	$queries += $r{queries};
	$rows += $r{rows};
	is_deeply($r{bad}, [], "cycle $cycle ($mode): $r{queries} index answers ($r{rows} rows, "
		  . "$shape->{incomplete_splits} unfinished splits) equal a sequential scan");
	push @bad_all, @{ $r{bad} };
	($ret, $out, $err) = $node->psql('postgres', q{VACUUM pts});
	is($ret, 0, "cycle $cycle ($mode): VACUUM after recovery") or do { diag($err); $damaged++; };
	diag(sprintf('cycle %2d %-9s %6d entries, depth %d, %d unfinished splits%s%s, %.0f s', $cycle, $mode,
		$shape->{entries}, $shape->{depth}, $shape->{incomplete_splits}, $note, $damaged ? ', DAMAGED' : '', time - $t0));

	# an unfinished split must be finished by the inserts that pass by
	if ($shape->{incomplete_splits} > 0)
	{
		# points next to a fifth of the rows: an insert passes by nearly every leaf
		my $maxid = $node->safe_psql('postgres', q{SELECT max(id) FROM pts});
		$node->safe_psql('postgres', q{
			INSERT INTO pts (pos) SELECT ST_SetSRID(ST_MakePoint(ST_X(pos) + 1e-6 * (random() - 0.5),
				ST_Y(pos) + 1e-6 * (random() - 0.5)), 4326)
			FROM pts WHERE id % 5 = 0 AND pos IS NOT NULL AND ST_Y(pos) BETWEEN -89.9 AND 89.9;
		});
		my ($after) = try_shape();
		$after //= { incomplete_splits => -1 };
		cmp_ok($after->{incomplete_splits}, '<', $shape->{incomplete_splits},
			"cycle $cycle: inserts finished unfinished splits ($shape->{incomplete_splits} -> $after->{incomplete_splits})");
		$finished_splits += $shape->{incomplete_splits} - $after->{incomplete_splits} if $after->{incomplete_splits} >= 0;
		($ret, $out, $err) = $node->psql('postgres', q{SELECT geoidx_verify('pts_pos_idx')});
		is($ret, 0, "cycle $cycle: geoidx_verify after the splits were finished") or diag($err);
		%r = compare_with_seqscan($node, table => 'pts', index => 'pts_pos_idx', prefix => 'pts',
			rwhere => sprintf('q.qid BETWEEN %d AND %d', $lo + 1, $lo + 4), kwhere => sprintf('q.qid = %d', $lo / 2 + 1));
		$queries += $r{queries};
		$rows += $r{rows};
		is_deeply($r{bad}, [], "cycle $cycle: index answers equal a sequential scan after the splits were finished");
		$node->psql('postgres', qq{DELETE FROM pts WHERE id > $maxid; VACUUM pts});
	}
	if ($damaged)
	{
		# reported above; rebuild, so that the next cycles test crash recovery again
		$damaged_cycles++;
		$node->safe_psql('postgres', 'REINDEX INDEX pts_pos_idx');
	}
	# bound the WAL the next recovery replays
	$node->safe_psql('postgres', 'CHECKPOINT');
}

cmp_ok($own_records, '>', 0, "the cycles' recoveries replayed $own_records of geoidx's own records");
cmp_ok($generic_records, '>', 0, "the cycles' recoveries replayed $generic_records generic WAL records");
diag("$cycles_both of $cycles cycles replayed both kinds of records");
set_own_records(1, 1);

# --- after the last cycle: a clean restart, more inserts, a final full check ---
$node->restart;
$node->safe_psql('postgres', q{
	INSERT INTO pts (pos) SELECT ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
	FROM generate_series(1, 5000);
	VACUUM pts;
});
my ($ret, $out, $err) = $node->psql('postgres', q{SELECT geoidx_verify('pts_pos_idx')});
is($ret, 0, 'geoidx_verify at the end') or diag($err);
my %r = compare_with_seqscan($node, table => 'pts', index => 'pts_pos_idx', prefix => 'pts',
	rwhere => 'q.qid <= 8', kwhere => 'q.qid <= 4');
$queries += $r{queries};
$rows += $r{rows};
is_deeply($r{bad}, [], "at the end: $r{queries} index answers equal a sequential scan");
my ($end) = try_shape();
$end //= { incomplete_splits => -1 };

my ($tx) = (0);
$tx += $_ for (slurp_file("$dir/writer.out") =~ /number of transactions actually processed: (\d+)/g);
diag(sprintf('crash: %d cycles (%s), %d writer transactions, %d comparisons with a sequential scan (%d reference rows), '
	  . '%d geoidx_verify runs, depth up to %d, %d fault points crashed at (%.0f s), '
	  . '%d unfinished splits seen after recovery in %d cycles (%d then finished by inserts), %d left at the end, '
	  . '%d cycles left an index that failed a check, %.0f s',
	$cycles, join(', ', map { "$modes{$_} $_" } sort keys %modes), $tx, $queries, $rows, $verified,
	$max_depth, scalar(@fault_points), $fault_seconds, $incomplete_seen, $cycles_with_incomplete, $finished_splits, $end->{incomplete_splits},
	$damaged_cycles, time - $t0));
$node->stop;
done_testing();
