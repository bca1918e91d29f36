# shellcheck shell=bash
# M1: mixed traffic on a copy of seed-2 (65 % searches = R2's query, 25 %
# reads by id, 10 % updates moving a point), 2 clients, with per-operation
# p50/p99/p99.9 from pgbench's per-transaction log. Each operation is its own
# script (-f file@weight), so the log's script number says which one a
# transaction was. At 0 % updates the reads take the updates' share. The
# question it answers: do updates hurt search latency (seed 002).

m1_variants() {
  if ((GEOIDX)); then
    if ((FULL)); then echo "geoidx gist_geog"; else echo "geoidx"; fi
  else
    echo "gist_geog" # something to look at while geoidx is missing
  fi
}

run_m1() {
  local variants v pct round prefix res tps lat failed args
  read -r -a variants <<<"$(m1_variants)"
  for v in "${variants[@]}"; do variant_table seed2 "$v" "m1_$v"; done
  echo "variant,update_pct,op,count,p50_ms,p99_ms,p999_ms" >"$M1_CSV"
  mkdir -p "$RESULTS_DIR/m1-logs"
  for ((round = 1; round <= ROUNDS; round++)); do
    for pct in 0 10; do
      for v in "${variants[@]}"; do
        prefix="$RESULTS_DIR/m1-logs/${v}_u${pct}_r${round}"
        args=(-f "$BENCH_DIR/workloads/m1/${v}_search.sql@65"
              -f "$BENCH_DIR/workloads/m1/${v}_read.sql@$((35 - pct))")
        ((pct > 0)) && args+=(-f "$BENCH_DIR/workloads/m1/${v}_update.sql@$pct")
        res=$(pgb_run "$prefix.out" unix prepared 2 "$DURATION" -D npoints="$SEED2_POINTS" \
          -l --log-prefix="$prefix" "${args[@]}") || {
          warn "M1 $v ${pct}% failed (see $prefix.out)"
          continue
        }
        read -r tps lat failed <<<"$res"
        printf 'm1_u%s,%s,unix,prepared,2,%s,%s,%s,%s,%s,-\n' "$pct" "$v" "$round" "$DURATION" \
          "$tps" "$lat" "$failed" >>"$RUNS_CSV"
        step "$(printf '%-22s %-10s unix prepared c=2 round %s/%s: %10.1f tps' \
          "M1 ${pct}% updates" "$v" "$round" "$ROUNDS" "$tps")"
      done
    done
  done
  # Percentiles over all rounds together (more samples for p99.9).
  local ops=(search read update) op n p50 p99 p999
  for v in "${variants[@]}"; do
    for pct in 0 10; do
      while read -r op n p50 p99 p999; do
        printf '%s,%s,%s,%s,%s,%s,%s\n' "$v" "$pct" "${ops[$op]}" "$n" "$p50" "$p99" "$p999" >>"$M1_CSV"
      done < <(pgb_log_percentiles "$RESULTS_DIR/m1-logs/${v}_u${pct}_r"*.[0-9]*)
    done
  done
}
