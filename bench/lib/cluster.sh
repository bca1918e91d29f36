# shellcheck shell=bash
# The throwaway PostgreSQL 15 cluster: initdb, tuned config, start, stop, and
# the connection strings for each transport. With --dsn none of this starts
# anything and the given server is used as it is.

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_USER_OS=${PG_USER_OS:-geoidx}   # unprivileged OS user that owns the cluster
PG_SUPERUSER=bench                 # database role created by initdb
PG_DB=bench
PG_STARTED=0

# initdb/pg_ctl/postgres refuse to run as root: as root we run them as an
# unprivileged user (created if missing); as any other user, directly.
as_pg() {
  if [[ $EUID -eq 0 ]]; then runuser -u "$PG_USER_OS" -- "$@"; else "$@"; fi
}

ensure_pg_os_user() {
  [[ $EUID -eq 0 ]] || return 0
  id "$PG_USER_OS" >/dev/null 2>&1 ||
    useradd --system --no-create-home --shell /usr/sbin/nologin "$PG_USER_OS"
}

# Settings for a benchmark, not for production:
# - shared_buffers 1GB: every default data set fits; the 10 M full run is
#   served from the OS cache beyond that (24 GiB machine).
# - fsync and synchronous_commit stay on: W1 measures the WAL flush with
#   synchronous_commit on, and turns it off per run with PGOPTIONS.
# - one parallel worker for index builds, which run alone (geoidx builds a
#   shape index with it; GiST cannot; the build rows say which ran serial).
# - no parallel query, no JIT, no autovacuum: on 2 cores a parallel worker or
#   an autovacuum would steal the second core from the second client, and JIT
#   compiles for milliseconds on queries that run in microseconds. The kit
#   runs VACUUM ANALYZE itself after each load.
# - wal_level minimal: CREATE TABLE AS / CREATE INDEX skip the WAL (faster
#   loads); commits still write and flush WAL.
# - geoidx.rewrite_postgis off: a peer's variant is PostGIS's own SQL, and the
#   guard's references too, sometimes on a table that has a geoidx index as
#   well (the scale run's); the variants that measure the rewrite turn it on
#   (variant_pgoptions).
# - geoidx in shared_preload_libraries, as the README advises for shapes: the
#   prepared polygons live in shared memory, so a pgbench run's fresh
#   connections find the zones an earlier connection prepared instead of
#   preparing each again. geoidx.shared_prepared_memory holds every zone, as
#   shared_buffers holds every data set: ~26 kB a zone of ~540 vertices (43
#   bytes a vertex), 256 MB at least (the default). With 100,000 zones in the
#   default 256 MB, a region a tenth of the zones is emptied all the time and
#   G1-G3 fall to 3-7x GiST(geography). G5's 40 large zones (15,408 vertices,
#   ~660 kB each, ~27 MB) come on top: without them in the sum, a default run
#   filled the 256 MB, emptied it during G1 and measured G1 cold (31.5x).
pg_prepared_memory_mb() {
  local mb=$(((ZONES * 26 + 1023) / 1024))
  echo $(((mb < 256 ? 256 : mb) + 32))
}

pg_write_conf() {
  cat <<CONF
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG_SOCKDIR'
max_connections = 40
shared_buffers = 1GB
work_mem = 64MB
maintenance_work_mem = 1GB
effective_cache_size = 16GB
random_page_cost = 1.1
max_wal_size = 16GB
min_wal_size = 1GB
checkpoint_timeout = 30min
wal_level = minimal
max_wal_senders = 0
wal_buffers = 64MB
max_parallel_workers_per_gather = 0
max_parallel_maintenance_workers = 1
jit = off
autovacuum = off
logging_collector = off
log_min_messages = warning
geoidx.rewrite_postgis = off
shared_preload_libraries = 'geoidx'
geoidx.shared_prepared_memory = $(pg_prepared_memory_mb)MB
CONF
}

pg_start() {
  PG_DATA="$WORK_DIR/pgdata"
  PG_SOCKDIR="$WORK_DIR"
  ensure_pg_os_user
  [[ $EUID -eq 0 ]] && chown "$PG_USER_OS" "$WORK_DIR"
  step "postgres: initdb in $PG_DATA (port $PG_PORT, socket in $PG_SOCKDIR)"
  # trust is fine: the cluster listens on 127.0.0.1 and a socket in a
  # private directory, and lives for this run only.
  as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U "$PG_SUPERUSER" --auth=trust --no-locale -E UTF8 \
    >>"$RUN_LOG" 2>&1 || die "initdb failed (see $RUN_LOG)"
  pg_write_conf | as_pg tee -a "$PG_DATA/postgresql.conf" >/dev/null
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$WORK_DIR/postgres.log" -w -t 60 start \
    >>"$RUN_LOG" 2>&1 || die "postgres did not start (see $WORK_DIR/postgres.log)"
  PG_STARTED=1
  "$PG_BIN/createdb" -h "$PG_SOCKDIR" -p "$PG_PORT" -U "$PG_SUPERUSER" "$PG_DB" ||
    die "createdb failed"
}

pg_stop() {
  ((PG_STARTED)) || return 0
  step "postgres: stopping the throwaway cluster"
  # immediate: no shutdown checkpoint of data that is deleted right after
  # (a fast stop spends ~10 s writing out the copies of seed-2).
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w stop >>"$RUN_LOG" 2>&1 || true
  PG_STARTED=0
}

# Connection string for a transport: unix (socket), tcp (127.0.0.1), or the
# user's --dsn (keyword=value form: a later keyword overrides an earlier one,
# so tcp appends host=127.0.0.1).
pg_conninfo() {
  local transport=$1
  if [[ -n ${BENCH_DSN:-} ]]; then
    case $transport in
      tcp) printf '%s host=127.0.0.1' "$BENCH_DSN" ;;
      *) printf '%s' "$BENCH_DSN" ;;
    esac
    return
  fi
  case $transport in
    unix) printf 'host=%s port=%s user=%s dbname=%s' "${PG_SOCKDIR:-$WORK_DIR}" "$PG_PORT" "$PG_SUPERUSER" "$PG_DB" ;;
    tcp) printf 'host=127.0.0.1 port=%s user=%s dbname=%s' "$PG_PORT" "$PG_SUPERUSER" "$PG_DB" ;;
    *) die "unknown transport '$transport' (use unix, tcp)" ;;
  esac
}

# psql on the Unix socket (or the --dsn), unaligned, tuples only, stop on error.
sql() {
  psql "$(pg_conninfo unix)" -X -q -A -t -v ON_ERROR_STOP=1 "$@"
}

# Run a statement and print how long it took on the server side in ms
# (psql's \timing: round trip of that one statement, no connect time).
sql_timed() {
  sql_timed_try "$1" || die "failed: $1"
}

# The same, but a failure returns 1 (psql's error on stderr) instead of dying.
sql_timed_try() {
  local out
  out=$(psql "$(pg_conninfo unix)" -X -q -A -t -v ON_ERROR_STOP=1 -c '\timing on' -c "$1") || return 1
  sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out" | tail -n 1
}
