# shellcheck shell=bash
# The Redis GEO comparator: a private redis-server on 127.0.0.1 and a Unix
# socket, loaded from the same PostgreSQL tables, driven by
# tools/redis_geo_bench.c (one connection per client, random centres).

REDIS_STARTED=0

redis_start() {
  REDIS_SOCK="$WORK_DIR/redis.sock"
  step "redis: starting on 127.0.0.1:$REDIS_PORT and $REDIS_SOCK (no persistence)"
  # No RDB/AOF: a benchmark cache, nothing to keep; protected-mode on and
  # bound to loopback only.
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --protected-mode yes \
    --unixsocket "$REDIS_SOCK" --unixsocketperm 700 \
    --save '' --appendonly no --dir "$WORK_DIR" \
    --daemonize yes --pidfile "$WORK_DIR/redis.pid" --logfile "$WORK_DIR/redis.log" \
    >>"$RUN_LOG" 2>&1 || die "redis-server did not start (see $WORK_DIR/redis.log)"
  REDIS_STARTED=1
  local _
  for _ in $(seq 50); do
    redis-cli -s "$REDIS_SOCK" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  die "redis-server did not answer (see $WORK_DIR/redis.log)"
}

redis_stop() {
  ((REDIS_STARTED)) || return 0
  step "redis: stopping"
  redis-cli -s "$REDIS_SOCK" shutdown nosave >/dev/null 2>&1 || {
    [[ -f $WORK_DIR/redis.pid ]] && kill "$(cat "$WORK_DIR/redis.pid")" 2>/dev/null
  } || true
  REDIS_STARTED=0
}

# Load table $1 into GEO key $1. Inline GEOADD commands of 500 members each
# (an inline command must stay under 64 KB) through redis-cli --pipe.
# Redis GEO cannot store |lat| > 85.05112878; those points are left out and
# counted.
redis_load() {
  local table=$1 out skipped
  sql -c "SELECT 'GEOADD $table ' || string_agg(ST_X(pos)::text || ' ' || ST_Y(pos)::text || ' ' || id, ' ')
          FROM $table WHERE abs(ST_Y(pos)) <= 85.05112878 GROUP BY id / 500" |
    redis-cli -s "$REDIS_SOCK" --pipe >"$WORK_DIR/redis-load-$table.log" 2>&1 ||
    die "redis: loading $table failed (see $WORK_DIR/redis-load-$table.log)"
  out=$(redis-cli -s "$REDIS_SOCK" zcard "$table")
  skipped=$(sql -c "SELECT count(*) - $out FROM $table")
  step "redis: $table loaded: $out members ($skipped polar points Redis cannot store)"
}

# K1 on world: Redis has no k-NN, only "within a radius, nearest first,
# COUNT k". Give it the smallest radius that holds k points with near
# certainty on the uniform world set: the cap that holds 4k+20 points on
# average (k=10: ~99 km on 1 M points); P(fewer than k) < 1e-9.
redis_knn_radius_km() {
  local k=$1 n=$2
  awk -v k="$k" -v n="$n" 'BEGIN { printf "%.3f", 2 * 6371.0088 * sqrt((4 * k + 20) / n) }'
}

# redis_run WORKLOAD TRANSPORT CLIENTS SECONDS -> "tps avg_ms"
redis_run() {
  local workload=$1 transport=$2 clients=$3 seconds=$4 args=() out
  case $transport in
    unix) args=(-s "$REDIS_SOCK") ;;
    tcp) args=(-h 127.0.0.1 -p "$REDIS_PORT") ;;
  esac
  case $workload in
    # Same centres box as workloads/r1_ids/*.sql.
    r1_ids) args+=(-k seed1 -r 200 --box 106 114 -8 -6) ;;
    k1_world_10) args+=(-k world -n 10 -r "$(redis_knn_radius_km 10 "$WORLD_POINTS")" --sphere) ;;
    k1_world_100) args+=(-k world -n 100 -r "$(redis_knn_radius_km 100 "$WORLD_POINTS")" --sphere) ;;
    *) die "no Redis form of workload $workload" ;;
  esac
  out=$("$REDIS_TOOL" "${args[@]}" -c "$clients" -T "$seconds") || return 1
  sed -n 's/^tps=\([0-9.]*\) .* avg_ms=\([0-9.]*\) .*/\1 \2/p' <<<"$out"
}
