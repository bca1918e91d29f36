# Differential test of the regions other than a disc: keyset paging
# (`pos <~> c >= D ... ORDER BY pos <~> c LIMIT k`, geoidx_beyond/nearer),
# rings (geoidx_ring, geoidx_dwithin AND NOT geoidx_dwithin), 'not within'
# (NOT geoidx_dwithin, geoidx_outside), rings combined with k-NN, the same on
# a geography column, and NULL/EMPTY rows in an unlimited ORDER BY <~>.
#
# Every answer is compared with PostGIS geography (ST_Distance, ST_DWithin,
# computed by a sequential scan or by PostGIS's own GiST index) and plain SQL
# over those values, never with geoidx's own output. Deterministic (setseed).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Utils;
use Test::More;
use JSON::PP;
use Time::HiRes ();
use IPC::Run ();

my $t0 = Time::HiRes::time();
my $node = geoidx_node('regions', conf => "work_mem = 64MB\njit = off\nclient_min_messages = warning\n");
my $db = 'postgres';

sub sql { return $node->safe_psql($db, "SET client_min_messages = warning;\n" . $_[0]); }

# Scan-mode settings.
my %mode = (
	index => 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexscan = on; SET enable_indexonlyscan = on;',
	bitmap => 'SET enable_seqscan = off; SET enable_bitmapscan = on; SET enable_indexscan = off; SET enable_indexonlyscan = off;',
	seq => 'SET enable_seqscan = on; SET enable_bitmapscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off;',
);

# An order-independent fingerprint of a set of ids (with multiplicity).
sub fp
{
	my ($col, $filter) = @_;
	my $f = defined $filter ? " FILTER (WHERE $filter)" : '';
	return "count(*)$f || ':' || coalesce(sum($col)$f, 0) || ':' || coalesce(bit_xor(hashint4($col))$f, 0)"
	  . " || ':' || coalesce(sum(hashint4($col)::bigint)$f, 0)";
}

# --- the data -----------------------------------------------------------------
sql(q{
	SELECT setseed(0.0601);
	CREATE TABLE rp_src (id int PRIMARY KEY, src text NOT NULL, pos geometry(Point, 4326));
	CREATE TEMP SEQUENCE rp_id;
	-- uniform on the sphere
	INSERT INTO rp_src SELECT nextval('rp_id'), 'uniform',
		ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
	FROM generate_series(1, 9000);
	-- clusters from a micrometre to a degree across
	INSERT INTO rp_src SELECT nextval('rp_id'), 'cluster', ST_SetSRID(ST_MakePoint(
		greatest(-180, least(180, c.lon + c.spread * (random() - 0.5))),
		greatest(-90, least(90, c.lat + c.spread * (random() - 0.5)))), 4326)
	FROM (SELECT 360 * random() - 180 AS lon, 160 * random() - 80 AS lat, power(10, -6 + 6 * random()) AS spread
		  FROM generate_series(1, 8)) c, generate_series(1, 500);
	-- the antimeridian band and exactly +-180
	INSERT INTO rp_src SELECT nextval('rp_id'), 'antimeridian', ST_SetSRID(ST_MakePoint(
		CASE WHEN random() < 0.5 THEN 180 - 2 * random() ELSE -180 + 2 * random() END, 140 * random() - 70), 4326)
	FROM generate_series(1, 1500);
	INSERT INTO rp_src SELECT nextval('rp_id'), 'antimeridian',
		ST_SetSRID(ST_MakePoint(CASE WHEN i % 2 = 0 THEN 180 ELSE -180 END, 0.05 * i - 5), 4326)
	FROM generate_series(1, 200) i;
	-- polar caps, and the poles at many longitudes (all equally far from any centre)
	INSERT INTO rp_src SELECT nextval('rp_id'), 'polar', ST_SetSRID(ST_MakePoint(360 * random() - 180,
		CASE WHEN random() < 0.5 THEN 90 - 3 * random() ELSE -90 + 3 * random() END), 4326)
	FROM generate_series(1, 1500);
	INSERT INTO rp_src SELECT nextval('rp_id'), 'pole',
		ST_SetSRID(ST_MakePoint(360 * random() - 180, CASE WHEN i % 2 = 0 THEN 90 ELSE -90 END), 4326)
	FROM generate_series(1, 100) i;
	-- an integer grid: different points exactly as far from the grid's centres (lon 0)
	INSERT INTO rp_src SELECT nextval('rp_id'), 'grid', ST_SetSRID(ST_MakePoint(lon, lat), 4326)
	FROM generate_series(-20, 20) lon, generate_series(30, 50) lat;
	-- coordinates the geography cast wraps
	INSERT INTO rp_src SELECT nextval('rp_id'), 'wrapped',
		ST_SetSRID(ST_MakePoint(180 + 10 * random(), 100 * random() - 50), 4326)
	FROM generate_series(1, 150);
	INSERT INTO rp_src SELECT nextval('rp_id'), 'wrapped',
		ST_SetSRID(ST_MakePoint(360 * random() - 180, 90 + 3 * random()), 4326)
	FROM generate_series(1, 100);
	-- exact duplicates: 2 to 7 copies of the point of 1 row in 12
	INSERT INTO rp_src SELECT nextval('rp_id'), 'duplicate', r.pos
	FROM rp_src r, generate_series(1, 6) k WHERE r.id % 12 = 0 AND k <= 1 + (r.id / 12) % 6;
	-- rows without a distance
	INSERT INTO rp_src SELECT nextval('rp_id'), 'null', NULL FROM generate_series(1, 15);
	INSERT INTO rp_src SELECT nextval('rp_id'), 'empty', 'SRID=4326;POINT EMPTY' FROM generate_series(1, 15);

	-- physical order shuffled, so that ties are not in id or TID order alike
	CREATE TABLE rp (id int PRIMARY KEY, src text NOT NULL, pos geometry(Point, 4326));
	INSERT INTO rp SELECT * FROM rp_src ORDER BY md5(id::text);
	-- a small table (every duplicate of a chosen point kept) for page size 1
	CREATE TABLE rp_small (id int PRIMARY KEY, src text NOT NULL, pos geometry(Point, 4326));
	INSERT INTO rp_small SELECT * FROM rp
	WHERE pos IS NULL OR ST_IsEmpty(pos) OR src IN ('grid', 'pole')
		OR abs(hashfloat8(ST_X(pos)) % 12) = 0 ORDER BY md5(id::text || 'x');
	-- the same points as geography
	CREATE TABLE rpg (id int PRIMARY KEY, g geography(Point, 4326));
	INSERT INTO rpg SELECT id, pos::geography FROM rp ORDER BY md5(id::text || 'g');

	CREATE INDEX rp_gx ON rp USING geoidx (pos);
	CREATE INDEX rp_small_gx ON rp_small USING geoidx (pos);
	CREATE INDEX rpg_gx ON rpg USING geoidx (g);
	-- PostGIS's own index, for the ST_DWithin references
	CREATE INDEX rp_geog ON rp USING gist ((pos::geography));
	VACUUM ANALYZE rp; VACUUM ANALYZE rp_small; VACUUM ANALYZE rpg;

	-- the centres: grid centres, the poles, the antimeridian, data points, wrapped, random
	CREATE TABLE cen (cid int PRIMARY KEY, center geometry(Point, 4326));
	INSERT INTO cen VALUES
		(1, 'SRID=4326;POINT(0 40)'), (2, 'SRID=4326;POINT(0 90)'), (3, 'SRID=4326;POINT(-123.4 -90)'),
		(4, 'SRID=4326;POINT(180 0)'), (5, 'SRID=4326;POINT(-180 45.5)'), (6, 'SRID=4326;POINT(179.99 -30)'),
		(9, 'SRID=4326;POINT(5 89.9)'), (10, 'SRID=4326;POINT(-60 -89.5)'), (11, 'SRID=4326;POINT(190 10)'),
		(12, 'SRID=4326;POINT(0 35)');
	INSERT INTO cen SELECT 7, pos FROM rp_src WHERE src = 'cluster' ORDER BY id LIMIT 1;
	INSERT INTO cen SELECT 8, r.pos FROM rp_src r WHERE r.id % 12 = 0 AND (r.id / 12) % 6 = 5 ORDER BY r.id LIMIT 1;
	INSERT INTO cen SELECT 12 + g, ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
	FROM generate_series(1, 8) g;
	CREATE TABLE geo_cen AS SELECT cid, center::geography AS center FROM cen;
});

my ($nrows, $nnull, $nsmall, $ncen) = split /\|/, sql(q{
	SELECT (SELECT count(*) FROM rp), (SELECT count(*) FROM rp WHERE pos IS NULL OR ST_IsEmpty(pos)),
		(SELECT count(*) FROM rp_small), (SELECT count(*) FROM cen)});
cmp_ok($nrows, '>=', 20000, "$nrows rows ($nnull NULL or EMPTY), $nsmall in the small table, $ncen centres");

# --- 1. keyset paging (the checks are in check_paging) ------------------------------
# One function per table: pages through every row with the tie-safe keyset
# pattern (the ids returned at the last distance are excluded while it stays
# the same), storing the rows, the number of pages and of index scans.
sql(q{CREATE TABLE runs (run serial PRIMARY KEY, tbl text, cid int, k int, mirrored bool);
	CREATE TABLE page_rows (run int, rn int, id int, d float8, page int);
	CREATE TABLE page_runs (run int, pages int, scans bigint);});
for my $t ([ 'rp', 'pos', 'geometry', 'cen' ], [ 'rp_small', 'pos', 'geometry', 'cen' ], [ 'rpg', 'g', 'geography', 'geo_cen' ])
{
	my ($tbl, $col, $type) = @$t;
	sql(qq{
	CREATE FUNCTION page_$tbl(run_id int, c $type, k int, mirrored bool) RETURNS void LANGUAGE plpgsql AS \$\$
	DECLARE
		lastd float8;
		s int[] := '{}';
		r record;
		ids int[]; ds float8[];
		all_ids int[] := '{}'; all_ds float8[] := '{}'; all_pages int[] := '{}';
		p int := 0;
		scans0 bigint := pg_stat_get_xact_numscans('${tbl}_gx'::regclass);
	BEGIN
		LOOP
			p := p + 1;
			ids := '{}'; ds := '{}';
			IF p = 1 THEN
				FOR r IN SELECT t.id, t.$col <~> c AS dist FROM $tbl t ORDER BY t.$col <~> c LIMIT k LOOP
					ids := ids || r.id; ds := ds || r.dist;
				END LOOP;
			ELSIF mirrored THEN
				FOR r IN SELECT t.id, t.$col <~> c AS dist FROM $tbl t
					WHERE lastd <= t.$col <~> c AND NOT (lastd = t.$col <~> c AND t.id = ANY (s))
					ORDER BY t.$col <~> c LIMIT k LOOP
					ids := ids || r.id; ds := ds || r.dist;
				END LOOP;
			ELSE
				FOR r IN SELECT t.id, t.$col <~> c AS dist FROM $tbl t
					WHERE t.$col <~> c >= lastd AND NOT (t.$col <~> c = lastd AND t.id = ANY (s))
					ORDER BY t.$col <~> c LIMIT k LOOP
					ids := ids || r.id; ds := ds || r.dist;
				END LOOP;
			END IF;
			FOR i IN 1 .. coalesce(cardinality(ids), 0) LOOP
				EXIT WHEN ds[i] IS NULL;  -- only a first page longer than the non-NULL rows
				IF ds[i] = lastd THEN s := s || ids[i]; ELSE lastd := ds[i]; s := ARRAY[ids[i]]; END IF;
				all_ids := all_ids || ids[i]; all_ds := all_ds || ds[i]; all_pages := all_pages || p;
			END LOOP;
			EXIT WHEN coalesce(cardinality(ids), 0) < k OR ds[cardinality(ids)] IS NULL;
		END LOOP;
		INSERT INTO page_rows SELECT run_id, u.o, u.id, u.d, u.pg
		FROM unnest(all_ids, all_ds, all_pages) WITH ORDINALITY AS u (id, d, pg, o);
		INSERT INTO page_runs VALUES (run_id, p, pg_stat_get_xact_numscans('${tbl}_gx'::regclass) - scans0);
	END \$\$;});
}

sql(q{
	INSERT INTO runs (tbl, cid, k, mirrored)
	SELECT 'rp', cid, 100, cid % 2 = 1 FROM cen WHERE cid <= 10
	UNION ALL SELECT 'rp', cid, 7, false FROM cen WHERE cid = 1
	UNION ALL SELECT 'rp_small', cid, k, (cid + k) % 2 = 1 FROM cen, (VALUES (1), (7)) v (k) WHERE cid IN (2, 8, 12) OR (k = 7 AND cid = 4)
	UNION ALL SELECT 'rpg', cid, 100, cid % 2 = 0 FROM cen WHERE cid IN (3, 11)
	ORDER BY 1, 2, 3;
});
# The paging runs in a second session while this one checks the rest (2 cores).
my $tp = Time::HiRes::time();
my ($bg_out, $bg_err) = ('', '');
my $bg = IPC::Run::start(
	[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr($db), '-c', q{
	SET client_min_messages = warning;
	SELECT page_rp(r.run, c.center, r.k, r.mirrored) FROM runs r JOIN cen c USING (cid) WHERE r.tbl = 'rp' ORDER BY r.run;
	SELECT page_rp_small(r.run, c.center, r.k, r.mirrored) FROM runs r JOIN cen c USING (cid) WHERE r.tbl = 'rp_small' ORDER BY r.run;
	SELECT page_rpg(r.run, c.center, r.k, r.mirrored) FROM runs r JOIN geo_cen c USING (cid) WHERE r.tbl = 'rpg' ORDER BY r.run;
	SELECT 'paging done';} ],
	'>', \$bg_out, '2>', \$bg_err);
my ($paging_secs, $nruns, $npages, $nrows_paged);


# The reference distances: PostGIS's ST_Distance(geography), by a sequential scan.
sql(qq{
	$mode{seq}
	CREATE TABLE refd AS SELECT c.cid, t.id, ST_Distance(t.pos::geography, c.center::geography) AS d
	FROM cen c CROSS JOIN rp t;
	CREATE INDEX ON refd (cid, id);
	ANALYZE refd;
});
my $ties = sql(q{SELECT count(*) FROM (SELECT cid, d FROM refd WHERE d IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1) x});
cmp_ok($ties, '>', 1000, "the data has ties: $ties (centre, distance) pairs shared by several rows");

# --- plans ----------------------------------------------------------------------
sub plan_nodes
{
	my ($plan, $out) = @_;
	push @$out, $plan;
	plan_nodes($_, $out) for @{ $plan->{Plans} // [] };
	return $out;
}

sub json_plan
{
	my ($sql) = @_;
	my $j = sql("EXPLAIN (COSTS OFF, FORMAT JSON) $sql");
	return plan_nodes(decode_json($j)->[0]{Plan}, []);
}

my $c1 = sql(q{SELECT center FROM cen WHERE cid = 1});
my $g1 = sql(q{SELECT center FROM geo_cen WHERE cid = 1});
my $D = sql(qq{SELECT d FROM refd WHERE cid = 1 AND d IS NOT NULL ORDER BY d OFFSET 5000 LIMIT 1});
for my $case (
	[ 'page query', qq{SELECT id, pos <~> '$c1'::geometry FROM rp WHERE pos <~> '$c1'::geometry >= $D
		AND NOT (pos <~> '$c1'::geometry = $D AND id = ANY ('{1,2,3}')) ORDER BY pos <~> '$c1'::geometry LIMIT 7}, 'rp_gx' ],
	[ 'mirrored page query', qq{SELECT id FROM rp WHERE $D < pos <~> '$c1'::geometry ORDER BY pos <~> '$c1'::geometry LIMIT 7}, 'rp_gx' ],
	[ 'geography page query', qq{SELECT id FROM rpg WHERE g <~> '$g1'::geography > $D ORDER BY g <~> '$g1'::geography LIMIT 100}, 'rpg_gx' ],
	[ 'generic plan of a prepared page query', 'EXECUTE page_q(7)', 'rp_gx' ])
{
	my ($name, $sql, $index) = @$case;
	if ($sql =~ /EXECUTE/)
	{
		$sql = qq{PREPARE page_q(int) AS SELECT id FROM rp WHERE pos <~> '$c1'::geometry >= $D
			AND NOT (pos <~> '$c1'::geometry = $D AND id = ANY ('{1}')) ORDER BY pos <~> '$c1'::geometry LIMIT \$1;
			SET plan_cache_mode = force_generic_plan; EXPLAIN (COSTS OFF, FORMAT JSON) $sql};
		my $out = sql($sql);
		$out =~ s/^PREPARE\n//m;
		my $nodes = plan_nodes(decode_json($out)->[0]{Plan}, []);
		$sql = undef;
		check_page_plan($name, $nodes, $index);
		next;
	}
	check_page_plan($name, json_plan($sql), $index);
}

sub check_page_plan
{
	my ($name, $nodes, $index) = @_;
	my @types = map { $_->{'Node Type'} } @$nodes;
	my @scans = grep { $_->{'Node Type'} =~ /Scan/ } @$nodes;
	ok(@types == 2 && $types[0] eq 'Limit' && @scans == 1 && $scans[0]{'Node Type'} eq 'Index Scan'
		  && $scans[0]{'Index Name'} eq $index
		  && ($scans[0]{'Index Cond'} // '') =~ /geoidx_circle_distance/
		  && ($scans[0]{'Order By'} // '') =~ /<~>/,
		"$name: Limit over one Index Scan on $index, Index Cond geoidx_circle_distance, Order By <~>, no Sort")
	  or diag(encode_json($nodes));
}

my $plan = sql(qq{$mode{index} EXPLAIN (COSTS OFF) SELECT id FROM rp WHERE geoidx_dwithin(pos, '$c1'::geometry, 1e6)
	AND NOT geoidx_dwithin(pos, '$c1'::geometry, 1e5)});
ok($plan =~ /Index Cond: .*pos <@ geoidx_circle_outside\(/ && $plan =~ /Index Cond: .*pos <@ geoidx_circle\(/,
	'dwithin AND NOT dwithin: both are index conditions (outside and circle)') or diag($plan);
$plan = sql(qq{$mode{index} EXPLAIN (COSTS OFF) SELECT id FROM rp WHERE NOT geoidx_dwithin(pos, '$c1'::geometry, 1e5)});
like($plan, qr/Index (Only )?Scan using rp_gx.*\n.*Index Cond: \(pos <@ geoidx_circle_outside\(/, 'NOT dwithin alone is an index condition');

sub check_paging
{
	$bg->finish;
	$paging_secs = Time::HiRes::time() - $tp;
	like($bg_out, qr/paging done/, sprintf('the paging session finished (%.1f s)', $paging_secs)) or diag($bg_err);
# The reference of each run: the non-NULL rows of its table, by PostGIS.
sql(q{
	CREATE TABLE run_ref AS
	SELECT r.run, d.id, d.d, row_number() OVER (PARTITION BY r.run ORDER BY d.d) AS rn
	FROM runs r JOIN refd d USING (cid)
	WHERE d.d IS NOT NULL AND (r.tbl <> 'rp_small' OR d.id IN (SELECT id FROM rp_small));
});
($nruns, $npages, $nrows_paged) = split /\|/,
  sql(q{SELECT count(*), sum(pages), (SELECT count(*) FROM page_rows) FROM page_runs});
is($nruns, sql(q{SELECT count(*) FROM runs}), "$nruns paging runs ($npages pages, $nrows_paged rows)");
my $bad = sql(q{
	SELECT string_agg(run || ': ' || msg, '; ') FROM (
		SELECT r.run, 'returned ' || coalesce(p.n, 0) || ' rows, ' || coalesce(p.nd, 0) || ' distinct, reference ' || f.n AS msg
		FROM runs r
		JOIN (SELECT run, count(*) AS n FROM run_ref GROUP BY run) f USING (run)
		LEFT JOIN (SELECT run, count(*) AS n, count(DISTINCT id) AS nd FROM page_rows GROUP BY run) p USING (run)
		WHERE p.n IS DISTINCT FROM f.n OR p.nd IS DISTINCT FROM f.n) x});
is($bad, '', 'paging returns every non-NULL row exactly once (as many rows as the reference, all distinct)');
$bad = sql(q{
	SELECT count(*) FROM (SELECT run, id FROM page_rows) p FULL JOIN (SELECT run, id FROM run_ref) f USING (run, id)
	WHERE p.id IS NULL OR f.id IS NULL});
is($bad, 0, 'paging returns the ids of the reference, no other');
$bad = sql(q{
	SELECT count(*) FROM page_rows p FULL JOIN run_ref f USING (run, rn) WHERE p.d IS DISTINCT FROM f.d});
is($bad, 0, 'the sequence of paged distances equals ORDER BY ST_Distance(geography), row by row');
$bad = sql(q{
	SELECT count(*) FROM page_rows p JOIN runs r USING (run) LEFT JOIN refd f ON f.cid = r.cid AND f.id = p.id
	WHERE p.d IS DISTINCT FROM f.d});
is($bad, 0, "every paged row's distance equals its ST_Distance(geography)");
$bad = sql(q{SELECT count(*) FROM page_rows a JOIN page_rows b ON a.run = b.run AND b.rn = a.rn + 1 WHERE b.d < a.d});
is($bad, 0, 'paged distances are non-decreasing across pages');
$bad = sql(q{
	SELECT string_agg(run || ': ' || pages || ' pages, ' || scans || ' index scans', '; ') FROM page_runs WHERE scans <> pages});
is($bad, '', 'every page was one geoidx index scan');
$bad = sql(q{
	SELECT string_agg(r.run::text, ',') FROM runs r JOIN page_runs p USING (run)
	JOIN (SELECT run, count(*) AS n FROM run_ref GROUP BY run) f USING (run) WHERE p.pages <> f.n / r.k + 1});
is($bad, '', 'each run took ceil((rows + 1) / k) pages');
my $ties_paged = sql(q{
	SELECT count(*) FROM page_rows a JOIN page_rows b ON a.run = b.run AND b.rn = a.rn + 1
	JOIN runs r ON r.run = a.run WHERE a.d = b.d AND a.page <> b.page});
cmp_ok($ties_paged, '>', 20, "ties spanning a page boundary were paged through ($ties_paged)");
# the application's NULL-distance tail
$bad = sql(q{
	SELECT count(*) FROM cen c WHERE c.cid <= 4 AND
		(SELECT array_agg(id ORDER BY id) FROM rp WHERE pos <~> c.center IS NULL)
		IS DISTINCT FROM (SELECT array_agg(id ORDER BY id) FROM rp WHERE pos IS NULL OR ST_IsEmpty(pos))});
is($bad, 0, 'WHERE pos <~> c IS NULL returns exactly the NULL and EMPTY rows');
}

# --- 1b. geoidx_beyond / geoidx_nearer and the comparison spellings -------------------
# Bounds: random, exactly a row's distance (ties), and NaN, negative, 0, -0,
# +-Infinity, NULL.
sql(q{
	SELECT setseed(0.0602);
	CREATE TABLE bq (qid serial PRIMARY KEY, cid int, x float8);
	INSERT INTO bq (cid, x)
	SELECT cid, CASE WHEN cid % 2 = 1 THEN 2e7 * random() ELSE exp(ln(2e7) * random()) END FROM cen ORDER BY cid;
	-- ties: distances that several rows share (even centres), a single row's (odd)
	INSERT INTO bq (cid, x)
	SELECT cid, (SELECT d FROM refd f WHERE f.cid = c.cid AND d IS NOT NULL
		GROUP BY d HAVING count(*) >= 2 - c.cid % 2 ORDER BY md5(d::text) LIMIT 1)
	FROM cen c ORDER BY cid;
	INSERT INTO bq (cid, x)
	SELECT c.cid, s.x FROM cen c, (VALUES (0, 'NaN'::float8), (1, -1), (2, 0), (3, '-0'), (4, 'Infinity'),
		(5, '-Infinity'), (6, NULL), (7, 1e-9), (8, 2.00375e7)) s (n, x)
	WHERE c.cid = 1 OR (c.cid BETWEEN 2 AND 10 AND s.n = c.cid - 2) ORDER BY c.cid, s.n;
});
my $nb = sql(q{SELECT count(*) FROM bq});
# name, predicate(s) (the second, the mirrored spelling, for even qids), reference
my @bpreds = (
	[ 'beyond', 'geoidx_beyond(t.pos, c.center, b.x)', undef, 'f.d > b.x' ],
	[ 'beyond_incl', 'geoidx_beyond(t.pos, c.center, b.x, true)', undef, 'f.d >= b.x' ],
	[ 'nearer', 'geoidx_nearer(t.pos, c.center, b.x)', undef, 'f.d < b.x' ],
	[ 'nearer_incl', 'geoidx_nearer(t.pos, c.center, b.x, true)', undef, 'f.d <= b.x' ],
	[ 'op_gt', 't.pos <~> c.center > b.x', 'b.x < t.pos <~> c.center', 'f.d > b.x' ],
	[ 'op_ge', 't.pos <~> c.center >= b.x', 'b.x <= t.pos <~> c.center', 'f.d >= b.x' ],
	[ 'op_lt', 't.pos <~> c.center < b.x', 'b.x > t.pos <~> c.center', 'f.d < b.x' ],
	[ 'op_le', 't.pos <~> c.center <= b.x', 'b.x >= t.pos <~> c.center', 'f.d <= b.x' ]);
my $ref_cols = join(",\n", map { fp('f.id', $_->[3]) . " AS $_->[0]" } @bpreds);
sql(qq{$mode{seq} CREATE TABLE b_ref AS SELECT b.qid, $ref_cols FROM bq b JOIN refd f USING (cid) GROUP BY b.qid});
# (a bound whose centre has no row would be missing from b_ref: every centre has all rows)

sub bound_answers
{
	my ($name, $m, $tbl, $col, $centres, $preds, $where, $expect) = @_;
	my $nsub = 0;
	my $cols = join(",\n", map {
		my ($p, $p2) = @$_[ 1, 2 ];
		s/t\.pos/t.$col/g for grep { defined } $p, $p2;
		$nsub += defined $p2 ? 2 : 1;
		defined $p2
		  ? "CASE WHEN b.qid % 2 = 1 THEN (SELECT " . fp('t.id') . " FROM $tbl t WHERE $p) "
			. "ELSE (SELECT " . fp('t.id') . " FROM $tbl t WHERE $p2) END AS $_->[0]"
		  : "(SELECT " . fp('t.id') . " FROM $tbl t WHERE $p) AS $_->[0]" } @$preds);
	my $sql = "SELECT b.qid, $cols FROM bq b JOIN $centres c USING (cid) $where";
	my $plan = sql("$mode{$m} EXPLAIN (COSTS OFF) $sql");
	my $n = () = $plan =~ /$expect/g;
	my $seq = () = $plan =~ /Seq Scan on $tbl t(?:_\d+)?\n/g;
	$seq = 0 if $m eq 'seq';
	is("$n/$seq", "$nsub/0", "$name: every subquery is a $m scan" . ($m eq 'seq' ? '' : ' on the geoidx index'))
	  or diag($plan);
	sql("$mode{$m} CREATE TABLE $name AS $sql");
	my $mism = sql(join(' UNION ALL ', map {
		"SELECT '$_->[0] ' || a.qid || ' (x = ' || coalesce(b.x::text, 'NULL') || '): ' || a.$_->[0] || ' vs ' || r.$_->[0]
		 FROM $name a JOIN b_ref r USING (qid) JOIN bq b USING (qid) WHERE a.$_->[0] IS DISTINCT FROM r.$_->[0]" } @$preds)
		. ' LIMIT 10');
	my $count = sql("SELECT count(*) FROM $name");
	is($mism, '', "$name: $count bounds x " . scalar(@$preds) . " predicates equal the ST_Distance(geography) reference");
}
my @fn_preds = @bpreds[ 0 .. 3 ];
my $tb = Time::HiRes::time();
bound_answers('b_index', 'index', 'rp', 'pos', 'cen', \@bpreds, '', qr/Index (?:Only )?Scan using rp_gx on rp t(?:_\d+)?\n/);
bound_answers('b_bitmap', 'bitmap', 'rp', 'pos', 'cen', \@fn_preds, 'WHERE b.qid % 4 = 0 OR b.cid = 1', qr/Bitmap Index Scan on rp_gx\n/);
bound_answers('b_seq', 'seq', 'rp', 'pos', 'cen', \@fn_preds,
	'WHERE b.qid % 12 = 0 OR (b.cid = 1 AND (b.x IS NULL OR b.x <> b.x OR b.x <= 0))', qr/Seq Scan on rp t(?:_\d+)?\n/);
my $b_secs = Time::HiRes::time() - $tb;
# The same with literal bounds (constant-folded by the planner).
my @lit = ('NULL', "'NaN'", '0', "'Infinity'", $D);
my $lit_sql = join(' UNION ALL ', map {
	my $x = $_;
	map {
		my ($name, $p1, $p2, $r) = @$_;
		$r =~ s/b\.x/${x}::float8/g;
		map {
			my $p = $_;
			$p =~ s/c\.center/'$c1'::geometry/g; $p =~ s/b\.x/${x}::float8/g;
			"SELECT \$l\$$p\$l\$, (SELECT " . fp('t.id') . " FROM rp t WHERE $p), "
			  . "(SELECT " . fp('f.id') . " FROM refd f WHERE f.cid = 1 AND $r)"
		} grep { defined } $p1, ($x eq $D ? $p2 : ())
	} @bpreds } @lit);
my $bad = sql("$mode{index} SELECT string_agg(x.a || ': ' || x.b || ' vs ' || x.c, '; ') FROM ($lit_sql) x (a, b, c) WHERE x.b IS DISTINCT FROM x.c");
is($bad, '', 'literal bounds (NULL, NaN, 0, Infinity, a tie) equal the reference');

# --- 2. rings, NOT dwithin, k-NN in a ring --------------------------------------
# Radii 1 m .. 5,000 km; some rmin or rmax exactly a row's distance, some
# rmin = 0 or rmin > rmax; a third on the sphere. Literal values (custom
# plans): a sphere radius is an index condition only when it is a constant.
sql(q{
	SELECT setseed(0.0603);
	CREATE TABLE ringq (qid int PRIMARY KEY, center geometry, rmin float8, rmax float8, sph bool, k int);
	INSERT INTO ringq
	SELECT g,
		CASE WHEN g % 3 = 0 THEN (SELECT center FROM cen WHERE cid = 1 + g % 20)
			 WHEN g % 3 = 1 THEN ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326)
			 ELSE (SELECT ST_SetSRID(ST_MakePoint(ST_X(pos) + 0.01 * (random() - 0.5), ST_Y(pos)), 4326)
				   FROM rp WHERE pos IS NOT NULL AND NOT ST_IsEmpty(pos) AND abs(ST_Y(pos)) < 89 ORDER BY md5(id::text || g) LIMIT 1)
		END,
		0, exp(ln(5e6) * random()), g % 3 = 2, (ARRAY[1, 7, 50, 333])[1 + g % 4]
	FROM generate_series(1, 36) g;
	UPDATE ringq SET rmin = rmax * random();
	UPDATE ringq SET rmin = 0 WHERE qid % 7 = 3;
	UPDATE ringq SET rmin = rmax * 1.5 WHERE qid % 11 = 4;
	-- radii exactly a row's distance, on the query's own model
	UPDATE ringq q SET rmin = (SELECT ST_Distance(t.pos::geography, q.center::geography, NOT q.sph) FROM rp t
		WHERE t.pos IS NOT NULL AND NOT ST_IsEmpty(t.pos) ORDER BY t.pos::geography <-> q.center::geography, t.id OFFSET 40 LIMIT 1)
	WHERE qid % 5 = 0;
	UPDATE ringq q SET rmax = (SELECT ST_Distance(t.pos::geography, q.center::geography, NOT q.sph) FROM rp t
		WHERE t.pos IS NOT NULL AND NOT ST_IsEmpty(t.pos) ORDER BY t.pos::geography <-> q.center::geography, t.id OFFSET 300 LIMIT 1)
	WHERE qid % 5 IN (0, 1);
	UPDATE ringq SET rmin = least(rmin, rmax) WHERE qid % 5 = 0 AND qid % 11 <> 4;
});
my @rq = map { [ split /\|/ ] } split /\n/, sql(q{SELECT qid, center::text, rmin, rmax, sph, k FROM ringq ORDER BY qid});
my $nring = @rq;
my $tr = Time::HiRes::time();
# PostGIS's answers through its GiST index on (pos::geography), and, for a
# sample, by a sequential scan of the whole expressions.
sql(qq{
	SET enable_seqscan = off;
	CREATE TABLE w_ref AS
	SELECT q.qid, 'max' AS which, t.id FROM ringq q, rp t WHERE ST_DWithin(t.pos::geography, q.center::geography, q.rmax, NOT q.sph)
	UNION ALL
	SELECT q.qid, 'min', t.id FROM ringq q, rp t WHERE ST_DWithin(t.pos::geography, q.center::geography, q.rmin, NOT q.sph);
	CREATE INDEX ON w_ref (qid, which, id);
	RESET enable_seqscan;
	CREATE TABLE ring_ref AS
	SELECT q.qid,
		(SELECT } . fp('a.id') . qq{ FROM w_ref a WHERE a.qid = q.qid AND a.which = 'max'
			AND NOT EXISTS (SELECT FROM w_ref b WHERE b.qid = q.qid AND b.which = 'min' AND b.id = a.id)) AS ring,
		-- the complement of the rmin disc in the non-NULL rows, by the fingerprint's arithmetic
		(SELECT (a.n - m.n) || ':' || (a.s - m.s) || ':' || (a.x # m.x) || ':' || (a.h - m.h)
		 FROM (SELECT count(*) AS n, coalesce(sum(id), 0) AS s, coalesce(bit_xor(hashint4(id)), 0) AS x,
				coalesce(sum(hashint4(id)::bigint), 0) AS h FROM rp WHERE pos IS NOT NULL) a,
			  (SELECT count(*) AS n, coalesce(sum(id), 0) AS s, coalesce(bit_xor(hashint4(id)), 0) AS x,
				coalesce(sum(hashint4(id)::bigint), 0) AS h FROM w_ref b WHERE b.qid = q.qid AND b.which = 'min') m) AS outside
	FROM ringq q;
	$mode{seq}
	CREATE TABLE ring_seq AS
	SELECT q.qid,
		(SELECT } . fp('t.id') . qq{ FROM rp t WHERE ST_DWithin(t.pos::geography, q.center::geography, q.rmax, NOT q.sph)
			AND NOT ST_DWithin(t.pos::geography, q.center::geography, q.rmin, NOT q.sph)) AS ring,
		(SELECT } . fp('t.id') . qq{ FROM rp t WHERE NOT ST_DWithin(t.pos::geography, q.center::geography, q.rmin, NOT q.sph)) AS outside
	FROM ringq q WHERE q.qid IN (12, 20);
	-- the k nearest in the ring, by PostGIS
	CREATE TABLE kr_ref AS
	SELECT q.qid, x.id, x.d, row_number() OVER (PARTITION BY q.qid ORDER BY x.d) AS rn
	FROM ringq q CROSS JOIN LATERAL (
		SELECT a.id, ST_Distance(t.pos::geography, q.center::geography) AS d FROM w_ref a JOIN rp t USING (id)
		WHERE a.qid = q.qid AND a.which = 'max'
			AND NOT EXISTS (SELECT FROM w_ref b WHERE b.qid = q.qid AND b.which = 'min' AND b.id = a.id)
		ORDER BY 2 LIMIT q.k) x;
});
is(sql(q{SELECT count(*) FROM ring_seq s JOIN ring_ref r USING (qid) WHERE (s.ring, s.outside) IS DISTINCT FROM (r.ring, r.outside)}), 0,
	'the GiST-based ring references equal a sequential scan of ST_DWithin AND NOT ST_DWithin on their sample');

# The variants, one statement each, as literal SQL.
my @rvariants = (
	[ 'ring', 'ring', 'geoidx_ring(t.COL, C, RMIN, RMAX SPH)', [qw(index bitmap seq)] ],
	[ 'ring_and_not', 'ring', 'geoidx_dwithin(t.COL, C, RMAX SPH) AND NOT geoidx_dwithin(t.COL, C, RMIN SPH)', [qw(index bitmap)] ],
	[ 'ring_commuted', 'ring', 'geoidx_ring(C, t.COL, RMIN, RMAX SPH)', [qw(index)] ],
	[ 'not_dwithin', 'outside', 'NOT geoidx_dwithin(t.COL, C, RMIN SPH)', [qw(index bitmap)] ],
	[ 'outside', 'outside', 'geoidx_outside(t.COL, C, RMIN SPH)', [qw(index)] ],
	[ 'outside_commuted', 'outside', 'geoidx_outside(C, t.COL, RMIN SPH)', [qw(index)] ]);
sql(q{CREATE TABLE ring_ans (tbl text, qid int, variant text, mode text, ans text);
	CREATE TABLE kr_idx (tbl text, qid int, rn int, id int, d float8);});

sub ring_sql
{
	my ($tmpl, $r, $col, $type) = @_;
	my ($qid, $center, $rmin, $rmax, $sph) = @$r;
	my $s = $tmpl;
	my $c = "'$center'::geometry" . ($type eq 'geography' ? '::geography' : '');
	$s =~ s/COL/$col/g; $s =~ s/\bC\b/$c/g;
	$s =~ s/RMIN/'$rmin'::float8/g; $s =~ s/RMAX/'$rmax'::float8/g;
	$s =~ s/ SPH/$sph eq 't' ? ', false' : (($qid % 2) ? ', true' : '')/ge;
	return $s;
}

sub ring_runs
{
	my ($tbl, $col, $type, $index, $rows, $seq_filter) = @_;
	my (@stmts, @explains, $nplans);
	for my $r (@$rows)
	{
		my ($qid, $center, $rmin, $rmax, $sph, $k) = @$r;
		for my $v (@rvariants)
		{
			my ($vname, undef, $tmpl, $modes) = @$v;
			my $pred = ring_sql($tmpl, $r, $col, $type);
			for my $m (@$modes)
			{
				next if $m eq 'seq' && !$seq_filter->($qid);
				my $sql = "SELECT " . fp('t.id') . " FROM $tbl t WHERE $pred";
				push @stmts, "$mode{$m} INSERT INTO ring_ans SELECT '$tbl', $qid, '$vname', '$m', ($sql);";
				push @explains, [ "$tbl $vname $m $qid", "$mode{$m} EXPLAIN (COSTS OFF) $sql;", $m ];
			}
		}
		my $pred = ring_sql('geoidx_ring(t.COL, C, RMIN, RMAX SPH)', $r, $col, $type);
		my $c = "'$center'::geometry" . ($type eq 'geography' ? '::geography' : '');
		my $knn = "SELECT t.id, t.$col <~> $c AS d FROM $tbl t WHERE $pred ORDER BY t.$col <~> $c LIMIT $k";
		push @stmts, "$mode{index} INSERT INTO kr_idx SELECT '$tbl', $qid, row_number() OVER (), x.id, x.d FROM ($knn) x;";
		push @explains, [ "$tbl knn $qid", "$mode{index} EXPLAIN (COSTS OFF) $knn;", 'knn' ];
	}
	# the plans: every statement on the geoidx index, the ring ones with both index conditions
	my @badplans;
	my $out = sql(join("\n", map { "SELECT '#### $_->[0]';\n$_->[1]" } @explains));
	my %plans = map { my ($h, @l) = split /\n/; ($h => join("\n", @l)) } grep { /\S/ } split /^#### /m, $out;
	for my $e (@explains)
	{
		my ($name, undef, $m) = @$e;
		my $p = $plans{$name} // '';
		my $ok = $m eq 'seq' ? $p =~ /Seq Scan on $tbl t/ && $p !~ /$index/
		  : $m eq 'bitmap' ? $p =~ /Bitmap Index Scan on $index\b/ && $p =~ /Index Cond: .*geoidx_circle_outside/
		  : $m eq 'knn' ? $p =~ /Index Scan using $index\b/ && $p =~ /Order By:/ && $p !~ /Sort/
			&& $p =~ /Index Cond: .*geoidx_circle_outside.*geoidx_circle\(/
		  : $p =~ /Index (Only )?Scan using $index\b/ && $p =~ /Index Cond: .*geoidx_circle_outside/;
		push @badplans, "$name:\n$p" unless $ok;
	}
	is(scalar(@badplans), 0, "$tbl: every ring / NOT dwithin statement uses the planned scan ("
		  . scalar(@explains) . " plans; index and bitmap ones with a geoidx_circle_outside index condition)")
	  or diag(join("\n", @badplans[ 0 .. ($#badplans < 4 ? $#badplans : 4) ]));
	sql(join("\n", @stmts));
	return scalar(@stmts);
}

my $nst = ring_runs('rp', 'pos', 'geometry', 'rp_gx', \@rq, sub { $_[0] % 4 == 0 });
my ($nans, $bad_ring) = split /\|/, sql(q{
	SELECT count(*), count(*) FILTER (WHERE a.ans IS DISTINCT FROM CASE WHEN a.variant LIKE 'ring%' THEN r.ring ELSE r.outside END)
	FROM ring_ans a JOIN ring_ref r USING (qid) WHERE a.tbl = 'rp'});
is($bad_ring, 0, "$nans ring and NOT dwithin answers ($nring queries; index, bitmap, seq scans; both argument orders; sphere and spheroid) equal ST_DWithin AND NOT ST_DWithin")
  or diag(sql(q{SELECT string_agg(a.qid || ' ' || a.variant || ' ' || a.mode || ': ' || a.ans || ' vs '
	|| CASE WHEN a.variant LIKE 'ring%' THEN r.ring ELSE r.outside END, E'\n')
	FROM (SELECT * FROM ring_ans a JOIN ring_ref r USING (qid) WHERE a.tbl = 'rp'
	AND a.ans IS DISTINCT FROM CASE WHEN a.variant LIKE 'ring%' THEN r.ring ELSE r.outside END LIMIT 10) a
	JOIN ring_ref r USING (qid)}));
my $empties_out = sql(q{SELECT count(*) FROM ringq q WHERE (SELECT count(*) FROM rp t WHERE NOT geoidx_dwithin(t.pos, q.center, q.rmin)
	AND ST_IsEmpty(t.pos)) <> 15 AND NOT q.sph});
is($empties_out, 0, 'NOT geoidx_dwithin returns the EMPTY rows (ST_DWithin is false for them) and never the NULL ones');

sub check_knn
{
	my ($tbl, $where) = @_;
	my ($n, $bad_n, $bad_d, $bad_ids, $bad_order, $bad_exact) = split /\|/, sql(qq{
		WITH kth AS (SELECT qid, max(d) AS d FROM kr_ref GROUP BY qid)
		SELECT (SELECT count(*) FROM kr_idx WHERE tbl = '$tbl'),
			(SELECT count(*) FROM ringq q WHERE $where AND (SELECT count(*) FROM kr_idx i WHERE i.tbl = '$tbl' AND i.qid = q.qid)
				<> (SELECT count(*) FROM kr_ref r WHERE r.qid = q.qid)),
			(SELECT count(*) FROM (SELECT * FROM kr_idx WHERE tbl = '$tbl') i JOIN kr_ref r USING (qid, rn) WHERE i.d IS DISTINCT FROM r.d),
			(SELECT count(*) FROM (SELECT qid, id FROM kr_idx JOIN kth USING (qid) WHERE tbl = '$tbl' AND kr_idx.d < kth.d) i
				FULL JOIN (SELECT qid, id FROM kr_ref JOIN kth USING (qid) JOIN ringq USING (qid) WHERE kr_ref.d < kth.d AND $where) r
				USING (qid, id) WHERE i.id IS NULL OR r.id IS NULL),
			(SELECT count(*) FROM kr_idx a JOIN kr_idx b ON a.tbl = b.tbl AND a.qid = b.qid AND b.rn = a.rn + 1
				WHERE a.tbl = '$tbl' AND b.d < a.d),
			(SELECT count(*) FROM kr_idx i JOIN ringq q USING (qid) JOIN rp t USING (id) WHERE i.tbl = '$tbl'
				AND i.d IS DISTINCT FROM ST_Distance(t.pos::geography, q.center::geography))});
	is("$bad_n/$bad_d/$bad_ids/$bad_order/$bad_exact", '0/0/0/0/0',
		"$tbl: geoidx_ring ... ORDER BY <~> LIMIT k ($n rows): the reference's row counts, distances in order, rows below the k-th distance; each distance ST_Distance")
}
check_knn('rp', 'true');
my $r_secs = Time::HiRes::time() - $tr;

# --- 4. geography ---------------------------------------------------------------
my @grq = grep { $_->[0] % 5 == 0 } @rq;
ring_runs('rpg', 'g', 'geography', 'rpg_gx', \@grq, sub { $_[0] % 10 == 0 });
($nans, $bad_ring) = split /\|/, sql(q{
	SELECT count(*), count(*) FILTER (WHERE a.ans IS DISTINCT FROM CASE WHEN a.variant LIKE 'ring%' THEN r.ring ELSE r.outside END)
	FROM ring_ans a JOIN ring_ref r USING (qid) WHERE a.tbl = 'rpg'});
is($bad_ring, 0, "geography: $nans ring and NOT dwithin answers equal the reference");
check_knn('rpg', 'qid % 5 = 0');
bound_answers('bg_index', 'index', 'rpg', 'g', 'geo_cen', \@bpreds, 'WHERE b.cid IN (2, 3, 4, 11) OR (b.cid = 1 AND b.qid % 2 = 0)',
	qr/Index (?:Only )?Scan using rpg_gx on rpg t(?:_\d+)?\n/);
bound_answers('bg_bitmap', 'bitmap', 'rpg', 'g', 'geo_cen', \@fn_preds, 'WHERE b.cid IN (3, 11)', qr/Bitmap Index Scan on rpg_gx\n/);

# --- 5. NULL and EMPTY rows in an ORDER BY <~> without LIMIT ---------------------------
for my $t ([ 'rp', 'pos', 'cen', 'rp_gx' ], [ 'rpg', 'g', 'geo_cen', 'rpg_gx' ])
{
	my ($tbl, $col, $centres, $index) = @$t;
	my $cids = $tbl eq 'rp' ? '1, 2, 7' : '4';
	my $sel = "SELECT t.id, t.$col <~> c.center AS d FROM $tbl t ORDER BY t.$col <~> c.center";
	my $p = sql("SET enable_seqscan = off; SET enable_sort = off; SET enable_bitmapscan = off;
		EXPLAIN (COSTS OFF) SELECT x.* FROM $centres c CROSS JOIN LATERAL ($sel) x WHERE c.cid = 1");
	ok($p =~ /Index Scan using $index\b/ && $p !~ /Sort/, "$tbl: the unlimited ORDER BY <~> is a geoidx index scan with no sort")
	  or diag($p);
	sql("SET enable_seqscan = off; SET enable_sort = off; SET enable_bitmapscan = off;
		CREATE TABLE full_$tbl AS SELECT c.cid, x.id, x.d, x.rn FROM $centres c
		CROSS JOIN LATERAL (SELECT y.*, row_number() OVER () AS rn FROM ($sel) y) x WHERE c.cid IN ($cids)");
	my $res = sql(qq{
		WITH r AS (SELECT cid, id, d, row_number() OVER (PARTITION BY cid ORDER BY d NULLS LAST) AS rn FROM refd WHERE cid IN ($cids)),
		nn AS (SELECT count(*) AS n FROM rp WHERE pos IS NULL OR ST_IsEmpty(pos))
		SELECT (SELECT count(*) FROM full_$tbl) || '/' || (SELECT count(DISTINCT (cid, id)) FROM full_$tbl)
			|| '/' || (SELECT count(*) FROM r)
			|| '|' || (SELECT count(*) FROM full_$tbl f JOIN r USING (cid, rn) WHERE f.d IS DISTINCT FROM r.d)
			|| '|' || (SELECT count(*) FROM full_$tbl f JOIN refd USING (cid, id) WHERE f.d IS DISTINCT FROM refd.d)
			|| '|' || (SELECT count(*) FROM full_$tbl f JOIN rp USING (id) WHERE (f.d IS NULL) <> (rp.pos IS NULL OR ST_IsEmpty(rp.pos))
				OR (f.d IS NULL AND f.rn <= (SELECT count(*) FROM rp) - (SELECT n FROM nn)))});
	my ($counts, $bad_seq, $bad_d, $bad_null) = split /\|/, $res;
	my ($a, $b, $c) = split m{/}, $counts;
	ok($a == $b && $b == $c, "$tbl: ORDER BY <~> without LIMIT returns every row once ($counts)");
	is("$bad_seq/$bad_d/$bad_null", '0/0/0',
		"$tbl: its distances are ORDER BY ST_Distance(geography) NULLS LAST, row by row and per id; NULL/EMPTY rows last with NULL distance");
}

check_paging();

sql(q{SELECT geoidx_verify('rp_gx'), geoidx_verify('rp_small_gx'), geoidx_verify('rpg_gx')});
pass('geoidx_verify of the three indexes');

diag(sprintf("regions: %d rows, %d paging runs (%d pages) in %.1f s, %d bounds in %.1f s, %d ring queries in %.1f s, %.1f s in all",
	$nrows, $nruns, $npages, $paging_secs, $nb, $b_secs, $nring, $r_secs, Time::HiRes::time() - $t0));
$node->stop;
done_testing();
