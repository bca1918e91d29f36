# shellcheck shell=bash
# Running pgbench and reading its numbers.

# Buffer accesses (hits + reads) of TABLE's spatial index (<table>_pos).
# Read before and after a run: a run that never touched its index measured
# something else (a sequential scan), and the report says so. Buffer counts,
# not idx_scan: the buffer manager counts them for every access method,
# while idx_scan is only what an access method chooses to report.
idx_scans() { # a partitioned table's: its partitions' indexes
  sql -c "SELECT sum(idx_blks_hit + idx_blks_read) FROM pg_statio_user_indexes
          WHERE indexrelname = '${1}_pos'
             OR indexrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = to_regclass('${1}_pos'))"
}

# pgb_run LOGFILE TRANSPORT MODE CLIENTS SECONDS PGBENCH_ARGS...
# prints "tps avg_latency_ms failed_transactions"; returns non-zero if
# pgbench failed (the log keeps its output).
pgb_run() {
  local log=$1 transport=$2 mode=$3 clients=$4 seconds=$5
  shift 5
  # -n: no vacuum of pgbench's own tables (we have none); -j = clients so
  # that pgbench's side is never one thread short.
  if ! pgbench -n -M "$mode" -c "$clients" -j "$clients" -T "$seconds" "$@" \
    "$(pg_conninfo "$transport")" >"$log" 2>&1; then
    return 1
  fi
  awk '/^tps = / && /without initial connection/ { tps = $3 }
       /^latency average = / { lat = $4 }
       /^number of failed transactions: / { failed = $5 }
       END { if (tps == "") exit 1; printf "%s %s %s\n", tps, (lat == "" ? "NaN" : lat), (failed == "" ? 0 : failed) }' "$log"
}

# Percentiles of pgbench's per-transaction log (-l), per script.
# Log lines: client_id transaction_no time_us script_no epoch epoch_us.
# Prints "script_no count p50_ms p99_ms p999_ms" per script.
pgb_log_percentiles() {
  awk '{ print $4, $3 }' "$@" | sort -k1,1n -k2,2n |
    awk 'function flush() {
           if (n == 0) return
           printf "%s %d %.3f %.3f %.3f\n", cur, n, v[pos(0.5)] / 1000, v[pos(0.99)] / 1000, v[pos(0.999)] / 1000
         }
         function pos(p,  i) { i = int(p * n + 0.999999); return i < 1 ? 1 : i }
         NR == 1 || $1 != cur { flush(); cur = $1; n = 0 }
         { v[++n] = $2 }
         END { flush() }'
}

# p50, p95 and p99 of per-transaction logs (-l), every file and script
# pooled: prints "count p50_ms p95_ms p99_ms" (nothing for no transactions).
# Failed transactions (time "failed") are left out.
pgb_log_quantiles() {
  awk '$3 ~ /^[0-9]+$/ { print $3 }' "$@" | sort -n |
    awk 'function pos(p,  i) { i = int(p * n + 0.999999); return i < 1 ? 1 : i }
         { v[++n] = $1 }
         END { if (n) printf "%d %.3f %.3f %.3f\n", n, v[pos(0.5)] / 1000, v[pos(0.95)] / 1000, v[pos(0.99)] / 1000 }'
}
