# Entry tags (format.h): a leaf of an index whose first column after the
# point is an integer or a boolean keeps a byte per entry, the tag of that
# column's value (the value itself for 0 .. 126, else a hash; 0 for NULL), and
# a scan filtering that column by value compares a chunk's 32 tags at once:
# no match skips the chunk, and an exact tag's match is the row, with no
# payload read.
#
# For each kind (int2, int4 with values 0 .. 99, all exact; int4 with values
# 0 .. 299, exact and hashed; int8 with values far apart and negative, all
# hashed; bool; an int4 with a second key column, where a tag decides only
# with the payload; and text, which gets none), with NULLs in the column and
# NULL points: the filtered k-NN and radius answers (=, IN lists, an IN list
# of NULL only, an empty one) equal PostGIS geography over the filtered rows
# of the heap, after the bulk build, after inserts that split leaves, and
# after DELETE + VACUUM; geoidx_verify passes at each step, and the leaves
# carry the kind's flags.
#
# Then the tags are shown to be read: with the server stopped, one leaf's tags
# are cleared. geoidx_verify names the entry; a filtered scan of a category
# its rows hold now misses them (the scan believed the tags), while the same
# scan with no filter still finds every row. A leaf of the development layout
# that kept chunk summaries (the kind's bits without the tags flag) is refused
# with REINDEX as the hint. The pristine file put back, everything agrees
# again.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use constant BLCKSZ => 8192;
use constant ENTRIES_OFFSET => 72;
use constant LEAF_ENTRY => 24;
use constant F_LEAF => 0x0002;
use constant F_TAGS => 0x0080;
use constant CHUNK_AREA => 264;    # MAXALIGN(11 chunk boxes of 24 bytes)
use constant TAG_AREA => 192;      # a byte for each of 6 chunks of 32 entries

my $node = geoidx_node('tags', conf => "autovacuum = off\njit = off\n");

# kind => [column type, value expression of i, the tags' kind in the leaf flags,
#          a second key column (its type), or none]
my %kinds = (
	i2 => [ 'int2', '(i * 7919 % 100)::int2', 2 ],
	i4 => [ 'int4', '(i * 7919 % 100)::int4', 3 ],
	i4w => [ 'int4', '(i * 7919 % 300)::int4', 3 ],
	i8 => [ 'int8', '((i * 7919 % 50) - 25)::int8 * 1000000000007', 4 ],
	b => [ 'bool', '(i % 7 = 0)', 1 ],
	i4n => [ 'int4', '(i * 7919 % 100)::int4', 3, 'int4' ],
	t => [ 'text', '(i * 7919 % 100)::text', 0 ],
);
my @kinds = sort keys %kinds;

for my $k (@kinds)
{
	my ($type, $expr, undef, $second) = @{ $kinds{$k} };
	my $n = $second ? ", n" : '';
	$node->safe_psql('postgres', qq{
		CREATE TABLE s_$k (id int PRIMARY KEY, pos geometry(Point, 4326), cat $type, n int);
		INSERT INTO s_$k SELECT i,
			CASE WHEN i % 997 = 0 THEN NULL
				ELSE ST_SetSRID(ST_MakePoint(((i * 7907) % 36000) / 100.0 - 180,
					degrees(asin(2 * ((i::int8 * 104723) % 100000) / 100000.0 - 1))), 4326) END,
			CASE WHEN i % 101 = 0 THEN NULL ELSE $expr END, i % 89
		FROM generate_series(1, 30000) i;
		CREATE INDEX s_${k}_idx ON s_$k USING geoidx (pos, cat$n);
	});
}

# The values a filter asks for, per kind: present ones, and one no row has.
sub values_of
{
	my ($k) = @_;
	return ('true', 'false') if $k eq 'b';
	return (map { "'$_'" } (7, 42, 99, 1000)) if $k eq 't';
	return (map { ($_ - 25) * 1000000000007 } (0, 13, 49)), 5 if $k eq 'i8';
	return (0, 7, 126, 127, 250, 1000) if $k eq 'i4w';
	return (0, 7, 42, 99, 1000);
}

my @centres = ([ 0, 0 ], [ 179.9, 10 ], [ -73.98, 40.75 ], [ 10, 89.9 ], [ 120, -45 ]);

# Compares the filtered answers of the index with PostGIS over the heap.
sub check_answers
{
	my ($phase) = @_;
	for my $k (@kinds)
	{
		my $type = $kinds{$k}[0];
		my @conds = map { "cat = $_" } values_of($k);
		my @v = values_of($k);
		push @conds, "cat IN ($v[0], $v[1])", "cat = ANY(ARRAY[NULL]::${type}[])",
		  "cat = ANY(ARRAY[]::${type}[])", "cat = ANY(ARRAY[$v[1], NULL])";
		push @conds, "cat IN ($v[1], $v[4])" if $k eq 'i4w';    # an exact tag and a hashed one
		push @conds, "cat = $v[1] AND n < 40", "cat IN ($v[1], $v[2]) AND n >= 40" if $kinds{$k}[3];
		for my $cond (@conds)
		{
			for my $c (@centres)
			{
				my $pt = "ST_SetSRID(ST_MakePoint($c->[0], $c->[1]), 4326)";
				# k-NN: the index's distances in order, against geography's over the filtered heap
				my $idx = $node->safe_psql('postgres', qq{
					SET enable_seqscan = off; SET enable_bitmapscan = off;
					SELECT string_agg(round(d::numeric, 6)::text, ',' ORDER BY rn) FROM (
						SELECT row_number() OVER () rn, pos <~> $pt AS d FROM (
							SELECT pos FROM s_$k WHERE $cond ORDER BY pos <~> $pt LIMIT 25) a) b});
				my $ref = $node->safe_psql('postgres', qq{
					SET enable_indexscan = off; SET enable_bitmapscan = off;
					SELECT string_agg(round(d::numeric, 6)::text, ',' ORDER BY d NULLS LAST) FROM (
						SELECT ST_Distance(pos::geography, ${pt}::geography) d FROM s_$k
						 WHERE $cond ORDER BY 1 NULLS LAST LIMIT 25) a});
				is($idx, $ref, "$phase: $k $cond k-NN at ($c->[0] $c->[1]) equals geography's");
			}
			# radius: the ids of the index scan and of the bitmap scan, against geography's
			my $pt = 'ST_SetSRID(ST_MakePoint(-73.98, 40.75), 4326)';
			my $ref = $node->safe_psql('postgres', qq{
				SET enable_indexscan = off; SET enable_bitmapscan = off;
				SELECT count(*) || ':' || coalesce(sum(id), 0) FROM s_$k
				 WHERE $cond AND ST_DWithin(pos::geography, ${pt}::geography, 3000000)});
			for my $scan ([ 'index', 'SET enable_bitmapscan = off' ], [ 'bitmap', 'SET enable_indexscan = off' ])
			{
				my $got = $node->safe_psql('postgres', qq{
					SET enable_seqscan = off; $scan->[1];
					SELECT count(*) || ':' || coalesce(sum(id), 0) FROM s_$k
					 WHERE $cond AND geoidx_dwithin(pos, $pt, 3000000)});
				is($got, $ref, "$phase: $k $cond radius by $scan->[0] scan equals geography's");
			}
		}
		is($node->safe_psql('postgres', "SELECT geoidx_verify('s_${k}_idx')"), '', "$phase: s_${k}_idx verifies");
	}
	return;
}

# --- the leaves carry the summaries of their kind ---------------------------------
my %files;
for my $k (@kinds)
{
	$node->safe_psql('postgres', 'CHECKPOINT');
	$files{$k} = $node->data_dir . '/' . $node->safe_psql('postgres', qq{SELECT pg_relation_filepath('s_${k}_idx')});
}

sub read_block
{
	my ($file, $blk) = @_;
	open(my $fh, '<:raw', $file) or die "open $file: $!";
	seek($fh, $blk * BLCKSZ, 0) or die;
	read($fh, my $page, BLCKSZ) == BLCKSZ or die "short read of block $blk";
	close $fh;
	return $page;
}

# header and special space of a page
sub info
{
	my ($page) = @_;
	my %h;
	@h{qw(lower upper special)} = unpack('x12 v v v', $page);
	my $sp = $h{special};
	@h{qw(level flags)} = unpack("x$sp x12 v v", $page);
	$h{count} = ($h{lower} - ENTRIES_OFFSET) / LEAF_ENTRY if $h{flags} & F_LEAF;
	return \%h;
}

for my $k (@kinds)
{
	my $nblocks = (-s $files{$k}) / BLCKSZ;
	my %flags;
	for my $blk (1 .. $nblocks - 1)
	{
		my $i = info(read_block($files{$k}, $blk));
		$flags{ $i->{flags} }++ if $i->{level} == 0;
	}
	my $want = F_LEAF | ($kinds{$k}[2] ? F_TAGS | ($kinds{$k}[2] << 4) : 0);
	is(join(',', sort keys %flags), $want, "every leaf of s_${k}_idx has flags $want");
}

check_answers('built');

# --- inserts that split leaves, then DELETE and VACUUM -------------------------------
for my $k (@kinds)
{
	my $expr = $kinds{$k}[1];
	$node->safe_psql('postgres', qq{
		INSERT INTO s_$k SELECT i, ST_SetSRID(ST_MakePoint(((i * 7907) % 36000) / 100.0 - 180,
			degrees(asin(2 * ((i::int8 * 104723) % 100000) / 100000.0 - 1))), 4326),
			CASE WHEN i % 103 = 0 THEN NULL ELSE $expr END
		FROM generate_series(30001, 60000) i});
}
check_answers('inserted');
for my $k (@kinds)
{
	$node->safe_psql('postgres', qq{DELETE FROM s_$k WHERE id % 3 = 0; VACUUM s_$k});
}
check_answers('vacuumed');

# --- a leaf's tags cleared: verify names it, and the filtered scan believes them ----
my $k = 'i4';
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop;
my $file = $files{$k};
my $pristine = do { open(my $fh, '<:raw', $file) or die; local $/; <$fh> };
my ($leaf, $page, $cat);
for my $blk (2 .. length($pristine) / BLCKSZ - 1)
{
	my $p = substr($pristine, $blk * BLCKSZ, BLCKSZ);
	my $i = info($p);
	next unless $i->{level} == 0 && $i->{count} >= 64;
	# the category of entry 0: its payload is an index tuple, the int4 after 8 bytes of header
	my $eflags = unpack('v', substr($p, ENTRIES_OFFSET + 6, 2));
	my $off = ($eflags >> 4) * 8;
	my $tinfo = unpack('v', substr($p, $off + 6, 2));
	next if $off == 0 || ($tinfo & 0x4000);    # a payload with a NULL
	($leaf, $page, $cat) = ($blk, $p, unpack('l<', substr($p, $off + 8, 4)));
	last;
}
ok(defined $leaf, "leaf ${leaf}'s entry 0 is of category $cat");
my $tags_at = info($page)->{special} - CHUNK_AREA - TAG_AREA;
is(unpack('C', substr($page, $tags_at, 1)), $cat + 1, "entry 0's tag is its category plus one");

sub write_leaf
{
	my ($p) = @_;
	open(my $fh, '+<:raw', $file) or die;
	seek($fh, $leaf * BLCKSZ, 0) or die;
	print $fh $p or die;
	close $fh or die;
	return;
}
my $cleared = $page;
substr($cleared, $tags_at, TAG_AREA) = "\0" x TAG_AREA;
write_leaf($cleared);
$node->start;
my ($rc, $out, $err) = $node->psql('postgres', "SELECT geoidx_verify('s_${k}_idx')");
like($err, qr/index "s_i4_idx" contains corrupted page at block $leaf\b/, "geoidx_verify names block $leaf");
like($err, qr/the tag of entry 0 is 0, not its value's @{[$cat + 1]}/, "... and entry 0's tag not its value's");
my $everywhere = 'ST_SetSRID(ST_MakePoint(0, 0), 4326)';
# every row of the category, NULL points too: a k-NN scan returns those last
my $seq = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
my $truth = $node->safe_psql('postgres', "$seq SELECT count(*) FROM s_$k WHERE cat = $cat");
my $by_index = $node->safe_psql('postgres', qq{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM (SELECT 1 FROM s_$k WHERE cat = $cat ORDER BY pos <~> $everywhere LIMIT 1000000) a});
cmp_ok($by_index, '<', $truth + 0,
	"with the leaf's tags cleared, the filtered k-NN scan misses its rows of category $cat ($by_index of $truth)");
my $unfiltered = $node->safe_psql('postgres', qq{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM (SELECT 1 FROM s_$k ORDER BY pos <~> $everywhere LIMIT 10000000) a});
is($unfiltered, $node->safe_psql('postgres', "$seq SELECT count(*) FROM s_$k"),
	'the scan with no filter reads no tag, and finds every row');

# --- the development layout (the kind without the tags flag) is refused --------------
$node->stop;
my $dev = $page;
my $flags_at = info($page)->{special} + 14;
substr($dev, $flags_at, 2) = pack('v', unpack('v', substr($page, $flags_at, 2)) & ~F_TAGS);
write_leaf($dev);
$node->start;
($rc, $out, $err) = $node->psql('postgres', qq{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM (SELECT 1 FROM s_$k WHERE cat = $cat ORDER BY pos <~> $everywhere LIMIT 1000000) a});
like($err, qr/index "s_i4_idx" has a leaf of a development layout, at block $leaf/, 'a leaf without the tags flag is refused');
like($err, qr/HINT:  REINDEX the index/, '... with REINDEX as the hint');

$node->stop;
{
	open(my $fh, '>:raw', $file) or die;
	print $fh $pristine or die;
	close $fh or die;
}
$node->start;
is($node->safe_psql('postgres', "SELECT geoidx_verify('s_${k}_idx')"), '', 'the pristine file verifies');
is($node->safe_psql('postgres', qq{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM (SELECT 1 FROM s_$k WHERE cat = $cat ORDER BY pos <~> $everywhere LIMIT 1000000) a}),
	$truth,
	'and its filtered scan finds every row of the category again');

$node->stop;
done_testing();
