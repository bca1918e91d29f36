# Corrupted index pages (issue 3): a geoidx index of three levels is built,
# the server is stopped, one page of the index's file is overwritten, and the
# server is started again (data checksums off, so the server reads what is on
# disk). Then geoidx_verify, radius scans (index and bitmap), k-NN scans and an
# INSERT that must pass through the damaged page have to fail with a clear
# error naming the index and the block ("index "pts_idx" contains corrupted page
# at block N", the one message of geoidx_corrupted, geoidx_verify's findings and
# a scan's link to no block included (it names the page holding the link); or geoidx_verify's
# "index "pts_idx" is not valid: heap tuple (b,o) is not indexed", the one
# fault with no index block to name); the core's own
# "invalid page in block N" is accepted only for a page whose header the core
# rejects before geoidx sees it. Never a crash, and never an endless loop: every
# statement runs under statement_timeout, and the test fails if it fires.
#
# The cases: garbage (a whole page of random bytes, random bytes under a
# valid page header, an all-zero page, random entries under a valid header
# and special space), and plausible pages with one field wrong: pd_lower inside
# an entry, unknown flags, a leaf flag that disagrees with the level, a level
# that disagrees with the parent, a right-link cycle between two leaves, a
# right-link to the page itself, a downlink back to the root, a downlink to
# block 0xFFFFFFFF, an NSN ahead of the page's LSN, and a metapage without
# its magic number. After each case the pristine file is put back; at the end
# the index must verify and answer as PostGIS does again.
use strict;
use warnings;
no warnings 'portable';    # 64-bit NSN values in the hand-made pages
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use constant BLCKSZ => 8192;
use constant ENTRIES_OFFSET => 72;    # MAXALIGN(page header) + MAXALIGN(page box)
use constant LEAF_ENTRY => 24;
use constant INTERNAL_ENTRY => 56;
use constant F_LEAF => 0x0002;
use constant F_FOLLOW_RIGHT => 0x0004;

my $node = geoidx_node('corruption', conf => "autovacuum = off\njit = off\n");
is($node->safe_psql('postgres', 'SHOW data_checksums'), 'off', 'data checksums are off');

$node->safe_psql('postgres', q{
	CREATE TABLE pts (id int PRIMARY KEY, pos geometry(Point, 4326));
	INSERT INTO pts SELECT i, ST_SetSRID(ST_MakePoint(((i * 7919) % 36000) / 100.0 - 180,
		((i * 104729) % 17000) / 100.0 - 85), 4326) FROM generate_series(1, 20000) i;
	-- fillfactor 10: 33 entries per leaf, 14 per internal page, so three levels
	CREATE INDEX pts_idx ON pts USING geoidx (pos) WITH (fillfactor = 10);
	CHECKPOINT;
});
is($node->safe_psql('postgres', q{SELECT depth FROM geoidx_stats('pts_idx')}), '3', 'the index has three levels');
my $file = $node->data_dir . '/' . $node->safe_psql('postgres', q{SELECT pg_relation_filepath('pts_idx')});
ok(-f $file, "index file $file");

# --- pages ------------------------------------------------------------------

sub read_block
{
	my ($blk) = @_;
	open(my $fh, '<:raw', $file) or die "open $file: $!";
	seek($fh, $blk * BLCKSZ, 0) or die;
	read($fh, my $page, BLCKSZ) == BLCKSZ or die "short read of block $blk";
	close $fh;
	return $page;
}

sub write_block
{
	my ($blk, $page) = @_;
	die "page of " . length($page) . " bytes" unless length($page) == BLCKSZ;
	open(my $fh, '+<:raw', $file) or die "open $file: $!";
	seek($fh, $blk * BLCKSZ, 0) or die;
	print $fh $page or die;
	close $fh or die;
	return;
}

# header and special space of a page
sub info
{
	my ($page) = @_;
	my %h;
	@h{qw(lsn_hi lsn_lo lower upper special)} = unpack('V V x4 v v v', $page);
	my $sp = $h{special};
	@h{qw(nsn rightlink level flags page_id)} = unpack("x$sp Q< V v v x2 v", $page);
	$h{count} = ($h{lower} - ENTRIES_OFFSET) / (($h{flags} & F_LEAF) ? LEAF_ENTRY : INTERNAL_ENTRY);
	return \%h;
}

# sets fields of the special space (nsn, rightlink, level, flags)
sub set_special
{
	my ($page, %f) = @_;
	my $sp = info($page)->{special};
	substr($page, $sp, 8) = pack('Q<', $f{nsn}) if defined $f{nsn};
	substr($page, $sp + 8, 4) = pack('V', $f{rightlink}) if defined $f{rightlink};
	substr($page, $sp + 12, 2) = pack('v', $f{level}) if defined $f{level};
	substr($page, $sp + 14, 2) = pack('v', $f{flags}) if defined $f{flags};
	return $page;
}

sub children
{
	my ($page) = @_;
	my $i = info($page);
	return map { unpack('V', substr($page, ENTRIES_OFFSET + $_ * INTERNAL_ENTRY, 4)) } 0 .. $i->{count} - 1;
}

sub leaf_points
{
	my ($page) = @_;
	my $i = info($page);
	return map { [ unpack('d< d<', substr($page, ENTRIES_OFFSET + $_ * LEAF_ENTRY + 8, 16)) ] } 0 .. $i->{count} - 1;
}

srand(20261130);
sub random_bytes { my ($n) = @_; return pack('C*', map { int(rand(256)) } 1 .. $n); }

$node->stop;
my $pristine = do { open(my $fh, '<:raw', $file) or die; local $/; <$fh> };
my $root = read_block(1);
is(info($root)->{level}, 2, 'block 1 is the root, on level 2');
my @inner = children($root);
my $inner = $inner[0];
my $inner_page = read_block($inner);
is(info($inner_page)->{level}, 1, "block $inner is an internal page on level 1");
my @leaves = children($inner_page);
cmp_ok(scalar @leaves, '>=', 2, 'it has two leaves at least');
my ($leaf, $leaf2) = @leaves[ 0, 1 ];
my $leaf_page = read_block($leaf);
my $leaf2_page = read_block($leaf2);
is(info($leaf_page)->{flags} & F_LEAF, F_LEAF, "block $leaf is a leaf");
note("root 1, internal $inner, leaves $leaf and $leaf2");

# The INSERT goes through the damaged leaf: it inserts the leaf's own points
# (and points all over the world, which pass the root and the internal pages).
my $insert_values = join(', ', map { sprintf('(ST_SetSRID(ST_MakePoint(%.17g, %.17g), 4326))', @$_) } leaf_points($leaf_page));
my $insert = qq{BEGIN;
	INSERT INTO pts SELECT 100000 + row_number() OVER (), p FROM (VALUES $insert_values) v(p);
	INSERT INTO pts SELECT 200000 + i, ST_SetSRID(ST_MakePoint((i * 37) % 360 - 180, (i * 17) % 170 - 85), 4326)
		FROM generate_series(1, 500) i;
	ROLLBACK};

my %checks = (
	verify => q{SELECT geoidx_verify('pts_idx')},
	stats => q{SELECT pages FROM geoidx_stats('pts_idx')},
	radius => q{SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM pts WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 20)', 2.1e7)},
	bitmap => q{SET enable_seqscan = off; SET enable_indexscan = off;
		SELECT count(*) FROM pts WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 20)', 2.1e7)},
	knn => q{SET enable_seqscan = off;
		SELECT count(*) FROM (SELECT id FROM pts ORDER BY pos <~> 'SRID=4326;POINT(10 20)' LIMIT 1000000000) s},
	insert => $insert,
	vacuum => q{VACUUM pts},
);
my @order = qw(verify stats radius bitmap knn insert vacuum);

my $geoidx_error = qr/index "pts_idx" (contains corrupted page at block \d+|is not valid: heap tuple)/;
my $core_error = qr/invalid page in block \d+ of relation/;

# Runs every check; returns { check => 'ok' | the error }. Fails the test on a
# timeout (an endless loop) or when the server went away (a crash).
sub run_checks
{
	my ($case) = @_;
	my %r;
	for my $c (@order)
	{
		my ($ret, $out, $err) = $node->psql('postgres', "SET statement_timeout = '60s'; $checks{$c}",
			timeout => 300, on_error_stop => 1);
		unlike($err, qr/statement timeout/, "$case: $c does not run forever");
		my ($msg) = $err =~ /ERROR:\s+(.*)/;
		$r{$c} = $ret == 0 ? "ok $out" : ($msg // "failed: $err");
		is($node->safe_psql('postgres', 'SELECT 1'), '1', "$case: the server is up after $c");
		# a link to block 0xFFFFFFFF once made ReadBuffer extend the index (P_NEW)
		is(-s $file, length($pristine), "$case: the readers did not extend the index")
		  if $c eq 'knn';
	}
	my $log = slurp_file($node->logfile);
	unlike($log, qr/terminated by signal|server process .* was terminated/, "$case: no backend crashed");
	return \%r;
}

# --- the undamaged index answers as PostGIS does -----------------------------

$node->start;
my $plans = $node->safe_psql('postgres', qq{SET enable_seqscan = off; SET enable_bitmapscan = off;
	EXPLAIN (COSTS OFF) SELECT count(*) FROM pts WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 20)', 2.1e7);
	EXPLAIN (COSTS OFF) SELECT id FROM pts ORDER BY pos <~> 'SRID=4326;POINT(10 20)' LIMIT 1000000000;
	SET enable_indexscan = off; SET enable_bitmapscan = on;
	EXPLAIN (COSTS OFF) SELECT count(*) FROM pts WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(10 20)', 2.1e7)});
like($plans, qr/Index (Only )?Scan using pts_idx.*Index (Only )?Scan using pts_idx.*Bitmap Index Scan on pts_idx/s,
	'radius, k-NN and bitmap checks use the index');
my $all = $node->safe_psql('postgres', q{SELECT count(*) FROM pts WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(10 20)'::geography, 2.1e7)});
is($all, '20000', 'the radius of the checks holds every row');
my $base = run_checks('pristine');
for my $c (@order)
{
	like($base->{$c}, qr/^ok/, "pristine: $c succeeds");
}
is($base->{$_}, "ok $all", "pristine: $_ returns every row") for qw(radius bitmap knn);
$node->stop;

# --- the cases ------------------------------------------------------------------

my $page_level = [qw(verify stats radius bitmap knn insert vacuum)];  # every reader of the page
my $tree_level = [qw(verify radius bitmap knn insert)];              # whoever follows the links
my @cases = (
	{
		name => 'a leaf of random bytes',
		blocks => { $leaf => random_bytes(BLCKSZ) },
		must_fail => $page_level,
		core_ok => 1,
	},
	{
		name => 'random bytes under a valid page header',
		blocks => { $leaf => substr($leaf_page, 0, 24) . random_bytes(BLCKSZ - 24) },
		must_fail => $page_level,
	},
	{
		# (an all-zero page at the end of the file is what a crash between
		# extending the file and logging the page leaves: passes over the
		# physical file, VACUUM and geoidx_stats, may skip one; but a link to
		# an all-zero page is corruption)
		name => 'an all-zero leaf',
		blocks => { $leaf => "\0" x BLCKSZ },
		must_fail => $tree_level,
	},
	{
		name => 'pd_lower inside an entry',
		blocks => { $leaf => do { my $p = $leaf_page; substr($p, 12, 2) = pack('v', info($p)->{lower} - 8); $p } },
		must_fail => $page_level,
	},
	{
		name => 'pd_lower before the entries',
		blocks => { $inner => do { my $p = $inner_page; substr($p, 12, 2) = pack('v', 40); $p } },
		must_fail => $page_level,
	},
	{
		name => 'unknown flags on the root',
		blocks => { 1 => set_special($root, flags => 0x0100) },
		must_fail => $page_level,
	},
	{
		name => 'a leaf flag on a level-1 page',
		blocks => { $inner => set_special($inner_page, flags => F_LEAF) },
		must_fail => $page_level,
	},
	{
		name => 'an internal page one level too high',
		blocks => { $inner => set_special($inner_page, level => 2) },
		must_fail => $tree_level,
	},
	{
		name => 'a right-link cycle between two leaves',
		blocks => {
			$leaf => set_special($leaf_page, rightlink => $leaf2, flags => F_LEAF | F_FOLLOW_RIGHT),
			$leaf2 => set_special($leaf2_page, rightlink => $leaf, flags => F_LEAF | F_FOLLOW_RIGHT),
		},
		must_fail => $tree_level,
	},
	{
		name => 'a right-link to the page itself',
		blocks => { $leaf => set_special($leaf_page, rightlink => $leaf, flags => F_LEAF | F_FOLLOW_RIGHT) },
		must_fail => $page_level,
	},
	{
		name => 'FOLLOW_RIGHT with no right-link',
		blocks => { $leaf => set_special($leaf_page, rightlink => 0xFFFFFFFF, flags => F_LEAF | F_FOLLOW_RIGHT) },
		must_fail => $page_level,
	},
	{
		name => 'a downlink back to the root',
		blocks => { $inner => do { my $p = $inner_page; substr($p, ENTRIES_OFFSET + INTERNAL_ENTRY, 4) = pack('V', 1); $p } },
		must_fail => [qw(verify radius bitmap knn)],
	},
	{
		name => 'a downlink to block 0xFFFFFFFF',
		blocks => { 1 => do { my $p = $root; substr($p, ENTRIES_OFFSET, 4) = pack('V', 0xFFFFFFFF); $p } },
		must_fail => [qw(verify radius bitmap knn)],
	},
	{
		name => 'an NSN ahead of the page LSN',
		blocks => { $inner => set_special($inner_page, nsn => 0x7FFFFFFFFFFFFFFF) },
		must_fail => $page_level,
	},
	{
		name => 'a metapage without its magic number',
		blocks => { 0 => do { my $p = read_block(0); substr($p, 24, 4) = pack('V', 0x12345678); $p } },
		# an INSERT never reads the metapage
		must_fail => [qw(verify stats radius bitmap knn vacuum)],
	},
	{
		name => 'random entries under a valid header and special space',
		blocks => { $leaf => do { my $p = $leaf_page; substr($p, 24, info($p)->{lower} - 24) = random_bytes(info($p)->{lower} - 24); $p } },
		# the page looks sound: only geoidx_verify can tell; the rest must survive it
		must_fail => [qw(verify)],
	},
);

for my $case (@cases)
{
	my $name = $case->{name};
	open(my $fh, '>:raw', $file) or die;
	print $fh $pristine;
	close $fh;
	write_block($_, $case->{blocks}{$_}) for keys %{ $case->{blocks} };
	$node->start;
	my $r = run_checks($name);
	my $want = $case->{core_ok} ? qr/$geoidx_error|$core_error/ : $geoidx_error;
	for my $c (@{ $case->{must_fail} })
	{
		like($r->{$c}, $want, "$name: $c reports it");
	}
	note("$name: $_ => $r->{$_}") for @order;
	$node->stop;
}

# --- the pristine file again ---------------------------------------------------------

open(my $fh, '>:raw', $file) or die;
print $fh $pristine;
close $fh;
$node->start;
my $again = run_checks('restored');
like($again->{$_}, qr/^ok/, "restored: $_ succeeds") for @order;
is($again->{$_}, "ok $all", "restored: $_ returns every row") for qw(radius bitmap knn);
is($node->safe_psql('postgres', q{SET enable_seqscan = off;
	SELECT (SELECT array_agg(id ORDER BY id) FROM pts WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(2 48)', 500000))
		 = (SELECT array_agg(id ORDER BY id) FROM pts WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(2 48)'::geography, 500000))}),
	't', 'restored: a radius query equals PostGIS');
$node->stop;

# --- an all-zero page past the end: what a crash between extending the file
# for a split and logging the split leaves. Nothing links to it; VACUUM,
# geoidx_stats and geoidx_verify must take it as unused, and inserts go on.
open($fh, '>>:raw', $file) or die;
print $fh "\0" x BLCKSZ;
close $fh;
$node->start;
$node->safe_psql('postgres', 'VACUUM pts');
pass('zero page at the end: VACUUM passes');
$node->safe_psql('postgres', q{SELECT geoidx_verify('pts_idx')});
pass('zero page at the end: geoidx_verify passes');
like($node->safe_psql('postgres', q{SELECT pages FROM geoidx_stats('pts_idx')}), qr/^\d+$/,
	'zero page at the end: geoidx_stats passes');
$node->safe_psql('postgres', q{INSERT INTO pts SELECT 100000 + i, ST_SetSRID(ST_MakePoint(2 + i / 1000.0, 48), 4326) FROM generate_series(1, 3000) i;
	SELECT geoidx_verify('pts_idx')});
is($node->safe_psql('postgres', q{SET enable_seqscan = off;
	SELECT (SELECT array_agg(id ORDER BY id) FROM pts WHERE geoidx_dwithin(pos, 'SRID=4326;POINT(2 48)', 500000))
		 = (SELECT array_agg(id ORDER BY id) FROM pts WHERE ST_DWithin(pos::geography, 'SRID=4326;POINT(2 48)'::geography, 500000))}),
	't', 'zero page at the end: inserts go on and answers equal PostGIS');

# --- a large polygon's pieces (an entry of a _PIECES kind, format.h): the
# count before the entry's grid says 99 pieces, more than any entry keeps.
# geoidx_verify names the entry; scans read it without its pieces (its box
# and grid still decide soundly) and answer as PostGIS does; REINDEX mends it.
$node->safe_psql('postgres', q{
	CREATE TABLE zones (id int PRIMARY KEY, shape geometry);
	INSERT INTO zones SELECT 1, ST_SetSRID(ST_MakePolygon(ST_AddPoint(l, ST_StartPoint(l))), 4326) FROM (
		SELECT ST_MakeLine(ST_MakePoint(2 + 0.3 * (1 + 0.1 * sin(37 * a)) * cos(a) / cos(radians(48)),
			48 + 0.3 * (1 + 0.1 * sin(37 * a)) * sin(a)) ORDER BY i) AS l
		FROM (SELECT i, 2 * pi() * i / 8000 AS a FROM generate_series(0, 7999) i) s) q;
	CREATE INDEX zones_idx ON zones USING geoidx (shape);
	CREATE TABLE zprobes AS SELECT i * 100 + j AS id, ST_SetSRID(ST_MakePoint(1.5 + i * 0.02, 47.65 + j * 0.014), 4326) AS pt
		FROM generate_series(0, 50) i, generate_series(0, 50) j;
	CHECKPOINT;
});
my $zfile = $node->data_dir . '/' . $node->safe_psql('postgres', q{SELECT pg_relation_filepath('zones_idx')});
$node->stop;
open($fh, '+<:raw', $zfile) or die "open $zfile: $!";
seek($fh, 1 * BLCKSZ, 0) or die;
read($fh, my $zpage, BLCKSZ) == BLCKSZ or die 'short read of the zones index root';
my $zflags = unpack('v', substr($zpage, ENTRIES_OFFSET + 6, 2));
my $zoff = ($zflags >> 4) * 8;
my $zsize = unpack('v', substr($zpage, $zoff + 6, 2)) & 0x1FFF;
my $npos = $zoff + $zsize - 32 - 8;    # [pieces][n: uint64][grid: 32 bytes]
my $npieces = unpack('Q<', substr($zpage, $npos, 8));
ok(($zflags & 0xF) >= 6 && $npieces >= 2 && $npieces <= 16,
	"the polygon's entry keeps its pieces (kind " . ($zflags & 0xF) . ", $npieces pieces)");
substr($zpage, $npos, 8) = pack('Q<', 99);
seek($fh, 1 * BLCKSZ, 0) or die;
print $fh $zpage or die;
close $fh or die;
$node->start;
my ($zret, $zout, $zerr) = $node->psql('postgres', q{SELECT geoidx_verify('zones_idx')});
like($zerr, qr/index "zones_idx" contains corrupted page at block 1.*entry 0 has a payload that does not hold its pieces/s,
	'pieces: geoidx_verify names the entry whose count is wrong');
my $zsame = q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT (SELECT array_agg(p.id ORDER BY p.id) FROM zprobes p, LATERAL (SELECT 1 FROM zones z WHERE geoidx_covers(z.shape, p.pt) OFFSET 0) z)
		 = (SELECT array_agg(id ORDER BY id) FROM zprobes p WHERE ST_Covers((SELECT shape FROM zones)::geography, p.pt::geography))};
is($node->safe_psql('postgres', $zsame), 't', 'pieces: with the count wrong, index scans still answer as PostGIS');
$node->safe_psql('postgres', q{REINDEX INDEX zones_idx; SELECT geoidx_verify('zones_idx')});
pass('pieces: REINDEX mends the entry, geoidx_verify passes');
is($node->safe_psql('postgres', $zsame), 't', 'pieces: after REINDEX, index scans answer as PostGIS');
$node->stop;

done_testing();
