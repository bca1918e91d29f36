#!/usr/bin/env bash
# One-off memory check (issue 3, not part of CI): the whole pg_regress suite
# against a PostgreSQL server that runs under valgrind (memcheck), one client,
# and a report of every valgrind error whose stack passes through geoidx.so.
#
#   test/valgrind/run.sh [port]        (default port 55467; needs valgrind)
#
# Builds and installs the extension first (make, make install, as run-all
# does), starts a private cluster in a temporary directory (as user "geoidx"
# when run as root), runs `make installcheck` against it, stops it, and
# prints the geoidx errors; the exit status is 1 if there are any. All of
# valgrind's logs (one per process) stay in the directory it names.
#
# Debian's PostgreSQL is not built with USE_VALGRIND, so memcheck does not see
# inside memory contexts: reads of uninitialised or freed palloc'd memory that
# an AllocSet recycles, and overruns inside a block, go unnoticed; what it does
# see are uninitialised values used in conditions or system calls, bad reads
# and writes of malloc'd, stack and shared memory, and invalid frees.
# postgres.supp next to this script hides the known, harmless reports of the
# core (uninitialised padding written to WAL and data files).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=test/lib/common.sh
source "$here/test/lib/common.sh"
port=${1:-55467}
command -v valgrind >/dev/null || die "valgrind is not installed (apt-get install valgrind)"

step "building and installing the extension"
make -C "$here" -s -j"$(nproc)"
as_root make -C "$here" -s install
PG_BIN=$("${PG_CONFIG:-pg_config}" --bindir)

work=$(make_work_copy "$here")
data="$work/cluster"
vglogs="$work/valgrind"
run_as_pg mkdir -p "$vglogs"
cp "$here/test/valgrind/postgres.supp" "$work/postgres.supp"

step "starting PostgreSQL under valgrind in $work"
run_as_pg "$PG_BIN/initdb" -D "$data" -U "$PG_USER" -A trust --no-sync >/dev/null
cat >>"$data/postgresql.conf" <<CONF
port = $port
listen_addresses = ''
unix_socket_directories = '$data'
fsync = off
shared_buffers = 64MB
max_connections = 20
max_wal_senders = 0
autovacuum = off
jit = off
CONF
# --trace-children: every backend is a fork of the postmaster, and the
# postmaster itself is exec'd by the shell; one log per process.
run_as_pg bash -c "exec valgrind --quiet --trace-children=yes --leak-check=no --gen-suppressions=all \
	--suppressions='$work/postgres.supp' --error-limit=no --num-callers=40 --track-origins=yes \
	--error-markers=VALGRINDERROR-BEGIN,VALGRINDERROR-END --log-file='$vglogs/%p.log' \
	'$PG_BIN/postgres' -D '$data' >'$data/server.log' 2>&1" &
for _ in $(seq 1 300); do
	run_as_pg "$PG_BIN/pg_isready" -q -h "$data" -p "$port" && break
	sleep 1
done
run_as_pg "$PG_BIN/pg_isready" -q -h "$data" -p "$port" || die "the server did not start (see $data/server.log)"
trap 'run_as_pg "$PG_BIN/pg_ctl" -D "$data" -m fast -w -t 600 stop >/dev/null 2>&1 || true' EXIT

step "pg_regress under valgrind (slow)"
status=0
run_as_pg make -C "$work/tree" -s installcheck PGHOST="$data" PGPORT="$port" PGUSER="$PG_USER" || status=$?
run_as_pg "$PG_BIN/pg_ctl" -D "$data" -m fast -w -t 600 stop >/dev/null
trap - EXIT
[ "$status" = 0 ] || echo "pg_regress failed (status $status): see $work/tree/build/regress/regression.diffs"

step "valgrind errors"
total=$(cat "$vglogs"/*.log | grep -c '^==[0-9]*== VALGRINDERROR-BEGIN' || true)
# one error per block between the markers; keep those with a frame of geoidx
# in its stack or in the origin of the value: "(in .../geoidx.so)" without
# debug information, a geoidx function or one of its sources with it
ours=$(awk '/VALGRINDERROR-BEGIN/ { block = ""; inside = 1 }
	inside { block = block $0 "\n" }
	/VALGRINDERROR-END/ { inside = 0; if (block ~ /geoidx\.so|geoidx_|geoidx::|\.cc:[0-9]+\)/) printf "%s\n", block }' "$vglogs"/*.log)
echo "processes: $(ls "$vglogs" | wc -l), valgrind errors: $total (after suppressions)"
if [ -n "$ours" ]; then
	echo "errors through geoidx.so:"
	echo "$ours"
	exit 1
fi
echo "no valgrind error passes through geoidx.so (logs: $vglogs)"
exit "$status"
