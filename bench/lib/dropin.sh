# shellcheck shell=bash
# shellcheck disable=SC2153 # RESULTS_DIR, BENCH_DIR, ... are set by bench/run
# The drop-in check (issue 11): the SQL that every other index's variant of
# a read workload sends (GiST, SP-GiST, their OFFSET and page-1 forms), sent
# instead to the table that has only a geoidx index (the table's name
# swapped, geoidx.rewrite_postgis on, as an app that dropped its GiST index
# would keep sending it), must read the geoidx index and never scan that
# table sequentially. pgbench runs each script 20 times; the table's
# statistics say what was read. dropin.csv: workload,variant,verdict.

seq_scans() { # a partitioned table's: its partitions'
  sql -c "SELECT coalesce(sum(seq_scan), 0) FROM pg_stat_user_tables
          WHERE relid = to_regclass('$1')
             OR relid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = to_regclass('$1'))"
}

run_dropin_check() {
  local w v ds from to script s0 i0 s1 i1 verdict extra=()
  ((GEOIDX)) || return 0
  : >"$DROPIN_CSV"
  mkdir -p "$RESULTS_DIR/dropin"
  step "drop-in: every other index's SQL on the geoidx table"
  for w in "$@"; do
    ds=${WL_DATASET[$w]}
    to="${ds}_geoidx"
    [[ $ds == none ]] && continue
    guard_table_exists "$to" || continue
    read -r -a extra <<<"$(wl_pgbench_vars "$w")"
    for v in ${WL_FULL[$w]}; do
      case $v in geoidx* | redis | noindex | pk | tid | select1) continue ;; esac
      from="${ds}_$(index_variant "$v")"
      script="$RESULTS_DIR/dropin/${w}_${v}.sql"
      sed "s/\b${from}\b/${to}/g" "$BENCH_DIR/workloads/$w/$v.sql" >"$script"
      s0=$(seq_scans "$to")
      i0=$(idx_scans "$to")
      if ! PGOPTIONS="-c geoidx.rewrite_postgis=on" pgbench -n -t 20 -c 1 "${extra[@]}" -f "$script" \
        "$(pg_conninfo unix)" >"$script.log" 2>&1; then
        verdict="failed (see dropin/${w}_${v}.sql.log)"
      else
        sleep 0.3 # the backend's statistics are flushed when it exits
        s1=$(seq_scans "$to")
        i1=$(idx_scans "$to")
        if [[ $s1 != "$s0" ]]; then
          verdict="SEQUENTIAL SCAN"
        elif [[ $i1 == "$i0" ]]; then
          verdict="no geoidx index read"
        else
          verdict="geoidx"
        fi
      fi
      printf '%s,%s,%s\n' "$w" "$v" "$verdict" >>"$DROPIN_CSV"
      if [[ $verdict == geoidx ]]; then
        step "drop-in: ok   $w $v: geoidx, no sequential scan"
      else
        loud "drop-in: $w $v on $to: $verdict"
      fi
    done
  done
}
