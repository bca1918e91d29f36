# shellcheck shell=bash
# The correctness guard: before any timing, geoidx's answers must equal the
# geography answers (PostGIS ST_DWithin / ST_Distance on ::geography, the
# reference for what geoidx promises) for a handful of centres. A fast wrong
# answer is not a result, so a mismatch aborts the run.

guard_table_exists() { [[ $(sql -c "SELECT to_regclass('$1') IS NOT NULL") == t ]]; }

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
  return 0
}
