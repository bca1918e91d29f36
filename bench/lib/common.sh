# shellcheck shell=bash
# Logging, timing and small helpers used by every other bench/lib file.
# Sourced by bench/run; nothing here starts or stops anything.

BENCH_T0=${BENCH_T0:-$(date +%s)}
RUN_LOG=${RUN_LOG:-/dev/null}

# One line per step, prefixed with the seconds since start, so a reader can see
# where the five minutes go. Goes to stderr (and the run log) so that stdout
# stays the table.
step() {
  local line
  line=$(printf '[%4ds] %s' "$(( $(date +%s) - BENCH_T0 ))" "$*")
  printf '%s\n' "$line" >&2
  printf '%s\n' "$line" >>"$RUN_LOG"
}

warn() { step "WARNING: $*"; }

# Loud: a banner that cannot be missed in a scrolling log (skipped variants,
# failed builds).
loud() {
  local bar='!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'
  printf '%s\n!!! %s\n%s\n' "$bar" "$*" "$bar" >&2
  printf '!!! %s\n' "$*" >>"$RUN_LOG"
}

die() {
  loud "ABORT: $*"
  exit 1
}

now_ms() { date +%s%3N; }

# Run a command as root: directly when we are root, through sudo otherwise.
as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# Is WORD in the comma separated LIST?  (case-insensitive)
in_list() {
  local word=${1,,} list=",${2,,},"
  [[ $list == *",$word,"* ]]
}

# Median of the numbers on stdin (one per line); empty input prints nothing.
median() {
  sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) exit
    if (NR % 2) printf "%.6g\n", v[(NR + 1) / 2]
    else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
