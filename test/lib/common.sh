# Shared by test/run-all and the scripts it calls.

PG_BIN=/usr/lib/postgresql/15/bin
PG_USER=geoidx
[ "$(id -u)" = 0 ] || PG_USER=$(id -un)

step() { printf '\n==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }

as_root() {
	if is_root; then "$@"; else sudo "$@"; fi
}

# Installs the Debian packages given, those that are missing.
ensure_debs() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		echo "installing: ${missing[*]}"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	fi
}

# Installs the Debian packages the build and the tests need, when missing.
ensure_packages() {
	ensure_debs build-essential cmake pkg-config libgtest-dev googletest libproj-dev \
		postgresql-15 postgresql-client-15 postgresql-contrib postgresql-server-dev-15 \
		postgresql-15-postgis-3 libipc-run-perl \
		dpkg-dev debhelper postgresql-server-dev-all
	# Debian's postgresql-common may start a cluster of its own; geoidx never uses it.
}

# The user the database parts run as: the invoking user, or "geoidx" when root.
pg_user() {
	if is_root; then echo "$PG_USER"; else id -un; fi
}

run_as_pg() {
	if is_root; then
		runuser -u "$PG_USER" -- "$@"
	else
		"$@"
	fi
}

# A copy of the tree that the database user can write (pg_regress and the TAP
# tests write next to the sources).
make_work_copy() {
	local src=$1 work
	if is_root; then
		id -u "$PG_USER" >/dev/null 2>&1 || useradd --system --create-home --shell /bin/bash "$PG_USER"
	fi
	work=$(mktemp -d /tmp/geoidx-test.XXXXXX)
	mkdir -p "$work/tree"
	tar -C "$src" --exclude=./build --exclude=./.git --exclude=./bench/results -cf - . | tar -C "$work/tree" -xf -
	mkdir -p "$work/tree/build/regress" "$work/tree/build/isolation"
	chmod 755 "$work"
	is_root && chown -R "$PG_USER" "$work"
	echo "$work"
}

# start_cluster DIR PORT [CONF]: CONF, more postgresql.conf lines.
start_cluster() {
	local dir=$1 port=$2 extra=${3:-}
	run_as_pg "$PG_BIN/initdb" -D "$dir" -U "$PG_USER" -A trust --no-sync >/dev/null
	cat >>"$dir/postgresql.conf" <<CONF
port = $port
listen_addresses = ''
unix_socket_directories = '$dir'
fsync = off
max_prepared_transactions = 10
shared_buffers = 256MB
# The tests' references are PostGIS's own SQL, often on a table with a geoidx
# index: they must stay PostGIS's. A test of the rewrites turns them on.
geoidx.rewrite_postgis = off
$extra
CONF
	run_as_pg "$PG_BIN/pg_ctl" -D "$dir" -l "$dir/server.log" -w start >/dev/null
}

stop_cluster() {
	local dir=$1
	[ -f "$dir/postmaster.pid" ] || return 0
	run_as_pg "$PG_BIN/pg_ctl" -D "$dir" -m fast -w stop >/dev/null
}
