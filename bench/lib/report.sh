# shellcheck shell=bash
# shellcheck disable=SC2153 # CLIENTS, TRANSPORTS, ... are set by bench/run
# From runs.csv to summary.csv, results.md, chart.png and the table on
# stdout. The throughput table shows medians over the rounds and divides
# them; a target's ratio is the median of the ratios within each round
# (paired), always the same run, transport, protocol mode and clients.

# summary.csv: workload,variant,transport,mode,clients,rounds,tps,lat_ms,index_used
# (median tps and latency over rounds; rows in the order first measured).
summarize_runs() {
  awk -F, 'NR > 1 {
      k = $1 "," $2 "," $3 "," $4 "," $5
      if (!(k in n)) { order[++nk] = k }
      n[k]++; tps[k, n[k]] = $8; lat[k, n[k]] = $9
      if ($11 == "no") used[k] = "no"; else if (!(k in used)) used[k] = $11
    }
    function med(arr, k, m,   i, j, t, v) {
      for (i = 1; i <= m; i++) v[i] = arr[k, i] + 0
      for (i = 2; i <= m; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
      return (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
    }
    END {
      print "workload,variant,transport,mode,clients,rounds,tps,lat_ms,index_used"
      for (i = 1; i <= nk; i++) { k = order[i]
        printf "%s,%d,%.1f,%.3f,%s\n", k, n[k], med(tps, k, n[k]), med(lat, k, n[k]), used[k] }
    }' "$RUNS_CSV" >"$SUMMARY_CSV"
}

# tps_of WORKLOAD VARIANT TRANSPORT MODE CLIENTS -> median tps or empty
tps_of() {
  awk -F, -v w="$1" -v v="$2" -v t="$3" -v m="$4" -v c="$5" \
    '$1 == w && $2 == v && $3 == t && $4 == m && $5 == c { print $7; exit }' "$SUMMARY_CSV"
}

# Human title of a workload id (read workloads from plan.sh, W1/M1 here).
title_of() {
  case $1 in
    w1_sync_on) echo "W1 upsert, sync on" ;;
    w1_sync_off) echo "W1 upsert, sync off" ;;
    m1_u0) echo "M1 mixed, 0% upd" ;;
    m1_u10) echo "M1 mixed, 10% upd" ;;
    *) echo "${WL_TITLE[$1]:-$1}" ;;
  esac
}

# The throughput table, Markdown with padded columns (readable as text too).
throughput_table() {
  local transports=${TRANSPORTS//,/ } w titles=""
  for w in $(cut -d, -f1 "$SUMMARY_CSV" | tail -n +2 | uniq); do titles+="$w|$(title_of "$w");"; done
  awk -F, -v transports="$transports" -v titles="$titles" '
    BEGIN {
      nt = split(transports, T, " ")
      nn = split(titles, P, ";"); for (i = 1; i <= nn; i++) { split(P[i], kv, "|"); title[kv[1]] = kv[2] }
    }
    NR > 1 {
      g = $1 "," $2 "," $4 "," $5
      if (!(g in seen)) { seen[g] = 1; rows[++nr] = g }
      tps[$1, $2, $3, $4, $5] = $7; used[g] = (used[g] == "no" || $9 == "no") ? "no" : $9
    }
    END {
      hdr = sprintf("| %-24s | %-10s | %-8s | %2s |", "workload", "variant", "mode", "cl")
      sep = "|--------------------------|------------|----------|----|"
      for (i = 1; i <= nt; i++) { hdr = hdr sprintf(" %10s |", T[i] " tps"); sep = sep "-----------:|" }
      for (i = 1; i <= nt; i++) { hdr = hdr sprintf(" %13s |", "geoidx/x " T[i]); sep = sep "--------------:|" }
      print hdr " index used |"; print sep "------------|"
      for (r = 1; r <= nr; r++) {
        split(rows[r], f, ",")
        line = sprintf("| %-24s | %-10s | %-8s | %2s |", title[f[1]], f[2], f[3], f[4])
        for (i = 1; i <= nt; i++) {
          v = tps[f[1], f[2], T[i], f[3], f[4]]
          line = line sprintf(" %10s |", v == "" ? "-" : v)
        }
        for (i = 1; i <= nt; i++) {
          v = tps[f[1], f[2], T[i], f[3], f[4]]; gx = tps[f[1], "geoidx", T[i], f[3], f[4]]
          line = line sprintf(" %13s |", (v == "" || gx == "" || v + 0 == 0 || f[2] == "geoidx") ? "-" : sprintf("%.2fx", gx / v))
        }
        print line sprintf(" %-10s |", used[rows[r]])
      }
    }' "$SUMMARY_CSV"
}

# Builds: median time and size per table and variant (create + reindexes).
builds_table() {
  [[ -s $BUILDS_CSV ]] || return 0
  echo "| table | variant | step | builds | median ms | index size | index bytes |"
  echo "|---|---|---|---:|---:|---:|---:|"
  awk -F, '{ k = $2 "," $3 "," $4
             if (!(k in n)) o[++nk] = k; n[k]++; ms[k, n[k]] = $6; ib[k] = $7 }
    function med(k, m,   i, j, t, v) {
      for (i = 1; i <= m; i++) v[i] = ms[k, i] + 0
      for (i = 2; i <= m; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
      return (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
    END { for (i = 1; i <= nk; i++) { split(o[i], f, ",")
      printf "| %s | %s | %s | %d | %.0f | %.1f MB | %s |\n", f[1], f[2], f[3], n[o[i]], med(o[i], n[o[i]]), ib[o[i]] / 1048576, ib[o[i]] } }' "$BUILDS_CSV"
}

build_median_ms() { # table [step]: median of the alternated REINDEX rounds
  awk -F, -v t="$1" -v s="${2:-reindex}" '$2 == t && $4 == s { print $6 }' "$BUILDS_CSV" | median
}
build_bytes() { # table
  awk -F, -v t="$1" '$2 == t && $4 != "cluster" { b = $7 } END { print b }' "$BUILDS_CSV"
}

w1_table() {
  [[ -s $W1_SIZES_CSV ]] || return 0
  echo "| W1 table | phase | heap | spatial index |"
  echo "|---|---|---:|---:|"
  tail -n +2 "$W1_SIZES_CSV" | awk -F, '{ printf "| w1_%s | %s | %.1f MB | %.1f MB |\n", $1, $2, $3 / 1048576, $4 / 1048576 }'
}

m1_table() {
  [[ -s $M1_CSV ]] || return 0
  echo "| M1 variant | updates | op | transactions | p50 ms | p99 ms | p99.9 ms |"
  echo "|---|---:|---|---:|---:|---:|---:|"
  tail -n +2 "$M1_CSV" | awk -F, '{ printf "| %s | %s %% | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }'
}

# p50/p95/p99 from the per-transaction logs (WL_LATENCY workloads: G1).
latency_table() {
  [[ -s $LATENCY_CSV ]] && (($(wc -l <"$LATENCY_CSV") > 1)) || return 0
  echo "| workload | variant | transport | mode | cl | transactions | p50 ms | p95 ms | p99 ms |"
  echo "|---|---|---|---|---:|---:|---:|---:|---:|"
  local w v tr mo cl n p50 p95 p99
  while IFS=, read -r w v tr mo cl n p50 p95 p99; do
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$(title_of "$w")" "$v" "$tr" "$mo" "$cl" "$n" "$p50" "$p95" "$p99"
  done < <(tail -n +2 "$LATENCY_CSV")
}

m1_p99() { # variant pct op
  awk -F, -v v="$1" -v p="$2" -v o="$3" '$1 == v && $2 == p && $3 == o { print $6 }' "$M1_CSV" 2>/dev/null
}

# ratio A B -> A/B with 2 decimals, or empty
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b != "" && b + 0 > 0) printf "%.2f", a / b }'; }

# paired WORKLOAD VARIANT TRANSPORT MODE CLIENTS OTHER... -> the median over
# rounds of VARIANT's tps / the best OTHER's tps in the same round, with 2
# decimals (empty when no round has both). The variants of a round run one
# after the other, so a round's ratio is measured at one speed of the
# machine; dividing two medians mixed rounds measured minutes apart, and a
# round in which one side alone ran 25 % slow moved the ratio (bench/PROFILES.md,
# issue 12).
paired() {
  local w=$1 v=$2 t=$3 m=$4 c=$5
  shift 5
  awk -F, -v w="$w" -v v="$v" -v t="$t" -v m="$m" -v c="$c" -v others="$*" '
    BEGIN { n = split(others, o, " "); for (i = 1; i <= n; i++) other[o[i]] = 1 }
    NR > 1 && $1 == w && $3 == t && $4 == m && $5 == c {
      if ($2 == v) a[$6] = $8
      else if ($2 in other && (!($6 in b) || $8 + 0 > b[$6] + 0)) b[$6] = $8
    }
    END {
      for (r in a) if ((r in b) && b[r] + 0 > 0) x[++k] = a[r] / b[r]
      if (k == 0) exit
      for (i = 2; i <= k; i++) { y = x[i]; for (j = i - 1; j >= 1 && x[j] > y; j--) x[j + 1] = x[j]; x[j + 1] = y }
      printf "%.2f", (k % 2) ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2
    }' "$RUNS_CSV"
}

# verdict VALUE OP LIMIT -> PASS/FAIL/n.a.
verdict() {
  [[ -z $1 ]] && { echo "n.a."; return; }
  awk -v x="$1" -v op="$2" -v l="$3" 'BEGIN { ok = (op == ">=") ? (x >= l) : (x <= l); print ok ? "PASS" : "FAIL" }'
}

# The build rows of the targets table (no transport in them); called by
# targets_table, whose row() it prints with.
builds_targets() {
  local r gv gn zd
  r=$(ratio "$(build_median_ms seed2_geoidx)" "$(build_median_ms seed2_gist_geom)")
  row "build time on seed-2: geoidx / GiST(geometry)" "$r" "<=" 0.5
  r=$(ratio "$(build_median_ms seed2_geoidx reindex_serial)" "$(build_median_ms seed2_gist_geom)")
  [[ -n $r ]] && printf '| %s | %s | | |\n' "build time on seed-2: geoidx serial / GiST(geometry) (information)" "$r"
  r=$(ratio "$(build_bytes seed2_geoidx)" "$(build_bytes seed2_gist_geom)")
  row "index size on seed-2: geoidx / GiST(geometry)" "$r" "<=" 0.7
  # polygon index builds on zones (the geofencing issue asks for the numbers),
  # and on G5's large zones, which geoidx keeps with their pieces
  for zd in zones bigzones; do
    for gv in gist_geom gist_geog; do
      gn="GiST(geometry)"
      [[ $gv == gist_geog ]] && gn="GiST(geography)"
      r=$(ratio "$(build_median_ms ${zd}_geoidx)" "$(build_median_ms "${zd}_$gv")")
      [[ -n $r ]] && printf '| %s | %s | | |\n' "build time on $zd: geoidx / $gn (information)" "$r"
      r=$(ratio "$(build_median_ms ${zd}_geoidx reindex_serial)" "$(build_median_ms "${zd}_$gv")")
      [[ -n $r ]] && printf '| %s | %s | | |\n' "build time on $zd: geoidx serial / $gn (information)" "$r"
      r=$(ratio "$(build_bytes ${zd}_geoidx)" "$(build_bytes "${zd}_$gv")")
      [[ -n $r ]] && printf '| %s | %s | | |\n' "index size on $zd: geoidx / $gn (information)" "$r"
    done
  done
  return 0
}

# The issue's targets, on the reference configuration: Unix socket (or the
# transport given), the last protocol mode and the largest client count
# measured (2 by default). The rows that do not depend on the transport (W1,
# M1, the builds, the drop-in check) are printed for the first transport only.
targets_table() {
  local t m c r first
  first=${TRANSPORTS%%,*}
  t=${1:-$first}
  m=${MODES##*,}
  c=${CLIENTS##*,}
  echo "Reference configuration: transport $t, -M $m, $c clients. A ratio is the median over the run's rounds of the ratio within a round."
  echo
  echo "| target | measured | limit | verdict |"
  echo "|---|---:|---:|---|"
  row() { printf '| %s | %s | %s %s | %s |\n' "$1" "${2:-n.a.}" "$3" "$4" "$(verdict "$2" "$3" "$4")"; }
  r=$(paired r1_ids geoidx "$t" "$m" "$c" gist_geog)
  row "R1 ids: geoidx / GiST(geography)" "$r" ">=" 3
  r=$(paired r1_count geoidx "$t" "$m" "$c" gist_geog)
  row "R1 count(*): geoidx / GiST(geography)" "$r" ">=" 10
  local w
  for w in k1_world_10 k1_cities_10 k1_world_100 k1_cities_100; do
    grep -q "^$w," "$SUMMARY_CSV" || continue
    r=$(paired "$w" geoidx "$t" "$m" "$c" gist_geog)
    row "$(title_of "$w"): geoidx / GiST(geography) <->" "$r" ">=" 3
    r=$(paired "$w" geoidx "$t" "$m" "$c" gist_geom)
    # planar GiST is measured on cities only in --full
    [[ -n $r || $w == k1_world_* ]] && row "$(title_of "$w"): geoidx / planar GiST <->" "$r" ">=" 1
  done
  if grep -q '^kf,' "$SUMMARY_CSV"; then
    r=$(paired kf geoidx "$t" "$m" "$c" gist_geog)
    row "KF 1% category k=10: geoidx / GiST(category, geography) <->" "$r" ">=" 3
    r=$(paired kf geoidx "$t" "$m" "$c" gist_geom)
    [[ -n $r ]] && printf '| %s | %s | | |\n' "KF: geoidx / planar GiST(category, pos) <-> (information: degrees, not metres)" "$r"
  fi
  if grep -q '^pg,' "$SUMMARY_CSV"; then
    # the best GiST page 100: keyset (filter) or OFFSET, whichever was faster
    r=$(paired pg geoidx "$t" "$m" "$c" gist_geog gist_offset)
    row "PG page 100: geoidx / best GiST page 100" "$r" ">=" 3
    # cost = 1 / tps: page-100 cost / page-1 cost = page-1 tps / page-100 tps
    r=$(paired pg geoidx_p1 "$t" "$m" "$c" geoidx)
    row "PG geoidx: page-100 cost / page-1 cost" "$r" "<=" 1.5
    r=$(paired pg gist_p1 "$t" "$m" "$c" gist_geog gist_offset)
    [[ -n $r ]] && printf '| %s | %s | | |\n' "PG GiST: best page-100 cost / page-1 cost (information)" "$r"
  fi
  # G1-G3: geofencing on zones (polygons)
  r=$(paired g1_covers geoidx "$t" "$m" "$c" gist_geog)
  row "G1 covers: geoidx / GiST(geography) ST_Covers" "$r" ">=" 40
  r=$(paired g1_covers geoidx "$t" "$m" "$c" gist_geom)
  row "G1 covers: geoidx / planar GiST ST_Contains" "$r" ">=" 1
  r=$(paired g1_covers geoidx_planar "$t" "$m" "$c" gist_geom)
  row "G1 planar ST_Contains: on geoidx / on GiST(geometry)" "$r" ">=" 1.5
  r=$(paired g2_dwithin geoidx "$t" "$m" "$c" gist_geog)
  row "G2 within 500 m: geoidx / GiST(geography) ST_DWithin" "$r" ">=" 20
  r=$(paired g2_dwithin geoidx "$t" "$m" "$c" gist_geom)
  [[ -n $r ]] && printf '| %s | %s | | |\n' "G2: geoidx / planar GiST box + ST_DWithin(geography) (information)" "$r"
  r=$(paired g3_knn geoidx "$t" "$m" "$c" gist_geog)
  row "G3 3 nearest: geoidx / GiST(geography) <-> (sphere)" "$r" ">=" 20
  r=$(paired g3_knn geoidx "$t" "$m" "$c" gist_geom)
  [[ -n $r ]] && printf '| %s | %s | | |\n' "G3: geoidx / planar GiST <-> (information: degrees, not metres)" "$r"
  # P: partitioned on geoidx_cell (issue 14), against the same rows unpartitioned
  local pw title limit pv
  for pw in p_knn p_radius; do
    grep -q "^$pw," "$SUMMARY_CSV" || continue
    title="P k=10" limit=0.5
    [[ $pw == p_radius ]] && title="P 200 km count" limit=0.9
    r=$(paired $pw geoidx_p64 "$t" "$m" "$c" geoidx)
    row "$title: 64 partitions / unpartitioned" "$r" ">=" "$limit"
    for pv in geoidx_p64_cells geoidx_p16; do
      r=$(paired $pw $pv "$t" "$m" "$c" geoidx)
      [[ -n $r ]] && printf '| %s | %s | | |\n' "$title: $pv / unpartitioned (information)" "$r"
    done
  done
  # G4: points covered by a zone (a point column, the zone a parameter)
  r=$(paired g4_coveredby geoidx "$t" "$m" "$c" gist_geog)
  row "G4 points covered by a zone: geoidx / GiST(geography) ST_CoveredBy" "$r" ">=" 5
  r=$(paired g4_coveredby geoidx "$t" "$m" "$c" gist_geom)
  [[ -n $r ]] && printf '| %s | %s | | |\n' "G4: geoidx / planar GiST ST_Within (information: straight edges in degrees, the speed to beat)" "$r"
  # G5: large zones (15,400 vertices), which geoidx keeps in pieces. The issue
  # sets no target of its own here: G1's are shown beside it.
  r=$(paired g5_large geoidx "$t" "$m" "$c" gist_geog)
  [[ -n $r ]] && printf '| %s | %s | | |\n' "G5 large zones: geoidx / GiST(geography) ST_Covers (information; G1's target: 40)" "$r"
  r=$(paired g5_large geoidx "$t" "$m" "$c" gist_geom)
  [[ -n $r ]] && printf '| %s | %s | | |\n' "G5 large zones: geoidx / planar GiST ST_Contains (information; G1's target: 1)" "$r"
  # V: the map viewport, PostGIS's && unchanged, against GiST on the same column (issue 11)
  for w in v_z6 v_z10 v_z14; do
    grep -q "^$w," "$SUMMARY_CSV" || continue
    r=$(paired "$w" geoidx "$t" "$m" "$c" gist_geom)
    row "$(title_of "$w"): geoidx / GiST(geometry), pos && box" "$r" ">=" 1
  done
  # the drop-in check (lib/dropin.sh): every other index's SQL on the geoidx table
  if [[ -s $DROPIN_CSV && $t == "$first" ]]; then
    local n ok
    n=$(wc -l <"$DROPIN_CSV")
    ok=$(grep -c ',geoidx$' "$DROPIN_CSV")
    printf '| %s | %s | %s | %s |\n' "drop-in: other indexes' SQL of these workloads on the geoidx table, read through geoidx with no sequential scan" \
      "$ok of $n" "= $n" "$([[ $ok == "$n" ]] && echo PASS || echo FAIL)"
  fi
  r=$(paired r2 geoidx "$t" "$m" "$c" gist_geog)
  row "R2: geoidx / GiST(geography)" "$r" ">=" 2
  r=$(paired r2 geoidx "$t" "$m" "$c" gist_geog gist_geom)
  [[ -n $r ]] && printf '| %s | %s | | |\n' "R2: geoidx / best GiST (information)" "$r"
  # W1: geoidx against the best other spatial index on the column; no index for information
  local sync
  for sync in off on; do
    [[ $t == "$first" ]] || break
    grep -q "^w1_sync_$sync," "$SUMMARY_CSV" || continue
    r=$(paired "w1_sync_$sync" geoidx unix prepared 2 gist_geom gist_geog)
    row "W1 sync $sync: geoidx / best other spatial index" "$r" ">=" 1
    r=$(paired "w1_sync_$sync" geoidx unix prepared 2 none)
    [[ -n $r ]] && printf '| %s | %s | | |\n' "W1 sync $sync: geoidx / no spatial index (information)" "$r"
  done
  if [[ $t == "$first" ]]; then
    r=$(ratio "$(m1_p99 geoidx 10 search)" "$(m1_p99 geoidx 0 search)")
    row "M1 search p99: 10 % updates / 0 %" "$r" "<=" 1.2
  fi
  # the limit: a TID Scan of exactly the answer's rows, on the same 32 centres
  r=$(paired r1_limit geoidx "$t" "$m" "$c" tid)
  row "limit R1 ids: geoidx / TID scan of the answer" "$r" ">=" 0.9
  if [[ $c != 1 ]]; then
    r=$(paired r1_limit geoidx "$t" "$m" 1 tid)
    [[ -n $r ]] && row "limit R1 ids, 1 client: geoidx / TID scan of the answer" "$r" ">=" 0.9
  fi
  r=$(paired k1_limit geoidx "$t" "$m" "$c" tid)
  [[ -n $r ]] && printf '| %s | %s | | |\n' "limit K1 world k=10: geoidx / TID scan of the answer (information)" "$r"
  # KF and R2 miss their targets against GiST: the TID scan of the answer over
  # GiST on the same centres is the most that any index could gain
  local lw lt
  for lw in "r2_limit:R2" "kf_limit:KF 1% k=10"; do
    lt=${lw#*:}
    r=$(paired "${lw%%:*}" geoidx "$t" "$m" "$c" tid)
    [[ -n $r ]] && printf '| %s | %s | | |\n' "limit $lt: geoidx / TID scan of the answer (information)" "$r"
    r=$(paired "${lw%%:*}" geoidx "$t" "$m" "$c" gist_geog)
    [[ -n $r ]] && printf '| %s | %s | | |\n' "limit $lt: geoidx / GiST on the same centres (information)" "$r"
    r=$(paired "${lw%%:*}" tid "$t" "$m" "$c" gist_geog)
    [[ -n $r ]] && printf '| %s | %s | | |\n' "limit $lt: TID scan of the answer / GiST, the most any index could reach (information)" "$r"
  done
  r=$(paired r1_limit geoidx "$t" "$m" "$c" pk)
  [[ -n $r ]] && printf '| %s | %s | | |\n' "R1 ids: geoidx / the same rows by primary key (information)" "$r"
  [[ $t == "$first" ]] && builds_targets
  # PostGIS's SQL sent unchanged to the geoidx table (the rewrite): within 10 %
  # of geoidx's own function form (the drop-in issue's target)
  for w in r1_ids r2 k1_world_10 k1_cities_10 g1_covers g2_dwithin g3_knn; do
    r=$(paired "$w" geoidx_pg "$t" "$m" "$c" geoidx)
    [[ -n $r ]] && row "$(title_of "$w"): PostGIS's SQL on geoidx / geoidx's function form" "$r" ">=" 0.9
  done
  # GiST(geography)'s own k-NN SQL (geography <->, the sphere) sent to the geoidx table: within
  # 10 % of geoidx's function form, so about its ratio to GiST(geography)
  for w in k1_world_10 k1_cities_10 g3_knn; do
    r=$(paired "$w" geoidx_sph "$t" "$m" "$c" geoidx)
    [[ -n $r ]] && row "$(title_of "$w"): GiST(geography)'s <-> SQL on geoidx / geoidx's function form" "$r" ">=" 0.9
    r=$(paired "$w" geoidx_sph "$t" "$m" "$c" gist_geog)
    [[ -n $r ]] && printf '| %s | %s | | |\n' "$(title_of "$w"): GiST(geography)'s <-> SQL, on geoidx / on GiST(geography) (information)" "$r"
  done
  for w in r1_ids r1_count r2; do
    r=$(paired "$w" geoidx_cl "$t" "$m" "$c" geoidx)
    [[ -n $r ]] && printf '| %s: CLUSTER USING geoidx / unclustered (information) | %s | | |\n' "$(title_of "$w")" "$r"
  done
  return 0
}

# "group variant value" lines -> a gnuplot matrix: a header of variants,
# one row per group (missing cells NaN), orders as first seen.
chart_matrix() {
  awk '{ if (!($1 in gs)) go[++ng] = $1; gs[$1] = 1
         if (!($2 in vs)) vo[++nv] = $2; vs[$2] = 1
         v[$1, $2] = $3 }
       END {
         printf "group"; for (j = 1; j <= nv; j++) printf " %s", vo[j]; print ""
         for (i = 1; i <= ng; i++) {
           printf "%s", go[i]
           for (j = 1; j <= nv; j++) printf " %s", ((go[i], vo[j]) in v) ? v[go[i], vo[j]] : "NaN"
           print "" } }'
}

# One colour per variant, the same in every panel.
variant_color() {
  while read -r v; do
    case $v in
      geoidx) echo '#d62728' ;; geoidx_cl) echo '#ff7f0e' ;; geoidx_p1) echo '#ff9896' ;; geoidx_planar) echo '#e377c2' ;; geoidx_pg) echo '#bcbd22' ;; geoidx_sph) echo '#8c6d31' ;;
      gist_geog) echo '#1f77b4' ;; gist_geom) echo '#17becf' ;; spgist) echo '#9edae5' ;;
      gist_offset) echo '#393b79' ;; gist_p1) echo '#6b6ecf' ;;
      redis) echo '#9467bd' ;; pk) echo '#2ca02c' ;; tid) echo '#8c564b' ;; *) echo '#7f7f7f' ;;
    esac
  done
}

# chart.png: one panel per workload, one bar group per transport (W1: per
# synchronous_commit setting), one bar per variant; log scale because a
# sequential scan and an index differ by orders of magnitude.
make_chart() {
  command -v gnuplot >/dev/null || { warn "no gnuplot: no chart"; return 0; }
  local dir="$RESULTS_DIR/chart-data" m=${MODES##*,} c=${CLIENTS##*,} w files=() n=0
  mkdir -p "$dir"
  # Read workloads: groups = transports, for the reference mode and clients.
  for w in $(cut -d, -f1 "$SUMMARY_CSV" | tail -n +2 | uniq); do
    [[ $w == m1_* || $w == w1_* ]] && continue
    awk -F, -v w="$w" -v m="$m" -v c="$c" \
      'NR > 1 && $1 == w && $4 == m && $5 == c { print $3, $2, $7 }' "$SUMMARY_CSV" | chart_matrix >"$dir/$w.dat"
    files+=("$w")
    n=$((n + 1))
  done
  # W1: unix only; groups = synchronous_commit setting.
  if grep -q '^w1_sync_' "$SUMMARY_CSV"; then
    awk -F, '$1 ~ /^w1_sync_/ { print substr($1, 4), $2, $7 }' "$SUMMARY_CSV" | chart_matrix >"$dir/w1.dat"
    files+=(w1)
    n=$((n + 1))
  fi
  ((n)) || return 0
  local rows=$(((n + 1) / 2)) gp="$dir/chart.gp"
  {
    echo "set terminal pngcairo size 1400,$((rows * 330 + 60)) font 'sans,9'"
    echo "set output '$RESULTS_DIR/chart.png'"
    echo "set multiplot layout $rows,2 title 'geoidx bench: tps (median of $ROUNDS rounds, -M $m, $c clients; W1: unix, 2 clients)'"
    echo "set style data histograms; set style histogram clustered gap 1; set style fill solid 0.85 border -1"
    echo "set logscale y; set grid ytics; set key outside right top vertical; set ylabel 'tps'"
    echo "set datafile missing 'NaN'; set termoption noenhanced"
    for w in "${files[@]}"; do
      local ncol colors
      ncol=$(head -n 1 "$dir/$w.dat" | wc -w)
      colors=$(head -n 1 "$dir/$w.dat" | cut -d' ' -f2- | tr ' ' '\n' | variant_color | tr '\n' ' ')
      if [[ $w == w1 ]]; then echo "set title 'W1 moving-point upserts (groups: synchronous_commit)'"
      else echo "set title '$(title_of "$w")'"; fi
      echo "plot for [i=2:$ncol] '$dir/$w.dat' using i:xtic(1) title columnheader(i) lc rgb word('$colors', i - 1)"
    done
    echo "unset multiplot"
  } >"$gp"
  gnuplot "$gp" 2>>"$RUN_LOG" || warn "gnuplot failed (see $RUN_LOG)"
}

write_report() {
  summarize_runs
  {
    echo "# geoidx benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "$RUN_HEADER"
    echo
    echo "## Throughput (median tps over $ROUNDS alternated rounds of ${DURATION}s; W1: $(w1_rounds) rounds of $(w1_seconds)s)"
    echo
    throughput_table
    echo
    echo "## Targets (issues 4 and 5)"
    echo
    targets_table
    local tt
    for tt in ${TRANSPORTS//,/ }; do
      [[ $tt == "${TRANSPORTS%%,*}" ]] && continue
      echo
      echo "### The same targets over $tt"
      echo
      targets_table "$tt"
    done
    echo
    if [[ -s $DROPIN_CSV ]]; then
      echo "## Drop-in: every other index's SQL on the geoidx table"
      echo
      echo "Each GiST / SP-GiST variant's script, its table swapped for the geoidx one, run 20 times with geoidx.rewrite_postgis on (lib/dropin.sh)."
      echo
      echo "| workload | variant | on the geoidx table |"
      echo "|---|---|---|"
      while IFS=, read -r w v verdict; do
        printf '| %s | %s | %s |\n' "$(title_of "$w")" "$v" "$verdict"
      done <"$DROPIN_CSV"
      echo
    fi
    echo "## Index builds"
    echo
    echo "create: the first CREATE INDEX, timed while the other loader ran on the other core."
    echo "reindex: REINDEX of the seed-2 (and zones) indexes, alternated and one at a time: the build target uses these."
    echo "The cluster allows one parallel maintenance worker: geoidx builds with it (GiST cannot); reindex_serial is geoidx's REINDEX with max_parallel_maintenance_workers = 0."
    echo
    builds_table
    echo
    echo "## W1 sizes"
    echo
    w1_table
    echo
    echo "## M1 latency per operation (all rounds pooled)"
    echo
    m1_table
    echo
    echo "## Latency percentiles (pgbench per-transaction log, all rounds pooled)"
    echo
    latency_table
    echo
    echo "Files: runs.csv (every run), summary.csv (medians), builds.csv, w1_sizes.csv, m1.csv, latency.csv, chart.png, logs/, latency-logs/."
  } >"$RESULTS_MD"
  make_chart
}
