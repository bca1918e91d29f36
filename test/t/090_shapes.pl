# Differential test of the shape predicates against PostGIS geography: the
# NYC neighbourhoods and boroughs at six places (across the antimeridian,
# near latitude +-85, the equator, the south), probes on their vertices and
# edges and at the bus positions, generated shapes (caps around both poles,
# a polygon larger than a hemisphere, a 10,000 km one, holes, a multipolygon
# across the antimeridian, 1 m squares, a 100,000-vertex ring, lines,
# collections, a bowtie, NULL and EMPTY), and small squares and lines for
# shape-shape pairs (test/sql/shapes_differential_data.sql).
#
# Each form is answered through the geoidx index (the grids, the prepared
# polygons, the rechecks) and by PostGIS through its GiST index on the
# geography cast; the sets of (shape, probe) pairs must be equal. PostGIS's
# geography answers can depend on its per-call cache near an edge (the
# cached tree and the uncached path round differently): a pair the two sides
# disagree on is asked of PostGIS again in a statement of its own, and
# geoidx's answer must then be that one. The count of such pairs is reported.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use GeoidxTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $t0 = time;
my $node = geoidx_node('shapes', conf => "work_mem = 64MB\nclient_min_messages = warning\n");
psql_file($node, "$FindBin::Bin/../sql/shapes_differential_data.sql", datadir => data_dir());
$node->safe_psql('postgres', q{
	SET client_min_messages = warning;
	CREATE INDEX zones_geoidx ON zones USING geoidx (shape);
	CREATE INDEX zones_geog ON zones USING gist ((shape::geography));
	CREATE INDEX zones_geom ON zones USING gist (shape);
	CREATE INDEX gen_geoidx ON gen USING geoidx (shape);
	CREATE INDEX gen_geog ON gen USING gist ((shape::geography));
	CREATE INDEX probes_geoidx ON probes USING geoidx (pt);
	CREATE INDEX probes_geog ON probes USING gist ((pt::geography));
	CREATE INDEX gen_probes_geog ON gen_probes USING gist ((pt::geography));
	CREATE INDEX smalls_geog ON smalls USING gist ((shape::geography));
	-- PostGIS's answer for one pair, in a statement of its own (no cache of an earlier call)
	CREATE FUNCTION alone(call text, a geometry, b geometry) RETURNS boolean LANGUAGE plpgsql AS $$
	DECLARE r boolean; BEGIN EXECUTE 'SELECT ' || call USING a, b INTO r; RETURN r; END $$;
});
for my $i (qw(zones_geoidx gen_geoidx probes_geoidx))
{
	$node->safe_psql('postgres', "SELECT geoidx_verify('$i')");
}
pass('geoidx_verify of the three indexes after the build');

my $plan = $node->safe_psql('postgres', q{SET enable_seqscan = off;
	EXPLAIN (COSTS OFF) SELECT id FROM zones WHERE geoidx_covers(shape, 'SRID=4326;POINT(-73.96 40.78)')});
like($plan, qr/Index Cond: \(shape ~@> /, 'geoidx_covers(zone, point) is the exact operator condition');
unlike($plan, qr/Filter/, '... with no filter');

my ($pairs, $forms, $history) = (0, 0, 0);

# compare(label, shapes, probes, geoidx form, PostGIS form, the pair's PostGIS call, ordered side)
# Forms use z (the shape) and q (the probe, .pt or .shape); geoidx's is run
# with the probe outer and the geoidx index inner ('probe') or the other way
# round ('shape': a point column covered by a zone); PostGIS's with the shape
# outer, so that its cache keeps one shape across the probes it asks about.
sub compare
{
	my ($label, $shapes, $probes, $got_form, $ref_form, $call, $pcol, $outer) = @_;
	my $got_sql = $outer eq 'shape'
		? "SELECT z.id AS z, q.id AS q FROM $shapes z CROSS JOIN LATERAL (SELECT id FROM $probes q WHERE $got_form) q"
		: "SELECT z.id AS z, q.id AS q FROM $probes q CROSS JOIN LATERAL (SELECT id FROM $shapes z WHERE $got_form) z";
	my $out = $node->safe_psql('postgres', qq{
		SET client_min_messages = warning;
		DROP TABLE IF EXISTS got, ref, differ;
		SET enable_seqscan = off;
		CREATE TABLE got AS $got_sql;
		RESET enable_seqscan;
		SET geoidx.rewrite_postgis = off;
		CREATE TABLE ref AS SELECT z.id AS z, q.id AS q FROM $shapes z
			CROSS JOIN LATERAL (SELECT id FROM $probes q WHERE $ref_form) q;
		CREATE TABLE differ AS
			SELECT d.*, alone('$call', z.shape, q.$pcol) AS alone FROM
				(SELECT *, true AS in_got FROM (SELECT * FROM got EXCEPT SELECT * FROM ref) a
				 UNION ALL SELECT *, false FROM (SELECT * FROM ref EXCEPT SELECT * FROM got) b) d
				JOIN $shapes z ON z.id = d.z JOIN $probes q ON q.id = d.q;
		SELECT (SELECT count(*) FROM $shapes z JOIN $probes q ON z.shape::geography && q.$pcol::geography),
			(SELECT count(*) FROM ref), (SELECT count(*) FROM differ),
			(SELECT count(*) FROM differ WHERE alone IS DISTINCT FROM in_got),
			(SELECT string_agg(format('(%s, %s): geoidx %s, PostGIS %s alone', z, q, in_got, alone), '; ')
			 FROM (SELECT * FROM differ WHERE alone IS DISTINCT FROM in_got ORDER BY z, q LIMIT 5) w)});
	my ($cand, $true, $differ, $wrong, $first) = split /\|/, $out;
	is($wrong, 0, "$label: $true true of $cand candidate pairs, as PostGIS answers them"
		  . ($differ ? " ($differ where PostGIS's cached and single answers differ: geoidx gives the single one)" : ''))
	  or diag($first);
	$pairs += $cand;
	$forms++;
	$history += $differ;
	return;
}

# --- shapes and points ------------------------------------------------------
compare('covers(zone, point)', 'zones', 'probes', 'geoidx_covers(z.shape, q.pt)',
	'ST_Covers(z.shape::geography, q.pt::geography)', 'ST_Covers($1::geography, $2::geography)', 'pt', 'probe');
compare('intersects(zone, point)', 'zones', 'probes', 'geoidx_intersects(z.shape, q.pt)',
	'ST_Intersects(z.shape::geography, q.pt::geography)', 'ST_Intersects($1::geography, $2::geography)', 'pt', 'probe');
compare('coveredby(point, zone), the zone indexed', 'zones', 'probes', 'geoidx_coveredby(q.pt, z.shape)',
	'ST_CoveredBy(q.pt::geography, z.shape::geography)', 'ST_CoveredBy($2::geography, $1::geography)', 'pt', 'probe');
compare('coveredby(point, zone), the points indexed', 'zones', 'probes', 'geoidx_coveredby(q.pt, z.shape)',
	'ST_CoveredBy(q.pt::geography, z.shape::geography)', 'ST_CoveredBy($2::geography, $1::geography)', 'pt', 'shape');
compare('dwithin(zone, point, 50)', 'zones', 'probes', 'geoidx_dwithin(z.shape, q.pt, 50)',
	'ST_DWithin(z.shape::geography, q.pt::geography, 50)', 'ST_DWithin($1::geography, $2::geography, 50)', 'pt', 'probe');
compare('dwithin(point, zone, 500, sphere)', 'zones', 'probes', 'geoidx_dwithin(q.pt, z.shape, 500, false)',
	'ST_DWithin(q.pt::geography, z.shape::geography, 500, false)', 'ST_DWithin($2::geography, $1::geography, 500, false)', 'pt', 'probe');

# --- generated shapes (poles, hemispheres, antimeridian, holes, lines, ...) --
for my $f (
	[ 'covers', 'geoidx_covers(z.shape, q.pt)', 'ST_Covers(z.shape::geography, q.pt::geography)', 'ST_Covers($1::geography, $2::geography)' ],
	[ 'intersects', 'geoidx_intersects(z.shape, q.pt)', 'ST_Intersects(z.shape::geography, q.pt::geography)', 'ST_Intersects($1::geography, $2::geography)' ],
	[ 'coveredby', 'geoidx_coveredby(q.pt, z.shape)', 'ST_CoveredBy(q.pt::geography, z.shape::geography)', 'ST_CoveredBy($2::geography, $1::geography)' ],
	[ 'dwithin 1000', 'geoidx_dwithin(z.shape, q.pt, 1000)', 'ST_DWithin(z.shape::geography, q.pt::geography, 1000)', 'ST_DWithin($1::geography, $2::geography, 1000)' ])
{
	compare("generated shapes: $f->[0]", 'gen', 'gen_probes', $f->[1], "z.shape IS NOT NULL AND $f->[2]", $f->[3], 'pt', 'probe');
}

# --- shapes and shapes --------------------------------------------------------
compare('intersects(zone, square or line)', 'zones', 'smalls', 'geoidx_intersects(z.shape, q.shape)',
	'ST_Intersects(z.shape::geography, q.shape::geography)', 'ST_Intersects($1::geography, $2::geography)', 'shape', 'probe');
compare('covers(zone, square or line)', 'zones', 'smalls', 'geoidx_covers(z.shape, q.shape)',
	'ST_Covers(z.shape::geography, q.shape::geography)', 'ST_Covers($1::geography, $2::geography)', 'shape', 'probe');
compare('dwithin(zone, square or line, 100)', 'zones', 'smalls', 'geoidx_dwithin(z.shape, q.shape, 100)',
	'ST_DWithin(z.shape::geography, q.shape::geography, 100)', 'ST_DWithin($1::geography, $2::geography, 100)', 'shape', 'probe');

# --- planar (PostGIS's own GEOS answers, the index only narrowing) ----------
my $planar = $node->safe_psql('postgres', q{
	SET client_min_messages = warning;
	SET enable_seqscan = off;
	CREATE TABLE pgot AS SELECT z.id AS z, q.id AS q FROM probes q CROSS JOIN LATERAL
		(SELECT id FROM zones z WHERE ST_Contains(z.shape, q.pt)) z;
	SET geoidx.rewrite_postgis = off;
	CREATE TABLE pref AS SELECT z.id AS z, q.id AS q FROM probes q CROSS JOIN LATERAL
		(SELECT id FROM zones z WHERE ST_Contains(z.shape, q.pt)) z;
	SELECT (SELECT count(*) FROM pref), (SELECT count(*) FROM (SELECT * FROM pgot EXCEPT SELECT * FROM pref) a)
		+ (SELECT count(*) FROM (SELECT * FROM pref EXCEPT SELECT * FROM pgot) b)});
my ($ptrue, $pdiff) = split /\|/, $planar;
is($pdiff, 0, "planar ST_Contains(zone, point) through geoidx: the same $ptrue pairs as through GiST(geometry)");

# --- the 3 nearest zones, distances as PostGIS's ------------------------------
my $knn = $node->safe_psql('postgres', q{
	SET client_min_messages = warning;
	WITH k AS (
		SELECT q.id,
			(SELECT array_agg(d ORDER BY d) FROM (SELECT z.shape <~> q.pt d FROM zones z ORDER BY z.shape <~> q.pt LIMIT 3) a) g,
			-- PostGIS: the spheroid distance of the 20 nearest on the sphere, the 3 least
			(SELECT array_agg(d ORDER BY d) FROM (SELECT ST_Distance(c.shape::geography, q.pt::geography) d
				FROM (SELECT shape FROM zones z ORDER BY z.shape::geography <-> q.pt::geography LIMIT 20) c
				ORDER BY 1 LIMIT 3) a) w
		FROM probes q WHERE q.id % 97 = 0)
	SELECT count(*), count(*) FILTER (WHERE cardinality(g) <> 3 OR EXISTS (
		SELECT 1 FROM generate_series(1, 3) i WHERE abs(g[i] - w[i]) > 1e-6)) FROM k});
my ($nk, $kbad) = split /\|/, $knn;
is($kbad, 0, "3 nearest zones of $nk probes: PostGIS's distances in order");

my $d = $node->safe_psql('postgres', 'SELECT ruled_out_by_box, accepted, rejected, rechecked FROM geoidx_shape_decisions()');
cmp_ok($pairs, '>=', 500000, "at least 500,000 candidate pairs compared ($pairs)");
diag(sprintf('%d forms, %d candidate pairs, %d where PostGIS cached and alone differ, %ds', $forms, $pairs, $history, time - $t0));
done_testing();
