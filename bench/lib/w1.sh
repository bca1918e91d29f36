# shellcheck shell=bash
# W1: moving-point upserts on copies of seed-2, 2 clients, one table per
# variant (no spatial index, GiST, geoidx), synchronous_commit on and off
# (per run, through PGOPTIONS), index and heap sizes before, after and after
# VACUUM. Unix socket, prepared: a write's cost is the index and the WAL,
# not the protocol.
#
# A W1 transaction is ~90 us of the machine, of which the spatial index is
# ~5-8 us; the rest is the round trip, the heap and the primary key, whose
# wake-ups swing one 2 s run by +-15 % on this VM (bench/PROFILES.md). So W1
# takes at least W1_MIN_ROUNDS rounds of at least W1_MIN_SECONDS, and each
# round starts the variants at the next one (none gist geoidx, gist geoidx
# none, ...), so that no variant always runs first after a checkpoint or
# after another's writes.
W1_MIN_ROUNDS=6 W1_MIN_SECONDS=3

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

# The W1 rounds and seconds: the run's, raised to W1's minimums.
# shellcheck disable=SC2153 # ROUNDS and DURATION are set by bench/run
w1_rounds() { echo $((ROUNDS > W1_MIN_ROUNDS ? ROUNDS : W1_MIN_ROUNDS)); }
w1_seconds() { echo $((DURATION > W1_MIN_SECONDS ? DURATION : W1_MIN_SECONDS)); }

run_w1() {
  local variants v sync round res tps lat failed log clients=2 i n rounds seconds
  read -r -a variants <<<"$(w1_variants)"
  n=${#variants[@]} rounds=$(w1_rounds) seconds=$(w1_seconds)
  for v in "${variants[@]}"; do variant_table seed2 "$v" "w1_$v"; done
  echo "variant,phase,heap_bytes,index_bytes" >"$W1_SIZES_CSV"
  w1_sizes before "${variants[@]}"
  for ((round = 1; round <= rounds; round++)); do
    for sync in ${W1_SYNC//,/ }; do
      for ((i = 0; i < n; i++)); do
        v=${variants[$(((round - 1 + i) % n))]}
        log="$RESULTS_DIR/logs/w1_${v}_sync${sync}_r${round}.log"
        res=$(PGOPTIONS="-c synchronous_commit=$sync" pgb_run "$log" unix prepared "$clients" \
          "$seconds" -D npoints="$SEED2_POINTS" -f "$BENCH_DIR/workloads/w1/$v.sql") || {
          warn "W1 $v failed (see $log)"
          continue
        }
        read -r tps lat failed <<<"$res"
        printf 'w1_sync_%s,%s,unix,prepared,%s,%s,%s,%s,%s,%s,-\n' "$sync" "$v" "$clients" "$round" \
          "$seconds" "$tps" "$lat" "$failed" >>"$RUNS_CSV"
        step "$(printf '%-22s %-10s unix prepared c=%s round %s/%s: %10.1f tps' \
          "W1 sync=$sync" "$v" "$clients" "$round" "$rounds" "$tps")"
      done
    done
  done
  w1_sizes after "${variants[@]}"
  for v in "${variants[@]}"; do sql -c "VACUUM w1_$v" >/dev/null; done
  w1_sizes after_vacuum "${variants[@]}"
  step "W1: sizes before/after/after VACUUM in $(basename "$W1_SIZES_CSV")"
}
