# shellcheck shell=bash
# The correctness guard: before any timing, geoidx's answers must equal the
# geography answers (PostGIS ST_DWithin / ST_Distance on ::geography, the
# reference for what geoidx promises) for a handful of centres. A fast wrong
# answer is not a result, so a mismatch aborts the run.

guard_table_exists() { [[ $(sql -c "SELECT to_regclass('$1') IS NOT NULL") == t ]]; }

# geoidx_sph: PostGIS's sphere k-NN SQL on the geoidx table (the rewrite on)
# gives the distances PostGIS's own plan gives on the reference table.
guard_sphere_knn() { # label table ref_table column k centre_sql
  local label=$1 t=$2 ref=$3 col=$4 k=$5 c=$6
  sql <<SQL
SET geoidx.rewrite_postgis = off;
CREATE TEMP TABLE sph_want AS SELECT array_agg(d ORDER BY n) AS ds
  FROM (SELECT $col::geography <-> ($c)::geography AS d, row_number() OVER () AS n
        FROM (SELECT $col FROM $ref ORDER BY $col::geography <-> ($c)::geography LIMIT $k) s) q;
SET geoidx.rewrite_postgis = on;
SELECT '$label', got.ds = want.ds, format('%s distances, the last %s m', cardinality(got.ds), got.ds[$k])
FROM sph_want want,
     (SELECT array_agg(d ORDER BY n) AS ds
        FROM (SELECT $col::geography <-> ($c)::geography AS d, row_number() OVER () AS n
              FROM (SELECT $col FROM $t ORDER BY $col::geography <-> ($c)::geography LIMIT $k) s) q) got;
SQL
}

# V: the viewport's rows through geoidx's index equal PostGIS's && on the
# base table (no index there: a sequential scan), for 12 viewports of each zoom.
guard_viewports() {
  sql <<SQL
SELECT format('V cities_geoidx viewport %s (zoom %s)', v.id, v.z),
       got = want, format('%s rows, PostGIS %s', cardinality(got), cardinality(want))
FROM viewports v,
     LATERAL (SELECT coalesce(array_agg(id ORDER BY id), '{}') AS got FROM cities_geoidx c WHERE c.pos && v.box) g,
     LATERAL (SELECT coalesce(array_agg(id ORDER BY id), '{}') AS want FROM cities c WHERE c.pos && v.box) w
WHERE v.id % 250 = 1 OR v.id % 250 = 100 OR v.id % 250 = 200;
SQL
}

# Does the plan of QUERY use index INDEX?  (warn only: a plan is the
# planner's choice, a wrong answer is ours)
guard_plan_uses() {
  local index=$1 query=$2
  if ! sql -c "EXPLAIN (COSTS OFF) $query" | grep -q "$index"; then
    loud "guard: the plan of [$query] does not use $index"
    sql -c "EXPLAIN (COSTS OFF) $query" >&2
  fi
}

# Each check prints lines "label|ok(t/f)|detail".
guard_r1() { # table
  local t=$1
  sql <<SQL
SELECT format('R1 %s centre %s', '$t', c),
       ref = got,
       format('geography %s rows, %s %s rows', cardinality(ref), '$t', cardinality(got))
FROM (SELECT c, coalesce(ids, '{}') AS ref,
             (SELECT coalesce(array_agg(s.id ORDER BY s.id), '{}') FROM $t s
               WHERE geoidx_dwithin(s.pos, r.pos, 200000)) AS got
      FROM r1_centres r WHERE c <= 6) q
UNION ALL
SELECT format('R1 %s count(*) centre %s', '$t', c),
       cardinality(coalesce(ids, '{}')) = (SELECT count(*) FROM $t s WHERE geoidx_dwithin(s.pos, r.pos, 200000)),
       format('geography %s', cardinality(coalesce(ids, '{}')))
FROM r1_centres r WHERE c <= 6;
SQL
}

# R2 and K1: the geoidx order must be the exact spheroid order (ids, or
# distances where the data has duplicate coordinates), and <~> must be the
# geography distance. The reference is computed inside a generous radius
# (exact ST_DWithin + ST_Distance on the spheroid) so it needs no seq scan.
guard_knn() { # label table ref_table big_radius_m k centre_sql compare(ids|dist) [within_m]
  # The centre must be a constant expression: an index can order by a
  # constant (or a parameter), not by a column of a joined relation.
  local label=$1 t=$2 ref=$3 big=$4 k=$5 c=$6 cmp=$7 within=${8:-}
  local filter_got="" filter_ref=""
  if [[ -n $within ]]; then
    filter_got="WHERE geoidx_dwithin(s.pos, $c, $within)"
    filter_ref="AND ST_DWithin(s.pos::geography, ($c)::geography, $within)"
  fi
  sql <<SQL
WITH got AS (
  SELECT array_agg(id ORDER BY n) AS ids, array_agg(round(d::numeric, 4) ORDER BY n) AS ds,
         max(abs(d - dg)) AS err
  FROM (SELECT id, d, dg, row_number() OVER () AS n
        FROM (SELECT s.id, s.pos <~> $c AS d, ST_Distance(s.pos::geography, ($c)::geography) AS dg
              FROM $t s $filter_got ORDER BY s.pos <~> $c LIMIT $k) q0) q),
ref AS (
  SELECT array_agg(id ORDER BY d, id) AS ids, array_agg(round(d::numeric, 4) ORDER BY d, id) AS ds,
         count(*) AS n
  FROM (SELECT s.id, ST_Distance(s.pos::geography, ($c)::geography) AS d
        FROM $ref s
        WHERE ST_DWithin(s.pos::geography, ($c)::geography, $big) $filter_ref
        ORDER BY 2, 1 LIMIT $k) q)
SELECT '$label',
       coalesce(CASE WHEN '$cmp' = 'ids' THEN got.ids = ref.ids ELSE got.ds = ref.ds END, false)
         AND coalesce(got.err, 0) < 1e-6,
       format('%s rows vs %s, max |<~> - ST_Distance| = %s m', cardinality(got.ids), ref.n, got.err)
FROM got, ref;
SQL
}

# KF: the 10 nearest of one category on the (pos, category) geoidx index
# must be the 10 nearest of that category by ST_Distance(geography) from a
# sequential scan of worldcat (no spatial index there), compared by
# distances (ties make ids interchangeable); every row must be of that
# category and <~> must be ST_Distance.
guard_kf() { # label table category centre_sql
  local label=$1 t=$2 cat=$3 c=$4
  sql <<SQL
WITH got AS (
  SELECT array_agg(round(d::numeric, 4) ORDER BY n) AS ds, count(*) AS n,
         max(abs(d - dg)) AS err, bool_and(category = $cat) AS cat_ok
  FROM (SELECT q0.*, row_number() OVER () AS n
        FROM (SELECT s.category, s.pos <~> $c AS d, ST_Distance(s.pos::geography, ($c)::geography) AS dg
              FROM $t s WHERE s.category = $cat ORDER BY s.pos <~> $c LIMIT 10) q0) q),
ref AS (
  SELECT array_agg(round(d::numeric, 4) ORDER BY d) AS ds, count(*) AS n
  FROM (SELECT ST_Distance(s.pos::geography, ($c)::geography) AS d
        FROM worldcat s WHERE s.category = $cat ORDER BY 1 LIMIT 10) q)
SELECT '$label',
       coalesce(got.ds = ref.ds AND got.cat_ok AND got.err < 1e-6, false),
       format('%s rows vs %s (sequential scan), all of category $cat: %s, max |<~> - ST_Distance| = %s m',
              got.n, ref.n, got.cat_ok, got.err)
FROM got, ref;
SQL
}

# PG: page 100 (rows 991..1000) asked the keyset way, "<~> > bound" with the
# bound pg_centres holds for the centre, must be rows 991..1000 of a
# sequential scan of world ordered by ST_Distance(geography) (by distances),
# and the stored bound must be that scan's 990th distance. The centre and
# bound are spliced in as literals, as pgbench sends them. The scan skips
# the geodesic for rows outside bench_dwithin_box(c, r) (a plain
# bounding-box test, provably holding everything within r), r the radius
# of the cap expected to hold 3,000 world points (~700 km at 1 M points);
# the reference is complete when its 1000th distance is below r.
guard_pg() { # label centre_id
  local label=$1 cid=$2 lon lat bound c r
  IFS='|' read -r lon lat bound <<<"$(sql -c "SELECT lon, lat, bound_geoidx FROM pg_centres WHERE c = $cid")"
  r=$(sql -c "SELECT round(6371008.77 * acos(greatest(-1, 1 - 2 * 3000.0 / count(*)))) FROM world")
  c="ST_SetSRID(ST_MakePoint($lon, $lat), 4326)"
  sql <<SQL
WITH got AS (
  SELECT array_agg(round(d::numeric, 4) ORDER BY n) AS ds, count(*) AS n, max(abs(d - dg)) AS err
  FROM (SELECT q0.*, row_number() OVER () AS n
        FROM (SELECT s.pos <~> $c AS d, ST_Distance(s.pos::geography, ($c)::geography) AS dg
              FROM world_geoidx s WHERE s.pos <~> $c > $bound
              ORDER BY s.pos <~> $c LIMIT 10) q0) q),
ref AS (
  SELECT array_agg(round(d::numeric, 4) ORDER BY n) FILTER (WHERE n > 990) AS ds,
         count(*) FILTER (WHERE n > 990) AS n, max(d) FILTER (WHERE n = 990) AS b990, max(d) AS last
  FROM (SELECT d, row_number() OVER (ORDER BY d) AS n
        FROM (SELECT ST_Distance(s.pos::geography, ($c)::geography) AS d
              FROM world s WHERE s.pos && bench_dwithin_box($c, $r)
              ORDER BY 1 LIMIT 1000) q0) q)
SELECT '$label',
       coalesce(got.ds = ref.ds AND got.err < 1e-6 AND ref.b990 = $bound::float8
                AND ref.n = 10 AND ref.last < $r, false),
       format('rows 991..1000: %s rows vs %s (sequential scan, 1000th at %s m); bound %s m vs 990th %s m; max |<~> - ST_Distance| = %s m',
              got.n, ref.n, round(ref.last), $bound::float8, ref.b990, got.err)
FROM got, ref;
SQL
}

# G1-G3 (zones): for 20 probes spread over every copy of NYC (ids 1 + i (n -
# 1) / 19: the first, the last and 18 between), geoidx's answer on
# zones_geoidx must equal PostGIS geography's, each query written as the
# pgbench scripts write it (the probe read by primary key: a parameter of the
# index scan). G1: the ids of the zones covering the probe vs ST_Covers
# (geography); G2: the ids within 500 m vs ST_DWithin (geography); G3: the 3
# nearest by <~> vs the 3 smallest ST_Distance (geography), compared by
# distances (a probe on a shared border has two zones at 0 m), and <~> must
# equal ST_Distance within 1e-6 m. The reference is zones_gist_geog (PostGIS's
# own index: a sequential scan of the 10,000 polygons takes ~5 s per probe);
# without it, the base table with a planar prefilter, bench_dwithin_box(probe,
# r + 10 km) (the margin covers the bulge of geodesic edges beyond the
# vertices' box: ~2 m for a 10 km edge at latitude 40, where NTA edges are at
# most a few km). G3's reference looks within the largest ST_Distance of
# geoidx's 3 rows: the true 3rd nearest is no farther than any 3 zones, so
# that radius holds it. One line per workload; the guard fails if no probe
# had any zone in its answer (nothing compared).
# The probes: zone_probes ids, spread.
guard_zone_probes() {
  local n i
  n=$(sql -c "SELECT count(*) FROM zone_probes")
  for ((i = 0; i < 20; i++)); do echo $((1 + i * (n - 1) / 19)); done
}
# The reference relation and prefilter for radius R (metres) around PT.
guard_zone_ref() { # r (metres, an SQL expression) -> "table|prefilter" (PT: the probe, substituted later)
  if guard_table_exists zones_gist_geog; then
    echo "zones_gist_geog|true"
  else
    echo "zones|shape && bench_dwithin_box(PT, $1 + 10000)"
  fi
}
# The guard's line for rows of (p, got, ref) zone id arrays, one per probe:
# every probe's got equals its ref, and some probe has a zone.
guard_sets_verdict() { # label ref_table rows_sql
  sql <<SQL
WITH r AS ($3)
SELECT '$1',
       bool_and(got = ref) AND count(*) FILTER (WHERE cardinality(ref) > 0) > 0,
       format('%s probes, %s differ%s; %s probes with zones, %s zones in all (reference: $2)',
              count(*), count(*) FILTER (WHERE got <> ref),
              coalesce(' (probes ' || string_agg(p::text, ',') FILTER (WHERE got <> ref) || ')', ''),
              count(*) FILTER (WHERE cardinality(ref) > 0), sum(cardinality(ref)))
FROM r;
SQL
}
guard_zones_set() { # label got_predicate ref_predicate r (PT: the probe)
  local label=$1 got=$2 refp=$3 r=$4 ref pre p pt rows=""
  IFS='|' read -r ref pre <<<"$(guard_zone_ref "$r")"
  for p in $(guard_zone_probes); do
    pt="(SELECT pos FROM zone_probes WHERE id = $p)"
    rows+="${rows:+ UNION ALL }SELECT $p AS p,
  (SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM zones_geoidx WHERE ${got//PT/$pt}) AS got,
  (SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM $ref WHERE ${pre//PT/$pt} AND ${refp//PT/$pt}) AS ref
"
  done
  guard_sets_verdict "$label" "$ref" "$rows"
}
guard_zones_knn() { # label k
  local label=$1 k=$2 ref pre p pt rows=""
  IFS='|' read -r ref pre <<<"$(guard_zone_ref "got.reach + 0.001")"
  for p in $(guard_zone_probes); do
    pt="(SELECT pos FROM zone_probes WHERE id = $p)"
    # the reference radius: the largest ST_Distance of geoidx's k rows (+ 1 mm)
    rows+="${rows:+ UNION ALL }SELECT $p AS p, got.ds AS got, got.err, got.n,
  (SELECT array_agg(round(d::numeric, 4) ORDER BY d)
   FROM (SELECT ST_Distance(s.shape::geography, $pt::geography) AS d FROM $ref s
          WHERE ${pre//PT/$pt}
            AND ST_DWithin(s.shape::geography, $pt::geography, got.reach + 0.001)
          ORDER BY 1 LIMIT $k) q) AS ref
FROM (SELECT array_agg(round(d::numeric, 4) ORDER BY n) AS ds, max(abs(d - dg)) AS err,
             max(dg) AS reach, count(*) AS n
      FROM (SELECT d, dg, row_number() OVER () AS n
            FROM (SELECT s.shape <~> $pt AS d, ST_Distance(s.shape::geography, $pt::geography) AS dg
                  FROM zones_geoidx s ORDER BY s.shape <~> $pt LIMIT $k) q0) q) got
"
  done
  sql <<SQL
WITH r AS ($rows)
SELECT '$label',
       bool_and(coalesce(got = ref AND n = $k AND err < 1e-6, false)),
       format('%s probes, %s differ%s; max |<~> - ST_Distance| = %s m; farthest 3rd zone %s m (reference: $ref)',
              count(*), count(*) FILTER (WHERE NOT coalesce(got = ref AND n = $k AND err < 1e-6, false)),
              coalesce(' (probes ' || string_agg(p::text, ',')
                         FILTER (WHERE NOT coalesce(got = ref AND n = $k AND err < 1e-6, false)) || ')', ''),
              max(err), max(got[$k]))
FROM r;
SQL
}

# G4 (zonepts): for 10 zones spread over every copy of NYC (ids 1 + i (n -
# 1) / 9: the first, the last and 8 between), the count of the points the
# zone covers on zonepts_geoidx, asked as the pgbench script asks it (the
# zone read by primary key: a parameter of the index scan), must equal
# PostGIS geography's ST_CoveredBy(pos::geography, zone::geography) count;
# the ids of those points must be the same too. The reference is
# zonepts_gist_geog (PostGIS's own geography index); without it, the base
# table with a planar prefilter, pos && ST_Expand(zone, 0.01) (~1 km: the
# bulge of geodesic edges beyond the vertices' box is metres for NTA
# edges). Fails if no zone covered any point (nothing compared).
# G5 (bigzones): for 40 bus positions spread over the copies, the large
# zones that geoidx_covers finds on bigzones_geoidx, against PostGIS's
# ST_Covers(geography) on bigzones_gist_geog (or the base table, unindexed).
guard_bigzones() { # label
  local label=$1 n i p ref=bigzones rows=""
  guard_table_exists bigzones_gist_geog && ref=bigzones_gist_geog
  n=$(sql -c "SELECT count(*) FROM bigzone_probes")
  for ((i = 0; i < 40; i++)); do
    p=$((1 + i * (n - 1) / 39))
    rows+="${rows:+ UNION ALL }SELECT $p AS p,
  (SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM bigzones_geoidx
    WHERE geoidx_covers(shape, (SELECT pos FROM bigzone_probes WHERE id = $p))) AS got,
  (SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM $ref
    WHERE ST_Covers(shape::geography, (SELECT pos FROM bigzone_probes WHERE id = $p)::geography)) AS ref
"
  done
  guard_sets_verdict "$label" "$ref" "$rows"
}
guard_zonepts() { # label
  local label=$1 n i z zs ref=zonepts pre rows=""
  n=$(sql -c "SELECT count(*) FROM zones")
  pre="pos && ST_Expand(ZS, 0.01)"
  if guard_table_exists zonepts_gist_geog; then ref=zonepts_gist_geog pre=true; fi
  for ((i = 0; i < 10; i++)); do
    z=$((1 + i * (n - 1) / 9))
    zs="(SELECT shape FROM zones WHERE id = $z)"
    rows+="${rows:+ UNION ALL }SELECT $z AS z,
  (SELECT count(*) FROM zonepts_geoidx WHERE geoidx_coveredby(pos, $zs)) AS got_n,
  (SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM zonepts_geoidx WHERE geoidx_coveredby(pos, $zs)) AS got,
  (SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM $ref
    WHERE ${pre//ZS/$zs} AND ST_CoveredBy(pos::geography, $zs::geography)) AS ref
"
  done
  # (the reference count is that of its ids: PostGIS's geography test runs once per zone)
  sql <<SQL
WITH r0 AS ($rows), r AS (SELECT *, cardinality(ref) AS ref_n FROM r0)
SELECT '$label',
       bool_and(got_n = ref_n AND got = ref) AND count(*) FILTER (WHERE ref_n > 0) > 0,
       format('%s zones, %s differ%s; %s zones with points, %s points in all, %s at most (reference: $ref)',
              count(*), count(*) FILTER (WHERE got_n <> ref_n OR got <> ref),
              coalesce(' (zones ' || string_agg(z || ': ' || got_n || ' vs ' || ref_n, ', ')
                                       FILTER (WHERE got_n <> ref_n OR got <> ref) || ')', ''),
              count(*) FILTER (WHERE ref_n > 0), sum(ref_n), max(ref_n))
FROM r;
SQL
}

# Is the KF category / the PG bound an index condition of the geoidx scan?
# (warn only). For PG also with a generic plan (-M prepared runs those after
# five executions): the bound is then a parameter, not a constant.
guard_plan_cond() { # index query what
  local index=$1 query=$2 what=$3 plan
  plan=$(sql -c "EXPLAIN (COSTS OFF) $query")
  if ! grep -q "$index" <<<"$plan" || grep -q 'Filter:' <<<"$plan"; then
    loud "guard: in the plan of [$query], $what is not an index condition of $index"
    printf '%s\n' "$plan" >&2
  fi
}
guard_plan_generic_pg() {
  local plan
  plan=$(sql <<'SQL'
SET plan_cache_mode = force_generic_plan;
PREPARE pg_page(float8, float8, float8) AS
  SELECT id, pos <~> ST_SetSRID(ST_MakePoint($1, $2), 4326) AS d FROM world_geoidx
   WHERE pos <~> ST_SetSRID(ST_MakePoint($1, $2), 4326) > $3
   ORDER BY pos <~> ST_SetSRID(ST_MakePoint($1, $2), 4326) LIMIT 10;
EXPLAIN (COSTS OFF) EXECUTE pg_page(112, -7, 400000);
SQL
  )
  if ! grep -q world_geoidx_pos <<<"$plan" || grep -q 'Filter:' <<<"$plan"; then
    loud "guard: with a generic plan (-M prepared), PG's bound is not an index condition of world_geoidx_pos"
    printf '%s\n' "$plan" >&2
  fi
}

run_guard() {
  if ((GEOIDX == 0)); then
    loud "guard: geoidx is not installed: nothing to check"
    return
  fi
  step "guard: geoidx answers vs geography answers, before any timing"
  local out t
  out=$(
    for t in seed1_geoidx seed1_geoidx_cl; do
      guard_table_exists "$t" && guard_r1 "$t"
    done
    if guard_table_exists seed2_geoidx; then
      local ref=seed2
      guard_table_exists seed2_gist_geog && ref=seed2_gist_geog
      for c in "125.3 75.2" "120.9 70.4" "129.7 79.8"; do
        guard_knn "R2 seed2_geoidx ($c)" seed2_geoidx "$ref" 5000 100 \
          "ST_SetSRID(ST_MakePoint(${c% *}, ${c#* }), 4326)" ids 5000
      done
    fi
    if guard_table_exists world_geoidx; then
      local ref=world
      guard_table_exists world_gist_geog && ref=world_gist_geog
      for c in "112 -7" "179.9 0.5" "-45 89.9"; do
        guard_knn "K1 world_geoidx k=10 ($c)" world_geoidx "$ref" 500000 10 \
          "ST_SetSRID(ST_MakePoint(${c% *}, ${c#* }), 4326)" ids
      done
    fi
    if guard_table_exists cities_geoidx; then
      local ref=cities
      guard_table_exists cities_gist_geog && ref=cities_gist_geog
      for c in 1 50000 121276; do
        guard_knn "K1 cities_geoidx k=10 (city $c)" cities_geoidx "$ref" 3000000 10 \
          "$(sql -c "SELECT format('ST_SetSRID(ST_MakePoint(%s, %s), 4326)', ST_X(pos), ST_Y(pos))
                     FROM cities WHERE id = $c")" dist
      done
    fi
    if guard_table_exists worldcat_geoidx; then
      local lon lat cat
      for c in "12.3 45.6 7" "179.9 -0.5 0" "-45 89.9 99"; do
        read -r lon lat cat <<<"$c"
        guard_kf "KF worldcat_geoidx category $cat ($lon $lat)" worldcat_geoidx "$cat" \
          "ST_SetSRID(ST_MakePoint($lon, $lat), 4326)"
      done
    fi
    if ((GEOIDX_BEYOND)) && guard_table_exists pg_centres && guard_table_exists world_geoidx; then
      for c in 1 2; do # next to the antimeridian, next to the pole
        guard_pg "PG world_geoidx page 100 (pg_centres $c)" "$c"
      done
    fi
    if guard_table_exists zones_geoidx; then
      guard_zones_set "G1 zones_geoidx covers (20 probes)" "geoidx_covers(shape, PT)" \
        "ST_Covers(shape::geography, PT::geography)" 0
      guard_zones_set "G2 zones_geoidx within 500 m (20 probes)" "geoidx_dwithin(shape, PT, 500)" \
        "ST_DWithin(shape::geography, PT::geography, 500)" 500
      guard_zones_knn "G3 zones_geoidx 3 nearest (20 probes)" 3
    fi
    if ((GEOIDX_COVEREDBY)) && guard_table_exists zonepts_geoidx; then
      guard_zonepts "G4 zonepts_geoidx points covered by a zone (10 zones)"
    fi
    if guard_table_exists bigzones_geoidx; then
      guard_bigzones "G5 bigzones_geoidx covers (40 probes)"
    fi
    if guard_table_exists cities_geoidx && guard_table_exists viewports; then
      guard_viewports
    fi
    if guard_table_exists cities_geoidx; then
      for c in 1 50000 121276; do
        guard_sphere_knn "K1 cities_geoidx geography <-> (city $c)" cities_geoidx cities pos 10 \
          "(SELECT pos FROM cities WHERE id = $c)"
      done
    fi
  ) || die "guard: a guard query failed (is geoidx's SQL surface as documented?)"
  local label ok detail bad=0
  while IFS='|' read -r label ok detail; do
    [[ -z $label ]] && continue
    if [[ $ok == t ]]; then
      step "guard: ok   $label: $detail"
    else
      loud "guard: WRONG $label: $detail"
      bad=1
    fi
  done <<<"$out"
  ((bad == 0)) || die "geoidx returned answers that differ from PostGIS geography: not benchmarking a wrong index"
  guard_table_exists seed1_geoidx && guard_plan_uses seed1_geoidx_pos \
    "SELECT id FROM seed1_geoidx WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(112, -7), 4326), 200000)"
  guard_table_exists world_geoidx && guard_plan_uses world_geoidx_pos \
    "SELECT id FROM world_geoidx ORDER BY pos <~> ST_SetSRID(ST_MakePoint(112, -7), 4326) LIMIT 10"
  guard_table_exists worldcat_geoidx && guard_plan_cond worldcat_geoidx_pos \
    "SELECT id FROM worldcat_geoidx WHERE category = 7 ORDER BY pos <~> ST_SetSRID(ST_MakePoint(112, -7), 4326) LIMIT 10" \
    "the category"
  if guard_table_exists zones_geoidx; then
    local q
    for q in "WHERE geoidx_covers(shape, (SELECT pos FROM zone_probes WHERE id = 1))" \
      "WHERE geoidx_dwithin(shape, (SELECT pos FROM zone_probes WHERE id = 1), 500)" \
      "ORDER BY shape <~> (SELECT pos FROM zone_probes WHERE id = 1) LIMIT 3"; do
      guard_plan_uses zones_geoidx_pos "SELECT id FROM zones_geoidx $q"
    done
  fi
  guard_table_exists bigzones_geoidx && guard_plan_uses bigzones_geoidx_pos \
    "SELECT id FROM bigzones_geoidx WHERE geoidx_covers(shape, (SELECT pos FROM bigzone_probes WHERE id = 1))"
  guard_table_exists cities_geoidx && guard_table_exists viewports && guard_plan_uses cities_geoidx_pos \
    "SELECT id FROM cities_geoidx WHERE pos && (SELECT box FROM viewports WHERE id = 1)"
  if ((GEOIDX_COVEREDBY)) && guard_table_exists zonepts_geoidx; then
    guard_plan_uses zonepts_geoidx_pos \
      "SELECT count(*) FROM zonepts_geoidx WHERE geoidx_coveredby(pos, (SELECT shape FROM zones WHERE id = 1))"
  fi
  if ((GEOIDX_BEYOND)) && guard_table_exists pg_centres && guard_table_exists world_geoidx; then
    guard_plan_cond world_geoidx_pos \
      "SELECT id FROM world_geoidx WHERE pos <~> ST_SetSRID(ST_MakePoint(112, -7), 4326) > 400000 ORDER BY pos <~> ST_SetSRID(ST_MakePoint(112, -7), 4326) LIMIT 10" \
      "the bound"
    guard_plan_generic_pg
  fi
  return 0
}
