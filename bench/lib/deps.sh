# shellcheck shell=bash
# Debian packages the kit needs, and building/installing geoidx from the repo.

# What each package is for:
#   postgresql-15, -postgis-3, -contrib  the server, PostGIS 3.3 and pgbench
#   postgresql-server-dev-15, libproj-dev, g++, make   PGXS build of geoidx
#   redis-server, redis-tools            the Redis GEO comparator
#   libhiredis-dev, gcc                  bench/tools/redis_geo_bench.c
#   gnuplot-nox                          the PNG chart
BENCH_APT_PACKAGES=(
  postgresql-15 postgresql-15-postgis-3 postgresql-contrib postgresql-client-15
  postgresql-server-dev-15 libproj-dev g++ gcc make
  redis-server redis-tools libhiredis-dev gnuplot-nox
)

pkg_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

install_packages() {
  local missing=() p
  for p in "${BENCH_APT_PACKAGES[@]}"; do
    pkg_installed "$p" || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    step "apt: all ${#BENCH_APT_PACKAGES[@]} packages already installed"
    return
  fi
  step "apt: installing ${missing[*]}"
  # Installing postgresql-15 on a fresh machine would create and start a
  # 'main' cluster on port 5432 that we never asked for; tell
  # postgresql-common not to, but only if nobody configured it already.
  if [[ ! -e /etc/postgresql-common/createcluster.conf ]]; then
    as_root mkdir -p /etc/postgresql-common
    echo 'create_main_cluster = false' | as_root tee /etc/postgresql-common/createcluster.conf >/dev/null
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >>"$RUN_LOG" 2>&1 ||
    warn "apt-get update failed, trying the install anyway"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >>"$RUN_LOG" 2>&1 || die "apt-get install ${missing[*]} failed (see $RUN_LOG)"
}

# Build and install geoidx with PGXS from the repo top. Sets GEOIDX=1 when the
# extension is installed afterwards (even if this build failed but an older
# install exists, which we then say loudly), GEOIDX=0 otherwise.
build_geoidx() {
  GEOIDX=0
  local ctl
  ctl="$("$PG_BIN/pg_config" --sharedir)/extension/geoidx.control"
  if [[ ${BENCH_SKIP_BUILD:-0} == 1 ]]; then
    step "geoidx: build skipped (--no-build)"
  elif [[ ! -f $REPO_DIR/Makefile ]]; then
    loud "geoidx: no Makefile at $REPO_DIR yet: cannot build the extension"
  else
    step "geoidx: make && make install (log: $WORK_DIR/geoidx-build.log)"
    if make -C "$REPO_DIR" -j"$(nproc)" PG_CONFIG="$PG_BIN/pg_config" >"$WORK_DIR/geoidx-build.log" 2>&1 &&
      as_root make -C "$REPO_DIR" install PG_CONFIG="$PG_BIN/pg_config" >>"$WORK_DIR/geoidx-build.log" 2>&1; then
      step "geoidx: installed"
    else
      # The compiler's and make's own error lines, not the whole command lines.
      grep -E ': error|\*\*\*|Error [0-9]' "$WORK_DIR/geoidx-build.log" | cut -c1-200 | tail -n 12 >&2 || true
      cp "$WORK_DIR/geoidx-build.log" "$RESULTS_DIR/geoidx-build.log"
      loud "geoidx: build/install FAILED (errors above; full log in results/.../geoidx-build.log)"
      [[ -f $ctl ]] && loud "geoidx: an OLDER installed build exists and will be benchmarked"
    fi
  fi
  [[ -f $ctl ]] && GEOIDX=1
  if ((GEOIDX == 0)); then
    loud "geoidx is NOT installed: every geoidx variant is SKIPPED; only the comparators run"
  fi
}

# The Redis load generator (a small hiredis client, see tools/redis_geo_bench.c).
build_redis_tool() {
  REDIS_TOOL="$WORK_DIR/redis_geo_bench"
  gcc -O2 -Wall -Wextra -o "$REDIS_TOOL" "$BENCH_DIR/tools/redis_geo_bench.c" -lhiredis -lm \
    >>"$RUN_LOG" 2>&1 || die "cannot compile tools/redis_geo_bench.c (see $RUN_LOG)"
}
