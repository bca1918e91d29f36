# Crash recovery, with wal_consistency_checking = 'generic' (redo that does
# not reproduce the original page fails recovery).
#
# Each cycle starts writers (pgbench, 2 clients: clustered and uniform
# inserts, updates that keep moving the same rows, deletes) and a VACUUM loop,
# lets them run for a random moment, and then crashes the server in one of
# three ways:
#   immediate  pg_ctl stop -m immediate, then start;
#   kill9      kill -9 of a backend found in pg_stat_activity (a writer or the
#              VACUUM), which makes the postmaster restart everything through
#              crash recovery;
#   split      kill -9 of a writer caught inside a split: writers are stopped
#              (SIGSTOP) at random moments until one holds geoidx's split lock
#              (its page lock on the metapage, seen in pg_locks); another
#              session then commits, which flushes the WAL the stopped writer
#              has inserted so far, and the writer is killed. When it was
#              stopped between the record that splits a page and the one that
#              gives the new page its downlink, recovery leaves an unfinished
#              split (FOLLOW_RIGHT), which scans must follow and the next
#              insert that passes must finish.
#              Writers are caught in about one stop in 1,000 (a split is
#              short next to the inserts between two), and about one catch
#              in four or five leaves an unfinished split, so a default run
#              sees one now and then and the soak run several.
# After each restart: geoidx_stats (unfinished splits are counted),
# geoidx_verify, radius (index and bitmap scans) and k-NN answers compared
# with PostGIS by a sequential scan, and VACUUM. 20 cycles, 200 with
# GEOIDX_SOAK=1 (or GEOIDX_CRASH_CYCLES=<n>); GEOIDX_SEED=<n> repeats a run's
# random choices (not its timing).
#
# Before the cycles, two crashes whose outcome is known: an all-zero page at
# the end of the index (what a crash between a split's relation extension and
# its WAL record leaves), and an UNLOGGED table, whose index crash recovery
# resets to its init fork.
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
wal_consistency_checking = 'generic'
jit = off
autovacuum = off
restart_after_crash = on
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

my %stop_outcomes;

# kill -9 of a writer stopped while it holds the split lock; returns how many
# times writers were stopped before one was caught, or 0 when none was.
# (Measured: a writer is caught in about 0.5% of the stops, nearly always
# holding a buffer lock too, inside a split or the descent before it.)
sub kill_in_split
{
	my $sess = geoidx_session($node);
	my $flush = geoidx_session($node);
	my $deadline = time + 10;
	my $tries = 0;
	my @writers;
	%stop_outcomes = (free => 0, timeout => 0, other => 0);
	while (time < $deadline)
	{
		@writers = backend_pids(q{AND application_name = 'geoidx_writer'}) unless @writers;
		unless (@writers)
		{
			sleep(0.05);
			next;
		}
		my $pid = $writers[ int(rand(@writers)) ];
		$tries++;
		kill('STOP', $pid) or do { @writers = (); next; };
		# (the query may wait for an LWLock the stopped writer holds: then it times out)
		my $held = $sess->query(qq{SELECT count(*) FROM pg_locks WHERE pid = $pid AND locktype = 'page'
			AND relation = $index_oid AND page = 0 AND granted}, 0.05);
		if (defined $held && $held eq '1')
		{
			# a commit flushes the WAL the stopped writer has inserted so far
			$flush->query('SELECT txid_current()', 1);
			kill 'KILL', $pid;
			$sess->close;
			$flush->close;
			return $tries;
		}
		$stop_outcomes{ !defined $held ? 'timeout' : $held eq '0' ? 'free' : 'other' }++;
		kill 'CONT', $pid;
		if (!defined $held && !$sess->drain(10))
		{
			$sess->close;
			$sess = geoidx_session($node);
		}
		sleep(0.0005 + rand(0.002));
	}
	# none caught: kill a writer anyway
	my @pids = backend_pids(q{AND application_name = 'geoidx_writer'});
	kill 'KILL', $pids[0] if @pids;
	$sess->close;
	$flush->close;
	return 0;
}

my (%modes, $queries, $rows, $incomplete_seen, $cycles_with_incomplete, $split_caught, $verified, @bad_all);
my ($finished_splits, $damaged_cycles) = (0, 0);
($queries, $rows, $incomplete_seen, $cycles_with_incomplete, $split_caught, $verified) = (0) x 6;
my $max_depth = 0;
my @modes = ('immediate', 'kill9', 'split');

for my $cycle (1 .. $cycles)
{
	my $mode = $modes[ ($cycle - 1) % 3 ];
	my $note = '';
	$modes{$mode}++;
	my $load = start_load();
	sleep(0.5 + rand(2.5));
	my $offset = log_position();
	if ($mode eq 'immediate')
	{
		$node->stop('immediate');
		stop_load($load);
		$node->start(fail_ok => 1) or recovery_failed("cycle $cycle (immediate)");
	}
	else
	{
		if ($mode eq 'kill9')
		{
			my @pids = backend_pids('');
			my $victim = $pids[ int(rand(@pids)) ];
			kill 'KILL', $victim if defined $victim;
		}
		else
		{
			my $tries = kill_in_split();
			$split_caught++ if $tries;
			$note = $tries ? ", writer caught in the split lock at stop $tries" : ', no writer caught in the split lock ('
			  . join(', ', map { "$stop_outcomes{$_} $_" } sort keys %stop_outcomes) . ')';
		}
		my $ok = eval { wait_restart_after_crash($offset); 1 };
		stop_load($load);
		recovery_failed("cycle $cycle ($mode)", $@) unless $ok;
	}
	my $recovery_log = slurp_file($node->logfile, $offset);
	unlike($recovery_log, qr/inconsistent page found|PANIC/, "cycle $cycle ($mode): recovery replayed every record consistently");

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
	  . '%d geoidx_verify runs, depth up to %d, %d writers caught in a split and killed, '
	  . '%d unfinished splits seen after recovery in %d cycles (%d then finished by inserts), %d left at the end, '
	  . '%d cycles left an index that failed a check, %.0f s',
	$cycles, join(', ', map { "$modes{$_} $_" } sort keys %modes), $tx, $queries, $rows, $verified,
	$max_depth, $split_caught, $incomplete_seen, $cycles_with_incomplete, $finished_splits, $end->{incomplete_splits},
	$damaged_cycles, time - $t0));
$node->stop;
done_testing();
