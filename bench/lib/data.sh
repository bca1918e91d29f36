# shellcheck shell=bash
# Data sets and per-variant tables.
#
# Each data set is generated once into a base table (id primary key, pos),
# then copied once per index variant: table <dataset>_<variant> with its one
# spatial index <table>_pos. One index per table means the planner can only
# use the index the workload is about, and every copy has the same physical
# row order (by id, i.e. spatially random) except the *_cl copies, which are
# CLUSTERed USING their geoidx index. The base table itself is the "no index"
# variant.

# builds.csv ($BUILDS_CSV, named by bench/run):
#   dataset,table,variant,step,round,ms,index_bytes,table_bytes

# dataset_load NAME: create and fill the base table (idempotent).
dataset_load() {
  local ds=$1 t0
  if [[ $(sql -c "SELECT to_regclass('$ds') IS NOT NULL") == t ]]; then
    step "data: $ds already loaded"
    return
  fi
  t0=$(now_ms)
  case $ds in
    seed1) sql -f "$BENCH_DIR/sql/seed1.sql" >/dev/null ;;
    seed2) sql -v points="$SEED2_POINTS" -f "$BENCH_DIR/sql/seed2.sql" >/dev/null ;;
    world) sql -v points="$WORLD_POINTS" -v table=world -v seed=0.3018 -f "$BENCH_DIR/sql/uniform.sql" >/dev/null ;;
    worldcat)
      # derived from world (KF): world first, if this run has not loaded it
      [[ $(sql -c "SELECT to_regclass('world') IS NOT NULL") == t ]] || dataset_load world
      t0=$(now_ms)
      sql -f "$BENCH_DIR/sql/worldcat.sql" >/dev/null ;;
    cities)
      [[ -r $CITIES_CSV ]] || die "cities: cannot read $CITIES_CSV (data/ of this repository)"
      sql -f "$BENCH_DIR/sql/cities.sql" <"$CITIES_CSV" >/dev/null ;;
    zones)
      # both files on stdin, each line tagged with its file (see zones.sql)
      [[ -r $ZONES_NTAS && -r $ZONES_FEED ]] ||
        die "zones: cannot read $ZONES_NTAS or $ZONES_FEED (data/ of this repository)"
      { sed 's/^/ntas\x1f/' "$ZONES_NTAS" && sed 's/^/feed\x1f/' "$ZONES_FEED"; } |
        sql -v zones="$ZONES" -f "$BENCH_DIR/sql/zones.sql" >/dev/null ;;
    bigzones)
      [[ -r $BIGZONES_BOROS && -r $ZONES_FEED ]] ||
        die "bigzones: cannot read $BIGZONES_BOROS or $ZONES_FEED (data/ of this repository)"
      { sed 's/^/boros\x1f/' "$BIGZONES_BOROS" && sed 's/^/feed\x1f/' "$ZONES_FEED"; } |
        sql -f "$BENCH_DIR/sql/bigzones.sql" >/dev/null ;;
    zonepts)
      # derived from zone_probes (G4): zones first, if this run has not loaded it
      [[ $(sql -c "SELECT to_regclass('zone_probes') IS NOT NULL") == t ]] || dataset_load zones
      t0=$(now_ms)
      sql -f "$BENCH_DIR/sql/zonepts.sql" >/dev/null ;;
    *) die "unknown data set '$ds' (seed1, seed2, world, worldcat, cities, zones, zonepts, bigzones)" ;;
  esac
  [[ $ds == worldcat ]] || sql -c "VACUUM ANALYZE $ds" >/dev/null # worldcat is a view
  [[ $ds == cities ]] && sql -c "VACUUM ANALYZE viewports" >/dev/null
  if [[ $ds == zones || $ds == bigzones ]]; then
    local probes=zone_probes
    [[ $ds == bigzones ]] && probes=bigzone_probes
    sql -c "VACUUM ANALYZE $probes" >/dev/null
    step "data: $ds loaded: $(sql -c "SELECT count(*) FROM $ds") zones ($(sql -c "SELECT pg_size_pretty(pg_total_relation_size('$ds'))")), $(sql -c "SELECT count(*) FROM $probes") probes in $(($(now_ms) - t0)) ms"
    return
  fi
  step "data: $ds loaded: $(sql -c "SELECT count(*) FROM $ds") points in $(($(now_ms) - t0)) ms"
}

# await_relation NAME FLAG: wait until relation NAME exists (made by the
# other loader), for up to 30 minutes; give up early if FLAG (a file) exists.
await_relation() {
  local i
  for ((i = 0; i < 1800; i++)); do
    [[ $(sql -c "SELECT to_regclass('$1') IS NOT NULL") == t ]] && return 0
    [[ -e $2 ]] && return 1
    sleep 1
  done
  return 1
}

# The index each variant is about. On worldcat (KF) every index also covers
# the category: multicolumn, (category, position) for GiST (btree_gist; the
# equality column first is ~8x faster for KF than (position, category)), and
# (pos, category) for geoidx (position first, as geoidx requires). On zones
# (G1-G3) and bigzones (G5) the column is the polygon, shape; the index keeps the kit's name
# <table>_pos (the index-use check and builds.csv look for that name).
# zonepts (G4) is a point data set like the others: the index is on pos.
variant_index_ddl() {
  local table=$1 variant=$2 ds=${3:-}
  if [[ $ds == zones || $ds == bigzones ]]; then
    case $variant in
      gist_geog) echo "CREATE INDEX ${table}_pos ON $table USING gist ((shape::geography))" ;;
      gist_geom) echo "CREATE INDEX ${table}_pos ON $table USING gist (shape)" ;;
      geoidx | geoidx_cl) echo "CREATE INDEX ${table}_pos ON $table USING geoidx (shape)" ;;
      *) die "no $variant variant for $ds" ;;
    esac
    return
  fi
  if [[ $ds == worldcat ]]; then
    case $variant in
      gist_geog) echo "CREATE INDEX ${table}_pos ON $table USING gist (category, (pos::geography))" ;;
      gist_geom) echo "CREATE INDEX ${table}_pos ON $table USING gist (category, pos)" ;;
      geoidx | geoidx_cl) echo "CREATE INDEX ${table}_pos ON $table USING geoidx (pos, category)" ;;
      *) die "no $variant variant for worldcat" ;;
    esac
    return
  fi
  case $variant in
    gist_geog) echo "CREATE INDEX ${table}_pos ON $table USING gist ((pos::geography))" ;;
    gist_geom) echo "CREATE INDEX ${table}_pos ON $table USING gist (pos)" ;;
    spgist) echo "CREATE INDEX ${table}_pos ON $table USING spgist (pos)" ;;
    geoidx | geoidx_cl) echo "CREATE INDEX ${table}_pos ON $table USING geoidx (pos)" ;;
    none) ;;
    *) die "unknown index variant '$variant'" ;;
  esac
}

record_build() { # dataset table variant step round ms
  local bytes
  bytes=$(sql -c "SELECT coalesce(pg_relation_size(to_regclass('${2}_pos')), 0), pg_relation_size('$2')" | tr '|' ',')
  printf '%s,%s,%s,%s,%s,%s,%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$bytes" >>"$BUILDS_CSV"
}

# variant_table DATASET VARIANT [TABLE]: copy the base table, build the
# variant's index (timed, sized), CLUSTER for *_cl, VACUUM ANALYZE so that
# index-only scans and the visibility map are in the same state everywhere.
variant_table() {
  local ds=$1 variant=$2 table=${3:-$1_$2} ddl ms msg
  if [[ $(sql -c "SELECT to_regclass('$table') IS NOT NULL") == t ]]; then return; fi
  if [[ $variant =~ ^geoidx_p([0-9]+)$ ]]; then
    partitioned_table "$ds" "${BASH_REMATCH[1]}" "$table"
    return
  fi
  sql -c "CREATE TABLE $table AS SELECT * FROM $ds ORDER BY id" \
    -c "ALTER TABLE $table ADD PRIMARY KEY (id)" >/dev/null
  ddl=$(variant_index_ddl "$table" "$variant" "$ds")
  msg="data: $table"
  [[ -z $ddl ]] && msg+=" (no spatial index)"
  if [[ -n $ddl ]]; then
    if ! ms=$(sql_timed_try "$ddl"); then
      # A geoidx feature this build does not have yet (KF's multicolumn
      # index): skip that variant, loudly, rather than the whole run.
      [[ $variant == geoidx* ]] || die "failed: $ddl"
      loud "data: [$ddl] failed: the $variant variant on $ds is SKIPPED"
      sql -c "DROP TABLE $table" >/dev/null
      return 0
    fi
    record_build "$ds" "$table" "$variant" create 1 "$ms"
    msg+=" ${variant} index built in ${ms%.*} ms ($(sql -c "SELECT pg_size_pretty(pg_relation_size('${table}_pos'))"))"
  fi
  if [[ $variant == *_cl ]]; then
    ms=$(sql_timed "CLUSTER $table USING ${table}_pos")
    record_build "$ds" "$table" "$variant" cluster 1 "$ms"
    msg+=", CLUSTERed in ${ms%.*} ms"
  fi
  sql -c "VACUUM ANALYZE $table" >/dev/null
  step "$msg"
}

# settle_visibility: once both loaders are done, VACUUM every table whose
# pages are not all visible, and check that it took. A table vacuumed while
# the other loader's transaction was open keeps its pages not all visible
# (its rows are newer than that transaction's snapshot), and an index-only
# count on it then fetches every row from the heap: 5-15x slower, on
# whichever table the timing hit in that run (seed1_geoidx's R1 count at 232
# tps against 1,036 after a VACUUM). Nothing else is open now, so one VACUUM
# settles it; a --dsn database with other sessions open may not.
not_all_visible() {
  sql -c "SELECT string_agg(format('%I', c.relname), ', ' ORDER BY c.relname)
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE c.relkind IN ('r', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
             AND n.nspname NOT LIKE 'pg_toast%' AND c.relpages > 0 AND c.relallvisible < c.relpages"
}
# An autovacuum of a freshly loaded table can still be at work: a page it
# pins is skipped by our VACUUM, and its ANALYZE may write the count of
# all-visible pages it read before ours (seen once: world left at 0). So a
# few rounds, a few seconds apart.
settle_visibility() {
  local tables round
  tables=$(not_all_visible)
  [[ -z $tables ]] && return 0
  for round in 1 2 3 4; do
    sql -c "VACUUM (ANALYZE) $tables" >/dev/null
    tables=$(not_all_visible)
    [[ -z $tables ]] && break
    sleep 3
  done
  [[ -z $tables ]] ||
    die "tables still not all visible after 4 VACUUMs (an open transaction elsewhere holds back the horizon; index-only scans would fetch every row): $tables"
  step "data: vacuumed what the parallel loaders left not all visible ($round round(s))"
}

# partitioned_table DATASET N TABLE (P): the data set range-partitioned on
# geoidx_cell(pos, 8), the index's own curve at ~40 km cells, into N
# partitions of equal rows (bounds at the cells' quantiles), with a geoidx
# index on the parent (one per partition). The index build is timed.
partitioned_table() {
  local ds=$1 n=$2 table=$3 ms bounds
  bounds=$(sql -c "SELECT string_agg(b::text, ' ' ORDER BY b) FROM (SELECT DISTINCT b FROM unnest((
                     SELECT percentile_disc(ARRAY(SELECT k::float8 / $n FROM generate_series(1, $n - 1) k))
                            WITHIN GROUP (ORDER BY geoidx_cell(pos, 8)) FROM $ds)) b) s")
  sql -c "CREATE TABLE $table (LIKE $ds) PARTITION BY RANGE (geoidx_cell(pos, 8))" >/dev/null
  local lo=MINVALUE hi i=0
  for hi in $bounds MAXVALUE; do
    sql -c "CREATE TABLE ${table}_$i PARTITION OF $table FOR VALUES FROM ($lo) TO ($hi)" >/dev/null
    lo=$hi i=$((i + 1))
  done
  sql -c "INSERT INTO $table SELECT * FROM $ds ORDER BY id" >/dev/null
  ms=$(sql_timed "CREATE INDEX ${table}_pos ON $table USING geoidx (pos)")
  record_build "$ds" "$table" "geoidx_p$n" create 1 "$ms"
  sql -c "VACUUM ANALYZE $table" >/dev/null
  step "data: $table: $i partitions on geoidx_cell(pos, 8), geoidx index built in ${ms%.*} ms"
}

# r1_centres: 32 random R1 centres (same box as the R1 scripts) with their
# answer ids, computed with the geography predicate (the reference answer),
# and the heap TIDs of those rows in seed1_geoidx. Used by the limit workload
# (a TID scan of exactly those rows), by geoidx on the same centres, and by
# the correctness guard.
r1_centres_load() {
  [[ $(sql -c "SELECT to_regclass('r1_centres') IS NOT NULL") == t ]] && return
  local src=seed1
  [[ $(sql -c "SELECT to_regclass('seed1_gist_geog') IS NOT NULL") == t ]] && src=seed1_gist_geog
  sql >/dev/null <<SQL
SELECT setseed(0.4242);
CREATE TABLE r1_centres (c int PRIMARY KEY, pos geometry(Point, 4326) NOT NULL, ids int[], tids tid[]);
INSERT INTO r1_centres (c, pos)
SELECT g, ST_Point(106 + 8 * random(), -8 + 2 * random(), 4326) FROM generate_series(1, 32) g;
-- the article's centre as number 1
UPDATE r1_centres SET pos = ST_Point(112, -7, 4326) WHERE c = 1;
-- the arrays are read whole on every call: store them uncompressed
ALTER TABLE r1_centres ALTER ids SET STORAGE EXTERNAL;
ALTER TABLE r1_centres ALTER tids SET STORAGE EXTERNAL;
UPDATE r1_centres r SET ids = (SELECT array_agg(id ORDER BY id) FROM $src s
                              WHERE ST_DWithin(s.pos::geography, r.pos::geography, 200000));
SQL
  if [[ $(sql -c "SELECT to_regclass('seed1_geoidx') IS NOT NULL") == t ]]; then
    sql -c "UPDATE r1_centres r SET tids = (SELECT array_agg(s.ctid) FROM seed1_geoidx s
                                            WHERE s.id = ANY (r.ids))" >/dev/null
  fi
  sql -c "VACUUM FULL ANALYZE r1_centres" >/dev/null
  step "data: r1_centres: 32 centres, $(sql -c "SELECT round(avg(cardinality(ids))) FROM r1_centres") ids on average"
}

# limit_centres_load NAME GEOIDX_TABLE CENTRE_SQL ANSWER_SQL: 32 centres (c,
# pos) from CENTRE_SQL, the same distribution as the workload's random
# centres, and the heap TIDs of the answer at each (ANSWER_SQL, with r.pos the
# centre, over GEOIDX_TABLE s) for the limit workloads. The answers are
# geoidx's, which the correctness guard holds equal to PostGIS's; without the
# geoidx table there is nothing to measure.
limit_centres_load() {
  local name=$1 table=$2 centres=$3 answer=$4
  [[ $(sql -c "SELECT to_regclass('$name') IS NOT NULL") == t ]] && return
  [[ $(sql -c "SELECT to_regclass('$table') IS NOT NULL") == t ]] || return 0
  sql >/dev/null <<SQL
SELECT setseed(0.2424);
CREATE TABLE $name (c int PRIMARY KEY, pos geometry(Point, 4326) NOT NULL, tids tid[]);
INSERT INTO $name (c, pos) $centres;
ALTER TABLE $name ALTER tids SET STORAGE EXTERNAL;
UPDATE $name r SET tids = (SELECT array_agg(ctid) FROM ($answer) a);
VACUUM FULL ANALYZE $name;
SQL
  step "data: $name: 32 centres, $(sql -c "SELECT round(avg(cardinality(tids))) FROM $name") rows on average"
}
r2_centres_load() {
  limit_centres_load r2_centres seed2_geoidx \
    "SELECT g, ST_Point(120.5 + 9 * random(), 70.5 + 9 * random(), 4326) FROM generate_series(1, 32) g" \
    "SELECT s.ctid FROM seed2_geoidx s WHERE geoidx_dwithin(s.pos, r.pos, 5000) ORDER BY s.pos <~> r.pos LIMIT 100"
}
kf_centres_load() {
  limit_centres_load kf_centres worldcat_geoidx \
    "SELECT g, ST_Point(-180 + 360 * random(), degrees(asin(2 * random() - 1)), 4326) FROM generate_series(1, 32) g" \
    "SELECT s.ctid FROM worldcat_geoidx s WHERE s.category = r.c ORDER BY s.pos <~> r.pos LIMIT 10"
}
k1_centres_load() {
  limit_centres_load k1_centres world_geoidx \
    "SELECT g, ST_Point(-180 + 360 * random(), degrees(asin(2 * random() - 1)), 4326) FROM generate_series(1, 32) g" \
    "SELECT s.ctid FROM world_geoidx s ORDER BY s.pos <~> r.pos LIMIT 10"
}

# pg_centres: centres for PG (keyset paging), with the bound that asks for
# page 100 (rows 991..1000, 10 rows a page): the distance of the 990th
# nearest world point, once with geoidx's metric (WGS84 spheroid, =
# ST_Distance(geography)) and once with geography <-> (sphere) for the GiST
# comparators. A pgbench script picks a random centre and reads it with its
# bound by primary key (\gset), the same extra cost for every variant.
# Computed with the geography GiST index (world_gist_geog): the 1100 nearest
# by sphere distance, then the spheroid distances of those. That holds the
# 990th nearest on the spheroid as long as its spheroid distance is below
# 0.994 x the sphere distance of the 1100th candidate (spheroid >= 0.99441 x
# sphere, see README "Design"); checked for every centre (~3.8 % margin on
# uniform data). 200 centres: 15 ms each (the GiST k-NN of 1100 points).
# Centre 1 is next to the antimeridian, centre 2 next to the pole (the guard
# checks those two against a sequential scan).
pg_centres_load() {
  [[ $(sql -c "SELECT to_regclass('pg_centres') IS NOT NULL") == t ]] && return
  local t0 bad
  t0=$(now_ms)
  variant_table world gist_geog
  sql >/dev/null <<'SQL'
SELECT setseed(0.5150);
CREATE TABLE pg_centres (c int PRIMARY KEY, lon float8 NOT NULL, lat float8 NOT NULL,
                         pos geometry(Point, 4326), bound_geoidx float8, bound_geog float8,
                         reach_geog float8);
INSERT INTO pg_centres (c, lon, lat)
SELECT g, -180 + 360 * random(), degrees(asin(2 * random() - 1)) FROM generate_series(1, 200) g;
UPDATE pg_centres SET lon = 179.9, lat = 0.5 WHERE c = 1;
UPDATE pg_centres SET lon = -45, lat = 89.9 WHERE c = 2;
UPDATE pg_centres SET pos = ST_SetSRID(ST_MakePoint(lon, lat), 4326);
UPDATE pg_centres p SET (bound_geog, bound_geoidx, reach_geog) = (
  SELECT (array_agg(ds ORDER BY ds))[990], (array_agg(d ORDER BY d))[990], max(ds)
  FROM (SELECT s.pos::geography <-> p.pos::geography AS ds,
               ST_Distance(s.pos::geography, p.pos::geography) AS d
        FROM world_gist_geog s ORDER BY s.pos::geography <-> p.pos::geography LIMIT 1100) q);
VACUUM ANALYZE pg_centres;
SQL
  bad=$(sql -c "SELECT count(*) FROM pg_centres
                WHERE bound_geoidx IS NULL OR bound_geog IS NULL OR bound_geoidx >= 0.994 * reach_geog")
  ((bad == 0)) || die "pg_centres: $bad centres whose 990th neighbour is not provably among the 1100 candidates"
  step "data: pg_centres: 200 centres with their page-100 bounds ($(sql -c "SELECT round(avg(bound_geoidx) / 1000) FROM pg_centres") km on average) in $(($(now_ms) - t0)) ms"
}

# measure_builds DATASET VARIANT...: rebuild the indexes of DATASET's
# variant tables (seed-2 for BUILD, zones for G) in alternation (A B A B),
# one at a time, so that the build ratio comes from the same run, from quiet
# builds (the first CREATE INDEX ran beside the other loader), and not from
# build order.
measure_builds() {
  local ds=$1 round v ms
  shift
  local variants=("$@")
  for ((round = 1; round <= ROUNDS; round++)); do
    for v in "${variants[@]}"; do
      [[ $(sql -c "SELECT to_regclass('${ds}_${v}_pos') IS NOT NULL") == t ]] || continue
      ms=$(sql_timed "REINDEX INDEX ${ds}_${v}_pos")
      record_build "$ds" "${ds}_$v" "$v" reindex "$round" "$ms"
      step "build: ${ds}_$v round $round: ${ms%.*} ms"
      # geoidx builds in parallel (the cluster allows one worker, 2 cores;
      # GiST cannot): the serial build too, for the record
      if [[ $v == geoidx ]]; then
        ms=$(sql_timed "SET max_parallel_maintenance_workers = 0; REINDEX INDEX ${ds}_${v}_pos")
        record_build "$ds" "${ds}_$v" "$v" reindex_serial "$round" "$ms"
        step "build: ${ds}_$v serial round $round: ${ms%.*} ms"
      fi
    done
  done
}
