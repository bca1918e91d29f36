# Helpers shared by geoidx's TAP tests.
package GeoidxTest;

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Exporter 'import';
use Cwd qw(abs_path);
use FindBin;

our @EXPORT = qw(geoidx_node psql_file data_dir soak);

# A started node with postgis and geoidx created in database "postgres".
sub geoidx_node
{
	my ($name, %opts) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%opts);
	$node->append_conf('postgresql.conf', "shared_buffers = 256MB\nmax_wal_size = 2GB\n");
	# PostGIS's SQL in a test is a reference: no geoidx rewrite of it (a test of the rewrites sets it on)
	$node->append_conf('postgresql.conf', "geoidx.rewrite_postgis = off\n");
	$node->append_conf('postgresql.conf', $opts{conf}) if $opts{conf};
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION geoidx CASCADE');
	return $node;
}

# Runs a SQL file through psql, stopping at the first error.
sub psql_file
{
	my ($node, $file, %vars) = @_;
	my @cmd = ('psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-f', $file);
	push @cmd, ('-v', "$_=$vars{$_}") for sort keys %vars;
	my ($out, $err) = run_command(\@cmd);
	die "psql -f $file failed: $err" if $err =~ /ERROR/;
	return $out;
}

# The repository's data/ directory (real point sets, with their licences).
sub data_dir
{
	my $d = abs_path("$FindBin::Bin/../../data");
	die "no data directory at $FindBin::Bin/../../data" unless defined $d && -d $d;
	return $d;
}

sub soak { return ($ENV{GEOIDX_SOAK} // 0) ? 1 : 0; }

# --- helpers of the standby, crash and soak tests (020_standby, 030_crash) ---
use Time::HiRes ();
use Digest::MD5 ();

push @GeoidxTest::EXPORT, qw(create_queries compare_with_seqscan compare_index_answers
  wait_for_replay geoidx_shape geoidx_session wal_record_counts);

# Creates (or replaces) the query tables <prefix>_rq (qid, center, metres) and
# <prefix>_kq (qid, center, k): half of the centres at the given hot spots
# (arrayref of [lon, lat]) with small radii, half uniform on the sphere with
# large ones. Deterministic for a given seed.
sub create_queries
{
	my ($node, %o) = @_;
	my $p = $o{prefix} // 'q';
	my $nr = $o{nradius} // 10;
	my $nk = $o{nknn} // 5;
	my $seed = $o{seed} // 0.5;
	my $hot = $o{hot} // [ [ 0, 0 ] ];
	my $hot_sql = join(', ', map { "($_->[0], $_->[1])" } @$hot);
	my $db = $o{dbname} // 'postgres';
	$node->safe_psql($db, qq{
		SELECT setseed($seed);
		DROP TABLE IF EXISTS ${p}_rq, ${p}_kq, ${p}_hot;
		CREATE TABLE ${p}_hot AS SELECT row_number() OVER () AS hid, lon, lat FROM (VALUES $hot_sql) v (lon, lat);
		CREATE TABLE ${p}_rq AS
		SELECT g AS qid,
			CASE WHEN g % 2 = 1 THEN
				(SELECT ST_SetSRID(ST_MakePoint(h.lon + 0.2 * (random() - 0.5), greatest(-90, least(90, h.lat + 0.2 * (random() - 0.5)))), 4326)
				 FROM ${p}_hot h WHERE h.hid = 1 + (g / 2) % (SELECT count(*) FROM ${p}_hot))
			ELSE ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326) END AS center,
			CASE WHEN g % 2 = 1 THEN exp(ln(200) + random() * (ln(50000) - ln(200)))
			ELSE exp(ln(50000) + random() * (ln(1500000) - ln(50000))) END AS metres
		FROM generate_series(1, $nr) g;
		CREATE TABLE ${p}_kq AS
		SELECT g AS qid,
			CASE WHEN g % 2 = 1 THEN
				(SELECT ST_SetSRID(ST_MakePoint(h.lon + 0.2 * (random() - 0.5), greatest(-90, least(90, h.lat + 0.2 * (random() - 0.5)))), 4326)
				 FROM ${p}_hot h WHERE h.hid = 1 + (g / 2) % (SELECT count(*) FROM ${p}_hot))
			ELSE ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326) END AS center,
			(ARRAY[1, 7, 50, 333, 1000])[1 + (g - 1) % 5] AS k
		FROM generate_series(1, $nk) g;
	});
	return;
}

# The SQL of one answer: "<count>:<md5 of the sorted ids (and distances)>".
sub _radius_sql
{
	my ($table, $cond) = @_;
	return qq{(SELECT count(*) || ':' || md5(coalesce(array_agg(t.id ORDER BY t.id), '{}')::text) FROM $table t WHERE $cond)};
}

# A k-NN answer: "<count>:<md5 of the distances in order>:<md5 of the ids
# strictly nearer than the k-th distance>:<rows out of order>". Rows tied
# at the k-th distance (points at the same place, the poles) may be any of
# the tied ones, so only their number (through the distances) is compared.
sub _knn_summary_sql
{
	my ($inner) = @_;
	return qq{(SELECT count(*) || ':' || md5(coalesce(array_agg(x.d ORDER BY x.d), '{}')::text)
		|| ':' || md5(coalesce(array_agg(x.id ORDER BY x.id) FILTER (WHERE x.d < x.kth), '{}')::text)
		|| ':' || count(*) FILTER (WHERE x.d < x.pd)
		FROM (SELECT y.id, y.d, lag(y.d) OVER w AS pd, max(y.d) OVER w AS kth FROM ($inner) y
			WINDOW w AS (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) x)};
}

sub _knn_index_sql
{
	my ($table) = @_;
	# the rows in the index's own order: "rows out of order" checks it
	return _knn_summary_sql(qq{SELECT t.id, t.pos <~> q.center AS d FROM $table t ORDER BY t.pos <~> q.center LIMIT q.k});
}

sub _knn_seq_sql
{
	my ($table) = @_;
	return _knn_summary_sql(qq{SELECT t.id, ST_Distance(t.pos::geography, q.center::geography) AS d FROM $table t
		WHERE t.pos IS NOT NULL AND NOT ST_IsEmpty(t.pos) ORDER BY 2, 1 LIMIT q.k});
}

# Lines "r|qid|answer" and "k|qid|answer" of the index (index scans forced),
# and, with seq => 1, "r|qid|index|seq", "k|qid|index|seq" where seq is
# PostGIS's answer by a sequential scan in the same statement (so in the same
# snapshot, whatever writes run meanwhile). With bitmap => 1 the radius
# answers come from a bitmap scan instead.
sub _answers
{
	my ($node, %o) = @_;
	my $t = $o{table};
	my $p = $o{prefix};
	my $where_r = $o{rwhere} ? "WHERE $o{rwhere}" : '';
	my $where_k = $o{kwhere} ? "WHERE $o{kwhere}" : '';
	# jit off: enable_seqscan = off makes every plan look expensive enough to compile
	my $set = 'SET jit = off; SET client_min_messages = warning; '
	  . ($o{bitmap}
		? 'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_bitmapscan = on;'
		: 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexscan = on;');
	my $seq_r = $o{seq} ? " || '|' || " . _radius_sql($t, 'ST_DWithin(t.pos::geography, q.center::geography, q.metres)') : '';
	my $seq_k = $o{seq} ? " || '|' || " . _knn_seq_sql($t) : '';
	my $sql_r = "SELECT 'r|' || q.qid || '|' || " . _radius_sql($t, 'geoidx_dwithin(t.pos, q.center, q.metres)') . "$seq_r FROM ${p}_rq q $where_r ORDER BY q.qid";
	my $sql_k = "SELECT 'k|' || q.qid || '|' || " . _knn_index_sql($t) . "$seq_k FROM ${p}_kq q $where_k ORDER BY q.qid";
	my $sql = $o{bitmap} ? $sql_r : "$sql_r; $sql_k";
	my $db = $o{dbname} // 'postgres';
	# the plans, so that a test cannot pass by not using the index
	my $plan = $node->safe_psql($db, "$set EXPLAIN (COSTS OFF) $sql_r" . ($o{bitmap} ? '' : "; EXPLAIN (COSTS OFF) $sql_k"));
	my $want = $o{bitmap} ? qr/Bitmap Index Scan on $o{index}\b/ : qr/Index Scan using $o{index}\b/;
	die "the plan does not use $o{index}:\n$plan" unless $plan =~ $want;
	my $out = $node->safe_psql($db, "$set $sql");
	return [ split /\n/, $out ];
}

# Index answers (index scan for radius and k-NN) of node, one line per query.
sub compare_index_answers
{
	my ($node, %o) = @_;
	return _answers($node, %o, seq => 0);
}

# Compares the index's answers with a sequential scan by PostGIS in the same
# snapshot: radius by index scan and by bitmap scan (unless nobitmap), k-NN by
# index scan. Returns a hash: queries, rows, bad (list of messages), index
# (arrayref of the index answer lines, for comparing nodes), seq (the
# reference lines).
sub compare_with_seqscan
{
	my ($node, %o) = @_;
	my $lines = _answers($node, %o, seq => 1);
	my (%r, @bad, @index, @seq);
	my ($queries, $rows) = (0, 0);
	my %ref;
	for my $l (@$lines)
	{
		my ($kind, $qid, $ia, $sa) = split /\|/, $l;
		$queries++;
		my ($n, $md5, $disorder) = split /:/, $ia;
		my ($sn) = split /:/, $sa;
		$rows += $sn;
		$ref{"$kind|$qid"} = $sa;
		push @index, "$kind|$qid|$ia";
		push @seq, "$kind|$qid|$sa";
		push @bad, "$o{table} $kind query $qid: index $ia, seq scan $sa" if $ia ne $sa;
	}
	unless ($o{nobitmap})
	{
		for my $l (@{ _answers($node, %o, seq => 0, bitmap => 1) })
		{
			my ($kind, $qid, $ba) = split /\|/, $l;
			push @bad, "$o{table} $kind query $qid: bitmap $ba, seq scan " . ($ref{"$kind|$qid"} // 'none')
			  if !defined $ref{"$kind|$qid"} || $ba ne $ref{"$kind|$qid"};
		}
	}
	return (queries => $queries, rows => $rows, bad => \@bad, index => \@index, seq => \@seq);
}

# Waits until standby has replayed everything primary has flushed; dies at
# once when the standby's log shows that replay failed (for instance
# wal_consistency_checking's "inconsistent page found").
sub wait_for_replay
{
	my ($primary, $standby, $timeout) = @_;
	$timeout //= 600;
	my $lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_flush_lsn()');
	my $deadline = time + $timeout;
	my $log = $standby->logfile;
	for (;;)
	{
		my $text = -f $log ? PostgreSQL::Test::Utils::slurp_file($log) : '';
		if ($text =~ /^.*(inconsistent page found|PANIC:|startup process .* terminated|FATAL:  .*(redo|WAL|recovery)).*$/m)
		{
			my @lines = grep { /inconsistent|PANIC|FATAL|CONTEXT|terminated/ } split /\n/, $text;
			die "the standby failed to replay:\n" . join("\n", @lines[ -(@lines < 20 ? @lines : 20) .. -1 ]) . "\n";
		}
		my ($ret, $out) = $standby->psql('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn");
		return $lsn if $ret == 0 && $out eq 't';
		die "the standby did not replay up to $lsn in $timeout s" if time > $deadline;
		Time::HiRes::sleep(0.1);
	}
}

# The records of geoidx's own resource manager and of generic WAL that node
# wrote from lsn to its last flush, counted by pg_walinspect (which must be
# created in postgres): { 'geoidx/LEAF_APPEND' => n, 'geoidx/ENTRY_ENLARGE'
# => n, Generic => n }, the kinds with no record left out.
sub wal_record_counts
{
	my ($node, $lsn) = @_;
	my $out = $node->safe_psql('postgres', qq{
		SELECT resource_manager || CASE WHEN resource_manager = 'geoidx' THEN '/' || record_type ELSE '' END, count(*)
		FROM pg_get_wal_records_info('$lsn', pg_current_wal_flush_lsn())
		WHERE resource_manager IN ('geoidx', 'Generic') GROUP BY 1});
	my %n = map { split /\|/ } grep { /\|/ } split /\n/, $out;
	return \%n;
}

# geoidx_stats of an index as a hash.
sub geoidx_shape
{
	my ($node, $index, $db) = @_;
	my $out = $node->safe_psql($db // 'postgres', qq{
		SELECT pages, leaf_pages, internal_pages, entries, depth, incomplete_splits
		FROM geoidx_stats('$index')});
	my @v = split /\|/, $out;
	my %h;
	@h{qw(pages leaf_pages internal_pages entries depth incomplete_splits)} = @v;
	return \%h;
}

# A psql session for queries that may block (a backend we stopped may hold a
# lock they need): query() returns undef instead of dying when it times out.
sub geoidx_session
{
	my ($node, $db) = @_;
	my $self = { stdin => '', stdout => '', stderr => '', n => 0 };
	local %ENV = %ENV;
	$ENV{PGAPPNAME} = 'geoidx_test_session';
	$self->{run} = IPC::Run::start(
		[ 'psql', '-X', '-A', '-t', '-q', '-d', $node->connstr($db // 'postgres'), '-f', '-' ],
		'<', \$self->{stdin}, '>', \$self->{stdout}, '2>', \$self->{stderr});
	return bless $self, 'GeoidxTest::Session';
}

package GeoidxTest::Session;

sub query
{
	my ($self, $sql, $timeout) = @_;
	my $tag = '__geoidx_done_' . ++$self->{n} . '__';
	$self->{stdin} .= "$sql;\n\\echo $tag\n";
	my $deadline = Time::HiRes::time() + ($timeout // 10);
	$self->{run}->pump_nb;
	while ($self->{stdout} !~ /\Q$tag\E\n/)
	{
		return undef if Time::HiRes::time() > $deadline || !$self->{run}->pumpable;
		$self->{run}->pump_nb;
		Time::HiRes::sleep(0.002);
	}
	my $out = $self->{stdout};
	$out =~ s/\Q$tag\E\n.*//s;
	$self->{stdout} =~ s/.*?\Q$tag\E\n//s;
	chomp $out;
	return $out;
}

# Waits for the output of a query that timed out, up to timeout seconds more.
sub drain
{
	my ($self, $timeout) = @_;
	my $tag = '__geoidx_done_' . $self->{n} . '__';
	my $deadline = Time::HiRes::time() + ($timeout // 10);
	while ($self->{stdout} !~ /\Q$tag\E\n/)
	{
		return 0 if Time::HiRes::time() > $deadline || !$self->{run}->pumpable;
		$self->{run}->pump_nb;
		Time::HiRes::sleep(0.005);
	}
	$self->{stdout} =~ s/.*?\Q$tag\E\n//s;
	return 1;
}

sub close
{
	my ($self) = @_;
	eval { $self->{run}->kill_kill(grace => 1) };
	return;
}

package GeoidxTest;

1;
