# shellcheck shell=bash
# W1: moving-point upserts on copies of seed-2, 2 clients, one table per
# variant (no spatial index, GiST, geoidx), synchronous_commit on and off
# (per run, through PGOPTIONS), index and heap sizes before, after and after
# VACUUM. Unix socket, prepared: a write's cost is the index and the WAL,
# not the protocol.

w1_variants() {
  local v out=()
  for v in none gist_geom $( ((FULL)) && echo gist_geog) geoidx; do
    [[ $v == geoidx ]] && ((GEOIDX == 0)) && continue
    out+=("$v")
  done
  echo "${out[*]}"
}

w1_sizes() { # phase variants...
  local phase=$1 v
  shift
  for v in "$@"; do
    printf '%s,%s,%s\n' "$v" "$phase" "$(sql -c "SELECT pg_relation_size('w1_$v'),
      coalesce(pg_relation_size(to_regclass('w1_${v}_pos')), 0)" | tr '|' ',')" >>"$W1_SIZES_CSV"
  done
}

run_w1() {
  local variants v sync round res tps lat failed log clients=2
  read -r -a variants <<<"$(w1_variants)"
  for v in "${variants[@]}"; do variant_table seed2 "$v" "w1_$v"; done
  echo "variant,phase,heap_bytes,index_bytes" >"$W1_SIZES_CSV"
  w1_sizes before "${variants[@]}"
  for ((round = 1; round <= ROUNDS; round++)); do
    for sync in ${W1_SYNC//,/ }; do
      for v in "${variants[@]}"; do
        log="$RESULTS_DIR/logs/w1_${v}_sync${sync}_r${round}.log"
        res=$(PGOPTIONS="-c synchronous_commit=$sync" pgb_run "$log" unix prepared "$clients" \
          "$DURATION" -D npoints="$SEED2_POINTS" -f "$BENCH_DIR/workloads/w1/$v.sql") || {
          warn "W1 $v failed (see $log)"
          continue
        }
        read -r tps lat failed <<<"$res"
        printf 'w1_sync_%s,%s,unix,prepared,%s,%s,%s,%s,%s,%s,-\n' "$sync" "$v" "$clients" "$round" \
          "$DURATION" "$tps" "$lat" "$failed" >>"$RUNS_CSV"
        step "$(printf '%-22s %-10s unix prepared c=%s round %s/%s: %10.1f tps' \
          "W1 sync=$sync" "$v" "$clients" "$round" "$ROUNDS" "$tps")"
      done
    done
  done
  w1_sizes after "${variants[@]}"
  for v in "${variants[@]}"; do sql -c "VACUUM w1_$v" >/dev/null; done
  w1_sizes after_vacuum "${variants[@]}"
  step "W1: sizes before/after/after VACUUM in $(basename "$W1_SIZES_CSV")"
}
