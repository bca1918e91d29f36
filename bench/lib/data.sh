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
    world) sql -v points="$WORLD_POINTS" -f "$BENCH_DIR/sql/world.sql" >/dev/null ;;
    cities)
      [[ -r $CITIES_CSV ]] || die "cities: cannot read $CITIES_CSV (the shared data dir must be beside the repo)"
      sql -f "$BENCH_DIR/sql/cities.sql" <"$CITIES_CSV" >/dev/null ;;
    *) die "unknown data set '$ds' (seed1, seed2, world, cities)" ;;
  esac
  sql -c "VACUUM ANALYZE $ds" >/dev/null
  step "data: $ds loaded: $(sql -c "SELECT count(*) FROM $ds") points in $(($(now_ms) - t0)) ms"
}

# The index each variant is about.
variant_index_ddl() {
  local table=$1 variant=$2
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
  sql -c "CREATE TABLE $table AS SELECT * FROM $ds ORDER BY id" \
    -c "ALTER TABLE $table ADD PRIMARY KEY (id)" >/dev/null
  ddl=$(variant_index_ddl "$table" "$variant")
  msg="data: $table"
  [[ -z $ddl ]] && msg+=" (no spatial index)"
  if [[ -n $ddl ]]; then
    ms=$(sql_timed "$ddl")
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

# r1_centres: 32 random R1 centres (same box as the R1 scripts) with their
# answer ids, computed with the geography predicate (the reference answer).
# Used by the T-limit workload (fetch those ids by primary key) and by the
# correctness guard.
r1_centres_load() {
  [[ $(sql -c "SELECT to_regclass('r1_centres') IS NOT NULL") == t ]] && return
  local src=seed1
  [[ $(sql -c "SELECT to_regclass('seed1_gist_geog') IS NOT NULL") == t ]] && src=seed1_gist_geog
  sql >/dev/null <<SQL
SELECT setseed(0.4242);
CREATE TABLE r1_centres (c int PRIMARY KEY, pos geometry(Point, 4326) NOT NULL, ids int[]);
INSERT INTO r1_centres (c, pos)
SELECT g, ST_Point(106 + 8 * random(), -8 + 2 * random(), 4326) FROM generate_series(1, 32) g;
-- the article's centre as number 1
UPDATE r1_centres SET pos = ST_Point(112, -7, 4326) WHERE c = 1;
-- the arrays are read whole on every call: store them uncompressed
ALTER TABLE r1_centres ALTER ids SET STORAGE EXTERNAL;
UPDATE r1_centres r SET ids = (SELECT array_agg(id ORDER BY id) FROM $src s
                              WHERE ST_DWithin(s.pos::geography, r.pos::geography, 200000));
VACUUM FULL ANALYZE r1_centres;
SQL
  step "data: r1_centres: 32 centres, $(sql -c "SELECT round(avg(cardinality(ids))) FROM r1_centres") ids on average"
}

# Rebuild the seed-2 indexes in alternation (A B A B), one at a time, so
# that the build ratio comes from the same run, from quiet builds (the first
# CREATE INDEX ran beside the other loader), and not from build order.
measure_builds() {
  local round v ms variants=("$@")
  for ((round = 1; round <= ROUNDS; round++)); do
    for v in "${variants[@]}"; do
      [[ $(sql -c "SELECT to_regclass('seed2_${v}_pos') IS NOT NULL") == t ]] || continue
      ms=$(sql_timed "REINDEX INDEX seed2_${v}_pos")
      record_build seed2 "seed2_$v" "$v" reindex "$round" "$ms"
      step "build: seed2_$v round $round: ${ms%.*} ms"
    done
  done
}
