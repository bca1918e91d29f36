# The planner's row estimates for radius queries on clustered data, and the
# index it picks for them (src/pg/tree_estimate.cc, geoidx_costestimate).
#
# The data is the differential test's (test/sql/differential_data.sql): the
# 121k GeoNames cities, 20 dense clusters of 2,000 points from metres to a
# degree across, airports, earthquakes, the antimeridian band, the poles,
# uniform points. The actual count of every query is PostGIS's
# (ST_DWithin(geography) through a GiST index on the cast), never geoidx's.
#
#   - PostGIS's histogram (the estimate with no geoidx index on the column) is
#     measured first and reported, as the before;
#   - with a geoidx index, every estimate (geoidx_dwithin on a geometry and on
#     a geography column, NOT geoidx_dwithin, geoidx_ring, pos <~> c < r) is
#     within 3x of the actual count (a count of 0 is taken as 1, the
#     planner's least estimate);
#   - a plain radius picks the smaller of a (pos) and a (pos, cat) index, and
#     a radius with cat = x the (pos, cat) one;
#   - a partial geoidx index is not read for the estimate, nor an index of an
#     empty table.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = geoidx_node('estimates',
	conf => "work_mem = 64MB\nautovacuum = off\nclient_min_messages = warning\n");
psql_file($node, "$FindBin::Bin/../sql/differential_data.sql", datadir => data_dir());

# centres from each kind of place, and the actual counts from PostGIS
$node->safe_psql('postgres', q{
	ALTER TABLE pts ADD COLUMN cat int;
	UPDATE pts SET cat = id % 100;
	VACUUM ANALYZE pts;
	CREATE INDEX pts_geog ON pts USING gist ((pos::geography));
	CREATE FUNCTION plan_rows(q text) RETURNS float8 LANGUAGE plpgsql AS $$
	DECLARE j json;
	BEGIN
		EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
		RETURN (j->0->'Plan'->>'Plan Rows')::float8;
	END $$;
	CREATE TABLE est_q AS
	WITH centres AS (
		(SELECT id, pos, src FROM pts WHERE src = 'cluster' ORDER BY id % 997, id LIMIT 40)
		UNION ALL (SELECT id, pos, src FROM pts WHERE src = 'cities' ORDER BY id % 991, id LIMIT 40)
		UNION ALL (SELECT id, pos, src FROM pts WHERE src = 'uniform' ORDER BY id % 983, id LIMIT 20)
		UNION ALL (SELECT id, pos, src FROM pts WHERE src IN ('antimeridian', 'polar', 'pole')
				   ORDER BY id % 977, id LIMIT 20))
	SELECT c.id, c.src, c.pos, r,
		(SELECT count(*) FROM pts p WHERE ST_DWithin(p.pos::geography, c.pos::geography, r)) AS actual
	FROM centres c, unnest(ARRAY[1000, 10000, 100000, 1000000]) r;
	-- NOT ST_DWithin holds for every point that ST_DWithin does not (NULL and EMPTY: neither)
	ALTER TABLE est_q ADD COLUMN actual_outside bigint;
	UPDATE est_q SET actual_outside =
		(SELECT count(*) FROM pts WHERE pos IS NOT NULL AND NOT ST_IsEmpty(pos)) - actual;
	CREATE TABLE est (tag text, id int, r int, actual float8, est float8);
});
my $nq = $node->safe_psql('postgres', 'SELECT count(*) FROM est_q');
is($nq, 480, '120 centres x 4 radii');

sub record_estimates
{
	my ($tag) = @_;
	$node->safe_psql('postgres', qq{
		INSERT INTO est SELECT '$tag', id, r, actual,
			plan_rows(format('SELECT id FROM pts WHERE geoidx_dwithin(pos, %L::geometry, %s)', pos::text, r))
		FROM est_q;
		INSERT INTO est SELECT '$tag outside', id, r, actual_outside,
			plan_rows(format('SELECT id FROM pts WHERE NOT geoidx_dwithin(pos, %L::geometry, %s)', pos::text, r))
		FROM est_q WHERE r <= 100000;
	});
}

# what counts as right: within 3x, a count of 0 taken as 1
my $within = 'est <= 3 * greatest(actual, 1) AND est >= greatest(actual, 1) / 3.0';
sub summary
{
	my ($tag) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT string_agg(format('%s m: %s of %s within 3x (worst %s / %s)', r, ok, n, round(lo::numeric, 4),
			round(hi::numeric, 1)), '; ' ORDER BY r)
		FROM (SELECT r, count(*) FILTER (WHERE $within) AS ok, count(*) AS n,
				min(est / greatest(actual, 1)) AS lo, max(est / greatest(actual, 1)) AS hi
			  FROM est WHERE tag = '$tag' GROUP BY r) s});
}

record_estimates('postgis');
diag('PostGIS histogram, before: ' . summary('postgis'));
diag('PostGIS histogram, NOT geoidx_dwithin: ' . summary('postgis outside'));
my $before_ok = $node->safe_psql('postgres', "SELECT count(*) FILTER (WHERE $within) FROM est WHERE tag = 'postgis'");
cmp_ok($before_ok, '<', 480, "the histogram misses some ($before_ok of 480 within 3x): the test can tell");

# --- the estimates from the index -------------------------------------------------
$node->safe_psql('postgres', 'CREATE INDEX pts_gx ON pts USING geoidx (pos); ANALYZE pts');
record_estimates('tree');
diag('geoidx tree: ' . summary('tree'));
diag('geoidx tree, NOT geoidx_dwithin: ' . summary('tree outside'));
my $bad = $node->safe_psql('postgres', qq{
	SELECT string_agg(format('%s %s %s m: est %s actual %s', e.tag, q.src, e.r, e.est, e.actual), E'\n')
	FROM (SELECT * FROM est WHERE tag LIKE 'tree%' AND NOT ($within)) e JOIN est_q q USING (id, r)});
is($bad, '', 'every geoidx_dwithin and NOT geoidx_dwithin estimate is within 3x of PostGIS\'s count');

# a ring and the distance comparisons, on a sample
$bad = $node->safe_psql('postgres', qq{
	WITH q AS (
		SELECT id, r, src,
			(SELECT count(*) FROM pts p WHERE ST_DWithin(p.pos::geography, c.pos::geography, r)
				AND NOT ST_DWithin(p.pos::geography, c.pos::geography, r / 10)) AS actual,
			plan_rows(format('SELECT id FROM pts WHERE geoidx_ring(pos, %L::geometry, %s, %s)',
				pos::text, r / 10, r)) AS est,
			(SELECT count(*) FROM pts p WHERE ST_DWithin(p.pos::geography, c.pos::geography, r)
				AND ST_Distance(p.pos::geography, c.pos::geography) < r) AS actual_lt,
			plan_rows(format('SELECT id FROM pts WHERE pos <~> %L::geometry < %s', pos::text, r)) AS est_lt
		FROM est_q c WHERE id % 3 = 0 AND r IN (10000, 100000))
	SELECT string_agg(format('%s %s m: ring est %s actual %s, < est %s actual %s', src, r, est, actual,
		est_lt, actual_lt), E'\n')
	FROM q WHERE NOT (est <= 3 * greatest(actual, 1) AND est >= greatest(actual, 1) / 3.0)
		OR NOT (est_lt <= 3 * greatest(actual_lt, 1) AND est_lt >= greatest(actual_lt, 1) / 3.0)});
is($bad, '', 'rings and pos <~> c < r are estimated within 3x');

# a centre not known at planning (a generic plan's parameter): the estimate is
# the mean over points sampled from the index; the count it stands for is the
# mean around centres drawn from the rows (200, spread over the ids)
my $generic = $node->safe_psql('postgres', q{
	CREATE TABLE row_centres AS SELECT pos FROM pts WHERE pos IS NOT NULL AND NOT ST_IsEmpty(pos)
		ORDER BY id % 1693, id LIMIT 200;
	SET plan_cache_mode = force_generic_plan;
	PREPARE g1(geometry) AS SELECT id FROM pts WHERE geoidx_dwithin(pos, $1, 1000);
	PREPARE g10(geometry) AS SELECT id FROM pts WHERE geoidx_dwithin(pos, $1, 10000);
	PREPARE g100(geometry) AS SELECT id FROM pts WHERE geoidx_dwithin(pos, $1, 100000);
	PREPARE g1000(geometry) AS SELECT id FROM pts WHERE geoidx_dwithin(pos, $1, 1000000);
	SELECT string_agg(format('%s %s %s', r, round(est), round(mean::numeric, 1)), ',' ORDER BY r)
	FROM (SELECT r, plan_rows(format('EXECUTE g%s(%L)', r / 1000, 'SRID=4326;POINT(0 0)')) AS est,
			(SELECT avg((SELECT count(*) FROM pts p WHERE ST_DWithin(p.pos::geography, c.pos::geography, r)))
			 FROM row_centres c) AS mean
		  FROM unnest(ARRAY[1000, 10000, 100000, 1000000]) r) s});
for my $row (split /,/, $generic)
{
	my ($r, $est, $mean) = split / /, $row;
	diag("generic plan, $r m: estimated $est, mean count $mean");
	my $m = $mean < 1 ? 1 : $mean;
	ok($est <= 3 * $m && $est >= $m / 3,
		"a $r m disc around a parameter is estimated within 3x of the mean count around the rows ($est, $mean)");
}

# a geography column with geoidx's geography operator class
$node->safe_psql('postgres', q{
	CREATE TABLE gpts AS SELECT id, pos::geography AS g FROM pts WHERE pos IS NOT NULL AND NOT ST_IsEmpty(pos);
	CREATE INDEX gpts_gx ON gpts USING geoidx (g);
	VACUUM ANALYZE gpts;
});
$bad = $node->safe_psql('postgres', qq{
	WITH q AS (SELECT src, r, actual,
			plan_rows(format('SELECT id FROM gpts WHERE geoidx_dwithin(g, %L::geography, %s)', pos::text, r)) AS est
		FROM est_q WHERE id % 2 = 0)
	SELECT string_agg(format('%s %s m: est %s actual %s', src, r, est, actual), E'\n') FROM q WHERE NOT ($within)});
is($bad, '', 'geography column: every estimate within 3x');

# --- which index: the smallest that serves ------------------------------------------
$node->safe_psql('postgres', 'CREATE INDEX pts_gx_cat ON pts USING geoidx (pos, cat); VACUUM ANALYZE pts');
my ($small, $large) = split /\|/, $node->safe_psql('postgres',
	q{SELECT pg_relation_size('pts_gx'), pg_relation_size('pts_gx_cat')});
cmp_ok($small, '<', $large, "(pos) is the smaller index ($small < $large bytes)");
for my $q (
	[ 'a 1 km radius in a cluster', q{(SELECT pos FROM pts WHERE src = 'cluster' ORDER BY id LIMIT 1)}, 1000 ],
	[ 'a 10 km radius in a city', q{'SRID=4326;POINT(2.35 48.85)'}, 10000 ],
	[ 'a 100 km radius', q{'SRID=4326;POINT(-74 40.7)'}, 100000 ],
	[ 'an empty 1 km radius at sea', q{'SRID=4326;POINT(-30 -40)'}, 1000, 'no cat' ])
{
	my ($what, $centre, $r, $no_cat) = @$q;
	my $c = $node->safe_psql('postgres', "SELECT ($centre)::text");
	my $plan = $node->safe_psql('postgres',
		"EXPLAIN (COSTS OFF) SELECT id FROM pts WHERE geoidx_dwithin(pos, '$c'::geometry, $r)");
	like($plan, qr/using pts_gx on pts/, "$what uses the smaller (pos) index");
	next if $no_cat; # no rows to filter: the smaller index serves cat = 7 as well
	$plan = $node->safe_psql('postgres',
		"EXPLAIN (COSTS OFF) SELECT id FROM pts WHERE geoidx_dwithin(pos, '$c'::geometry, $r) AND cat = 7");
	like($plan, qr/using pts_gx_cat on pts/, "$what with cat = 7 uses the (pos, cat) index");
}

# --- what the estimate does not read ----------------------------------------------
$node->safe_psql('postgres', q{
	CREATE TABLE part_ix (id int, pos geometry(Point, 4326));
	INSERT INTO part_ix SELECT id, pos FROM pts WHERE src = 'cluster';
	CREATE INDEX part_ix_gx ON part_ix USING geoidx (pos) WHERE id % 2 = 0;
	CREATE TABLE empty_ix (id int, pos geometry(Point, 4326));
	CREATE INDEX empty_ix_gx ON empty_ix USING geoidx (pos);
	ANALYZE part_ix, empty_ix;
});
my $c = $node->safe_psql('postgres', q{SELECT pos::text FROM pts WHERE src = 'cluster' ORDER BY id LIMIT 1});
my $with_partial = $node->safe_psql('postgres',
	"SELECT plan_rows(\$\$SELECT id FROM part_ix WHERE geoidx_dwithin(pos, '$c'::geometry, 1000)\$\$)");
$node->safe_psql('postgres', 'DROP INDEX part_ix_gx');
my $without = $node->safe_psql('postgres',
	"SELECT plan_rows(\$\$SELECT id FROM part_ix WHERE geoidx_dwithin(pos, '$c'::geometry, 1000)\$\$)");
is($with_partial, $without, "a partial index is not read for the estimate ($with_partial rows either way)");
is($node->safe_psql('postgres',
		"SELECT plan_rows(\$\$SELECT id FROM empty_ix WHERE geoidx_dwithin(pos, '$c'::geometry, 1000)\$\$)"),
	'1', 'an empty table: one row, the least estimate');

done_testing();
