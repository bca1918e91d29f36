# shellcheck shell=bash
# shellcheck disable=SC2153 # CLIENTS, TRANSPORTS, ... are set by bench/run
# The read workloads: what each measures, on which data, against which
# variants; and the loop that runs them with variants alternated.

# workload -> data set, title, variants (full run), variants (default run).
# A variant is a script workloads/<workload>/<variant>.sql, or "redis"
# (tools/redis_geo_bench.c). The table shows geoidx/variant for every
# variant; lib/report.sh picks the ones each target is about.
declare -A WL_DATASET=(
  [t]=none [r1_ids]=seed1 [r1_count]=seed1 [r1_limit]=seed1 [r2_limit]=seed2 [k1_limit]=world [kf_limit]=worldcat [r2]=seed2
  [k1_world_10]=world [k1_world_100]=world [k1_cities_10]=cities [k1_cities_100]=cities
  [kf]=worldcat [pg]=world
  [g1_covers]=zones [g2_dwithin]=zones [g3_knn]=zones [g4_coveredby]=zonepts [g5_large]=bigzones
  [p_knn]=world [p_radius]=world
  [v_z6]=cities [v_z10]=cities [v_z14]=cities
)
declare -A WL_TITLE=(
  [t]="T SELECT 1" [r1_ids]="R1 200 km ids" [r1_count]="R1 200 km count(*)"
  [r1_limit]="limit R1 ids (32 centres)" [r2_limit]="limit R2 (32 centres)"
  [k1_limit]="limit K1 world k=10 (32 centres)" [kf_limit]="limit KF 1% k=10 (32 centres)"
  [r2]="R2 5 km nearest 100"
  [k1_world_10]="K1 world k=10" [k1_world_100]="K1 world k=100"
  [k1_cities_10]="K1 cities k=10" [k1_cities_100]="K1 cities k=100"
  [kf]="KF 1% category k=10" [pg]="PG page 100 of 10 rows"
  [g1_covers]="G1 zone covering a point" [g2_dwithin]="G2 zones within 500 m"
  [g3_knn]="G3 3 nearest zones" [g4_coveredby]="G4 points covered by a zone"
  [g5_large]="G5 large zone covering a point"
  [p_knn]="P k=10, partitioned" [p_radius]="P 200 km count, partitioned"
  [v_z6]="V viewport zoom 6" [v_z10]="V viewport zoom 10" [v_z14]="V viewport zoom 14"
)
declare -A WL_FULL=(
  [t]="select1"
  [r1_ids]="noindex gist_geog gist_geom spgist geoidx geoidx_pg geoidx_cl redis"
  [r1_count]="noindex gist_geog gist_geom spgist geoidx geoidx_cl"
  [r1_limit]="tid pk gist_geog geoidx"
  [r2_limit]="tid geoidx gist_geog"
  [k1_limit]="tid geoidx"
  [kf_limit]="tid geoidx gist_geog"
  [r2]="gist_geog gist_geom spgist geoidx geoidx_pg geoidx_cl"
  [k1_world_10]="gist_geog gist_geom geoidx geoidx_pg geoidx_sph redis"
  [k1_world_100]="gist_geog gist_geom geoidx redis"
  [k1_cities_10]="gist_geog gist_geom geoidx geoidx_pg geoidx_sph"
  [k1_cities_100]="gist_geog gist_geom geoidx"
  [kf]="gist_geog gist_geom geoidx"
  [pg]="gist_geog gist_offset gist_p1 geoidx geoidx_p1"
  [g1_covers]="gist_geog gist_geom geoidx geoidx_pg geoidx_planar"
  [g2_dwithin]="gist_geog gist_geom geoidx geoidx_pg"
  [g3_knn]="gist_geog gist_geom geoidx geoidx_pg geoidx_sph"
  [g4_coveredby]="gist_geog gist_geom geoidx"
  [g5_large]="gist_geog gist_geom geoidx"
  [p_knn]="geoidx geoidx_p16 geoidx_p64 geoidx_p64_cells"
  [p_radius]="geoidx geoidx_p16 geoidx_p64"
  [v_z6]="gist_geom spgist geoidx" [v_z10]="gist_geom spgist geoidx" [v_z14]="gist_geom spgist geoidx"
)
# The default (<= 5 minutes) run: the variants the targets are about.
declare -A WL_SHORT=(
  [t]="select1"
  [r1_ids]="gist_geog gist_geom geoidx geoidx_pg geoidx_cl redis"
  [r1_count]="gist_geog geoidx"
  [r1_limit]="tid geoidx"
  [r2_limit]="tid geoidx gist_geog"
  [k1_limit]="tid geoidx"
  [kf_limit]="tid geoidx gist_geog"
  [r2]="gist_geog gist_geom geoidx geoidx_pg geoidx_cl"
  [k1_world_10]="gist_geog gist_geom geoidx geoidx_pg geoidx_sph redis"
  [k1_cities_10]="gist_geog geoidx geoidx_pg geoidx_sph"
  [kf]="gist_geog geoidx"
  [pg]="gist_offset geoidx geoidx_p1"
  [g1_covers]="gist_geog gist_geom geoidx geoidx_pg geoidx_planar"
  [g2_dwithin]="gist_geog geoidx geoidx_pg"
  [g3_knn]="gist_geog geoidx geoidx_pg geoidx_sph"
  [g4_coveredby]="gist_geog gist_geom geoidx"
  [g5_large]="gist_geog gist_geom geoidx"
  [p_knn]="geoidx geoidx_p16 geoidx_p64 geoidx_p64_cells"
  [p_radius]="geoidx geoidx_p16 geoidx_p64"
  [v_z6]="gist_geom geoidx" [v_z10]="gist_geom geoidx" [v_z14]="gist_geom geoidx"
)
WL_ORDER=(t r1_ids r1_count r1_limit r2_limit k1_limit kf_limit r2 k1_world_10 k1_cities_10 k1_world_100 k1_cities_100 kf pg
  g1_covers g2_dwithin g3_knn g4_coveredby g5_large p_knn p_radius v_z6 v_z10 v_z14)
# Client counts a workload is measured with besides --clients: the issue
# asks limit R1 (geoidx against the TID scan of its answer) with 1 and 2.
declare -A WL_CLIENTS=([r1_limit]="1,2")

# The client counts of workload $1: --clients and its own, each once, ascending.
wl_clients() {
  echo "${CLIENTS},${WL_CLIENTS[$1]-}" | tr ',' '\n' | grep -v '^$' | sort -nu | tr '\n' ' '
}

# Workloads whose per-transaction latencies are logged (pgbench -l) and
# reported as p50/p95/p99 (latency.csv): G1, as the geofencing issue asks.
declare -A WL_LATENCY=([g1_covers]=1)

# Extra pgbench arguments of a workload: the zones workloads draw a random
# probe id in 1..nprobes (the size of zone_probes, which --zones sets); G4
# (zonepts) a random zone id in 1..nzones (the size of zones).
wl_pgbench_vars() {
  case ${WL_DATASET[$1]} in
    zones) echo "-D nprobes=$ZONE_PROBES" ;;
    zonepts) echo "-D nzones=$ZONE_COUNT" ;;
    bigzones) echo "-D nprobes=$BIGZONE_PROBES" ;;
  esac
}

# Script variants that are another formulation on the same table and index
# (PG: page 1, and GiST's OFFSET form) -> the variant whose table they read.
index_variant() {
  case $1 in
    geoidx_p1 | geoidx_planar | geoidx_pg | geoidx_sph | tid) echo geoidx ;;
    geoidx_p64_cells) echo geoidx_p64 ;;
    gist_offset | gist_p1) echo gist_geog ;;
    *) echo "$1" ;;
  esac
}

# Settings a variant's sessions run with (PGOPTIONS): geoidx_planar, geoidx_pg
# and geoidx_sph are PostGIS's SQL as the app sends it (planar, geography, the
# sphere's <->), served
# through geoidx's rewrite, which the cluster has off for every other variant
# (cluster.sh).
variant_pgoptions() {
  case $1 in
    geoidx_planar | geoidx_pg | geoidx_sph) echo "-c geoidx.rewrite_postgis=on" ;;
  esac
}

# Is data set $1 selected by --dataset?  worldcat (KF) is derived from world
# and comes with it; zonepts (G4) is derived from zones and comes with it,
# as bigzones (G5) does.
ds_selected() {
  in_list "$1" "$DATASETS" || { [[ $1 == worldcat ]] && in_list world "$DATASETS"; } ||
    { [[ $1 == zonepts || $1 == bigzones ]] && in_list zones "$DATASETS"; }
}

# --workloads names (the issue's) -> workload ids.
workload_group_members() {
  case ${1,,} in
    t) echo "t r1_limit r2_limit k1_limit kf_limit" ;;
    r1) echo "r1_ids r1_count" ;;
    r2) echo "r2" ;;
    k1) echo "k1_world_10 k1_cities_10 k1_world_100 k1_cities_100" ;;
    kf) echo "kf" ;;
    pg) echo "pg" ;;
    g) echo "g1_covers g2_dwithin g3_knn g4_coveredby g5_large" ;;
    g1) echo "g1_covers" ;;
    g2) echo "g2_dwithin" ;;
    g3) echo "g3_knn" ;;
    g4) echo "g4_coveredby" ;;
    g5) echo "g5_large" ;;
    p) echo "p_knn p_radius" ;;
    v) echo "v_z6 v_z10 v_z14" ;;
    w1 | m1 | build) ;;
    *) die "unknown workload '$1' (T, R1, R2, K1, KF, PG, G (or G1, G2, G3, G4, G5), P, V, W1, M1, BUILD)" ;;
  esac
}

# Variants of workload $1 that this run measures (mode: full or short,
# geoidx installed or not, and whether it has what KF, PG and G are about: a
# multicolumn geoidx index, "<~> > bound" as an index condition, an index
# on polygons with geoidx_covers, and, for G4, geoidx_coveredby).
wl_variants() {
  local w=$1 v out=()
  local list=${WL_SHORT[$w]-}
  ((FULL)) && list=${WL_FULL[$w]}
  for v in $list; do
    [[ $v == geoidx* ]] && ((GEOIDX == 0)) && continue
    [[ $w == kf && $v == geoidx* ]] && ((GEOIDX_MULTICOL == 0)) && continue
    [[ $w == pg && $v == geoidx ]] && ((GEOIDX_BEYOND == 0)) && continue
    [[ ${WL_DATASET[$w]} == zones || ${WL_DATASET[$w]} == bigzones ]] && [[ $v == geoidx* ]] &&
      ((GEOIDX_SHAPES == 0)) && continue
    [[ ${WL_DATASET[$w]} == zonepts && $v == geoidx* ]] && ((GEOIDX_COVEREDBY == 0)) && continue
    [[ $v == redis ]] && ! in_list redis "$COMPARATORS" && continue
    out+=("$v")
  done
  echo "${out[*]}"
}

# The read workloads selected by --workloads/--dataset, in run order.
selected_read_workloads() {
  local w g members=" "
  for g in ${WORKLOADS//,/ }; do members+="$(workload_group_members "$g") "; done
  for w in "${WL_ORDER[@]}"; do
    [[ $members == *" $w "* ]] || continue
    ((FULL)) || [[ -n ${WL_SHORT[$w]-} ]] || continue
    [[ ${WL_DATASET[$w]} == none ]] || ds_selected "${WL_DATASET[$w]}" || continue
    echo "$w"
  done
}

# The table a variant's script reads (for the index-use check).
variant_table_name() {
  local w=$1 v=$2
  case $v in
    select1 | redis | noindex | pk | tid) echo "" ;;
    *) echo "${WL_DATASET[$w]}_$(index_variant "$v")" ;;
  esac
}

# One measurement, appended to runs.csv.
measure_one() {
  local w=$1 v=$2 transport=$3 mode=$4 clients=$5 round=$6
  local table before after used=- res tps lat failed=0 extra=() ldir
  local log="$RESULTS_DIR/logs/${w}_${v}_${transport}_${mode}_c${clients}_r${round}.log"
  read -r -a extra <<<"$(wl_pgbench_vars "$w")"
  if [[ -n ${WL_LATENCY[$w]-} ]]; then
    # per-transaction log (one file per pgbench thread), for latency.csv
    ldir="$RESULTS_DIR/latency-logs/$w/${v}_${transport}_${mode}_c${clients}"
    mkdir -p "$ldir"
    extra+=(-l "--log-prefix=$ldir/r$round")
  fi
  table=$(variant_table_name "$w" "$v")
  [[ -n $table ]] && before=$(idx_scans "$table")
  if [[ $v == redis ]]; then
    res=$(redis_run "$w" "$transport" "$clients" "$DURATION" 2>"$log") || {
      warn "$w redis failed (see $log)"
      return
    }
    read -r tps lat <<<"$res"
  else
    res=$(PGOPTIONS="$(variant_pgoptions "$v")" pgb_run "$log" "$transport" "$mode" "$clients" "$DURATION" \
      "${extra[@]}" -f "$BENCH_DIR/workloads/$w/$v.sql") || {
      warn "$w $v failed (see $log)"
      return
    }
    read -r tps lat failed <<<"$res"
  fi
  if [[ -n $table ]]; then
    after=$(idx_scans "$table")
    if [[ ${after:-0} == "${before:-0}" ]]; then
      sleep 0.3 # the backends' statistics are flushed when they exit
      after=$(idx_scans "$table")
    fi
    if [[ ${after:-0} == "${before:-0}" ]]; then
      used=no
      loud "$w/$v: index ${table}_pos was NOT used: this row measures something else"
    else
      used=yes
    fi
  fi
  printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$w" "$v" "$transport" "$mode" "$clients" \
    "$round" "$DURATION" "$tps" "$lat" "$failed" "$used" >>"$RUNS_CSV"
  step "$(printf '%-22s %-10s %-4s %-8s c=%s round %s/%s: %10.1f tps' \
    "${WL_TITLE[$w]}" "$v" "$transport" "$mode" "$clients" "$round" "$ROUNDS" "$tps")"
}

# warm_up W VARIANTS...: each variant for a second, not measured. A first
# round on tables the run had not read since loading them paid for reading
# them in: a full run of 2026-12-06 measured P k=10 over 64 partitions at
# 51 tps (39 ms a query) in its first round and 15,939 in its second.
warm_up() {
  local w=$1 v extra=()
  shift
  read -r -a extra <<<"$(wl_pgbench_vars "$w")"
  for v in "$@"; do
    [[ $v == redis ]] && continue
    PGOPTIONS="$(variant_pgoptions "$v")" pgb_run "$RESULTS_DIR/logs/${w}_${v}_warmup.log" unix \
      "${MODES%%,*}" 2 1 "${extra[@]}" -f "$BENCH_DIR/workloads/$w/$v.sql" >/dev/null ||
      warn "$w $v warm-up failed (see $RESULTS_DIR/logs/${w}_${v}_warmup.log)"
  done
  sleep 0.5 # the warm-up backends' statistics are flushed as they exit: not the first round's
}

# Every read workload: variants alternated inside each round (A B C A B C),
# and both transports inside each round, so that drift (CPU frequency,
# cache warm-up, other load) hits every variant alike; before the rounds,
# one unmeasured second of each (warm_up).
run_read_workloads() {
  local w v mode clients round transport variants
  for w in "$@"; do
    read -r -a variants <<<"$(wl_variants "$w")"
    ((${#variants[@]})) || continue
    warm_up "$w" "${variants[@]}"
    for mode in ${MODES//,/ }; do
      for clients in $(wl_clients "$w"); do
        for ((round = 1; round <= ROUNDS; round++)); do
          for transport in ${TRANSPORTS//,/ }; do
            for v in "${variants[@]}"; do
              measure_one "$w" "$v" "$transport" "$mode" "$clients" "$round"
            done
          done
        done
      done
    done
  done
  latency_percentiles "$@"
}

# latency.csv ($LATENCY_CSV, named by bench/run): p50/p95/p99 per workload
# of WL_LATENCY, variant, transport, mode and clients, from pgbench's
# per-transaction logs, all rounds pooled (more samples for p99).
latency_percentiles() {
  local w v mode clients transport dir n p50 p95 p99
  echo "workload,variant,transport,mode,clients,transactions,p50_ms,p95_ms,p99_ms" >"$LATENCY_CSV"
  for w in "$@"; do
    [[ -n ${WL_LATENCY[$w]-} ]] || continue
    for v in $(wl_variants "$w"); do
      for mode in ${MODES//,/ }; do
        for clients in $(wl_clients "$w"); do
          for transport in ${TRANSPORTS//,/ }; do
            dir="$RESULTS_DIR/latency-logs/$w/${v}_${transport}_${mode}_c${clients}"
            compgen -G "$dir/r*" >/dev/null || continue
            read -r n p50 p95 p99 <<<"$(pgb_log_quantiles "$dir"/r*)"
            [[ -n ${n:-} ]] || continue
            printf '%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$w" "$v" "$transport" "$mode" "$clients" \
              "$n" "$p50" "$p95" "$p99" >>"$LATENCY_CSV"
          done
        done
      done
    done
  done
}
