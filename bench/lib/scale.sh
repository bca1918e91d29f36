# shellcheck shell=bash
# shellcheck disable=SC2153 # SCALE_POINTS, DURATION, ROUNDS, ... are set by bench/run
# shellcheck disable=SC2016 # the chart's $2 are gnuplot's, not the shell's
# bench/run --scale: how load, build, size and query latency grow with the
# number of points (1 M, 10 M, 100 M by default).
#
# For each size N: one table `scale` of N points uniform on the sphere
# (uniform.sql, world's distribution with its own seed), its heap VACUUMed and ANALYZEd, then
# three indexes on it, each build timed alone and sized: geoidx (with the
# cluster's one parallel maintenance worker, as every build in bench/),
# GiST(geometry), GiST(geography). Then, with each index's own query form
# (workloads/scale/<workload>_<variant>.sql), variants alternated within
# each round, 1 client, prepared, Unix socket, the average latency of:
#   r1     the ids within 200 km (the answer grows with N)
#   r1n    the ids within the radius that holds about 100 of N uniform
#          points (the answer stays the same: the cost of the tree alone)
#   k1     the 10 nearest
#   r2     within 5 km, nearest first, LIMIT 100
# With tid in --scale-variants, r1n, k1 and r2 also run on 4,096 fixed
# centres twice: geoidx's query (geoidx_fixed), and the TID scan of the same
# answers (tid), the floor any index would reach if it found its answer for
# free. Each run checks that its index was the one read (buffer counts of that
# index, as idx_scans does; the TID scan, that it read none of geoidx's). The
# table is dropped before the next size: 100 M points and three indexes take
# ~20 GB.
#
# scale.csv ($SCALE_CSV): points,item,variant,round,value where item is
#   load_ms, table_bytes, build_ms, index_bytes, depth (geoidx only),
#   lat_ms:<workload>, rows:<workload> (the average answer, from 20 queries).

# The indexes built (--scale-variants; tid is no index, see scale_make_tids).
read -r -a SCALE_VARIANTS <<<"$(tr ',' ' ' <<<"${SCALE_VARIANT_LIST/tid/}")"
SCALE_TID=0
[[ ,$SCALE_VARIANT_LIST, == *,tid,* ]] && SCALE_TID=1
# The floor pair, both on the same fixed centres: geoidx's query, and its
# answers handed to the executor as heap TIDs (a TID Scan: no index work at
# all). 4,096 centres: at 100 M points their answers' heap pages (~400,000
# for R1n) are far more than shared_buffers holds, as random centres' are.
SCALE_FLOOR_VARIANTS=(geoidx_fixed tid)
SCALE_FLOOR_CENTRES=4096
SCALE_FLOOR_WORKLOADS=(r1n k1 r2)
declare -A SCALE_WI=([r1n]=1 [k1]=2 [r2]=3)
SCALE_WORKLOADS=(r1 r1n k1 r2)
declare -A SCALE_TITLE=(
  [r1]="R1 200 km ids" [r1n]="R1n about 100 ids" [k1]="K1 k=10" [r2]="R2 5 km nearest 100"
)

scale_index_ddl() { # variant
  case $1 in
    geoidx) echo "CREATE INDEX scale_geoidx ON scale USING geoidx (pos)" ;;
    gist_geom) echo "CREATE INDEX scale_gist_geom ON scale USING gist (pos)" ;;
    gist_geog) echo "CREATE INDEX scale_gist_geog ON scale USING gist ((pos::geography))" ;;
  esac
}

# The radius (metres) whose disc holds 100 of N points uniform on the sphere:
# 100 / N of the earth's 510.1 M km^2, as a disc on the mean sphere.
scale_r1n_radius() { # points
  awk -v n="$1" 'BEGIN {
    R = 6371008.8; area = 4 * 3.14159265358979 * R * R * 100 / n
    # a spherical cap of area A has angular radius acos(1 - A / (2 pi R^2))
    printf "%.0f\n", R * atan2(sqrt(1 - (1 - area / (2 * 3.14159265358979 * R * R))^2), 1 - area / (2 * 3.14159265358979 * R * R)) }'
}

scale_radius() { # workload points
  case $1 in
    r1) echo 200000 ;;
    r1n) scale_r1n_radius "$2" ;;
    *) echo 0 ;;
  esac
}

scale_record() { # points item variant round value
  printf '%s,%s,%s,%s,%s\n' "$@" >>"$SCALE_CSV"
}

scale_index_reads() { # index name: buffer hits + reads so far
  sql -c "SELECT coalesce(sum(idx_blks_hit + idx_blks_read), 0) FROM pg_statio_user_indexes WHERE indexrelname = '$1'"
}

# The average answer of a workload at this size, from 20 fixed centres (geoidx's form).
scale_rows() { # workload radius
  local q
  case $1 in
    r1 | r1n) q="SELECT count(*) FROM scale WHERE geoidx_dwithin(pos, c, $2)" ;;
    k1) q="SELECT count(*) FROM (SELECT 1 FROM scale ORDER BY pos <~> c LIMIT 10) s" ;;
    r2) q="SELECT count(*) FROM (SELECT 1 FROM scale WHERE geoidx_dwithin(pos, c, 5000) ORDER BY pos <~> c LIMIT 100) s" ;;
  esac
  sql -c "SELECT round(avg(n), 1) FROM (SELECT ST_Point(-180 + 360 * (g * 0.618034 % 1), degrees(asin(2 * (g * 0.414214 % 1) - 1)), 4326) AS c
            FROM generate_series(1, 20) g) cs, LATERAL ($q) AS r(n)"
}

# scale_tids: SCALE_FLOOR_CENTRES fixed centres per floor workload and the heap TIDs of
# geoidx's answer at each (wi: 1 r1n, 2 k1, 3 r2).
scale_make_tids() { # points
  local r1n
  r1n=$(scale_r1n_radius "$1")
  sql -c "SET client_min_messages = warning; DROP TABLE IF EXISTS scale_tids" >/dev/null
  sql -c "CREATE TABLE scale_tids AS
    WITH cs AS (SELECT g AS c, -180 + 360 * (g * 0.618034 % 1) AS lon, degrees(asin(2 * (g * 0.414214 % 1) - 1)) AS lat
                FROM generate_series(1, $SCALE_FLOOR_CENTRES) g)
    SELECT 1 AS wi, c, lon, lat, (SELECT array_agg(ctid) FROM scale
      WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(lon, lat), 4326), $r1n)) AS tids FROM cs
    UNION ALL
    SELECT 2, c, lon, lat, (SELECT array_agg(ctid) FROM (SELECT ctid FROM scale
      ORDER BY pos <~> ST_SetSRID(ST_MakePoint(lon, lat), 4326) LIMIT 10) s) FROM cs
    UNION ALL
    SELECT 3, c, lon, lat, (SELECT array_agg(ctid) FROM (SELECT ctid FROM scale
      WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(lon, lat), 4326), 5000)
      ORDER BY pos <~> ST_SetSRID(ST_MakePoint(lon, lat), 4326) LIMIT 100) s) FROM cs" >/dev/null
  sql -c "CREATE UNIQUE INDEX ON scale_tids (wi, c)" >/dev/null
  sql -c "ANALYZE scale_tids" >/dev/null
}

scale_one_size() { # points
  local n=$1 t0 ms v w round table_bytes log res tps lat failed before after radius used
  step "scale: $n points"
  [[ $(sql -c "SELECT to_regclass('scale') IS NULL") == t ]] || sql -c "DROP TABLE scale" >/dev/null
  t0=$(now_ms)
  sql -v points="$n" -v table=scale -v seed=0.4018 -f "$BENCH_DIR/sql/uniform.sql" >/dev/null
  sql -c "VACUUM ANALYZE scale" >/dev/null
  ms=$(($(now_ms) - t0))
  table_bytes=$(sql -c "SELECT pg_relation_size('scale')")
  scale_record "$n" load_ms - 1 "$ms"
  scale_record "$n" table_bytes - 1 "$table_bytes"
  step "scale: $n points loaded in $ms ms ($(sql -c "SELECT pg_size_pretty($table_bytes::bigint)"))"
  for v in "${SCALE_VARIANTS[@]}"; do
    [[ $v == geoidx* ]] && ((GEOIDX == 0)) && continue
    sql -c "CHECKPOINT" >/dev/null
    ms=$(sql_timed_try "$(scale_index_ddl "$v")") || die "scale: building the $v index on $n points failed"
    scale_record "$n" build_ms "$v" 1 "$ms"
    scale_record "$n" index_bytes "$v" 1 "$(sql -c "SELECT pg_relation_size('scale_$v')")"
    step "scale: $v built in $ms ms, $(sql -c "SELECT pg_size_pretty(pg_relation_size('scale_$v'))")"
  done
  if ((GEOIDX)); then
    scale_record "$n" depth geoidx 1 "$(sql -c "SELECT depth FROM geoidx_stats('scale_geoidx')")"
  fi
  sql -c "VACUUM ANALYZE scale" >/dev/null
  local floor=0 variants index
  if ((SCALE_TID && GEOIDX)) && [[ " ${SCALE_VARIANTS[*]} " == *" geoidx "* ]]; then
    scale_make_tids "$n"
    floor=1
  fi
  for w in "${SCALE_WORKLOADS[@]}"; do
    radius=$(scale_radius "$w" "$n")
    ((GEOIDX)) && scale_record "$n" "rows:$w" - 1 "$(scale_rows "$w" "$radius")"
    variants=("${SCALE_VARIANTS[@]}")
    ((floor)) && [[ " ${SCALE_FLOOR_WORKLOADS[*]} " == *" $w "* ]] && variants+=("${SCALE_FLOOR_VARIANTS[@]}")
    for ((round = 1; round <= ROUNDS; round++)); do
      for v in "${variants[@]}"; do
        [[ $v == geoidx* ]] && ((GEOIDX == 0)) && continue
        log="$RESULTS_DIR/logs/scale_${n}_${w}_${v}_r${round}.log"
        # the TID scan reads no index: check that it read none of geoidx's
        index=scale_$v
        [[ $v == geoidx_fixed || $v == tid ]] && index=scale_geoidx
        before=$(scale_index_reads "$index")
        res=$(pgb_run "$log" unix prepared 1 "$DURATION" -D radius="$radius" -D wi="${SCALE_WI[$w]:-0}" -D centres="$SCALE_FLOOR_CENTRES" \
          -f "$BENCH_DIR/workloads/scale/${w%n}_$v.sql") || {
          warn "scale $n $w $v failed (see $log)"
          continue
        }
        read -r tps lat failed <<<"$res"
        ((failed == 0)) || warn "scale $n $w $v: $failed failed transactions (see $log)"
        after=$(scale_index_reads "$index")
        if [[ $after == "$before" && $v != tid ]]; then
          sleep 0.3 # the backends' statistics are flushed when they exit
          after=$(scale_index_reads "$index")
        fi
        used=yes
        if [[ $v == tid ]]; then
          sleep 0.3
          [[ $(scale_index_reads "$index") == "$before" ]] ||
            loud "scale $n $w/tid: the TID scan read geoidx's index: this row measures something else"
        elif [[ $after == "$before" ]]; then
          used=no
          loud "scale $n $w/$v: index $index was NOT used: this row measures something else"
        fi
        scale_record "$n" "lat_ms:$w" "$v" "$round" "$lat"
        [[ $used == yes ]] || scale_record "$n" "unused:$w" "$v" "$round" 1
        step "$(printf 'scale %11s %-22s %-10s round %s/%s: %9.3f ms (%s tps)' "$n" "${SCALE_TITLE[$w]}" "$v" "$round" "$ROUNDS" "$lat" "$tps")"
      done
    done
  done
  sql -c "DROP TABLE scale" >/dev/null
  ((floor)) && sql -c "DROP TABLE scale_tids" >/dev/null
  return 0
}

run_scale() {
  local n
  echo "points,item,variant,round,value" >"$SCALE_CSV"
  for n in ${SCALE_POINTS//,/ }; do scale_one_size "$n"; done
}

# The median of an item over rounds ("" if none).
scale_value() { # points item variant
  awk -F, -v n="$1" -v i="$2" -v v="$3" 'NR > 1 && $1 == n && $2 == i && $3 == v { print $5 }' "$SCALE_CSV" | median
}

scale_nan() { echo "${1:-NaN}"; }
scale_seconds() { awk -v x="$1" 'BEGIN { if (x == "") print "-"; else printf "%.1f", x / 1000 }'; }
scale_size() { awk -v x="$1" 'BEGIN { if (x == "") print "-"; else printf "%.0f MB", x / 1048576 }'; }

# scale.md (the run's results.md) and chart.png: build time, index size and
# each workload's latency against the number of points.
write_scale_report() {
  local n v w sizes=() first last g b lat_first lat_last d_first d_last dir="$RESULTS_DIR/chart-data"
  read -r -a sizes <<<"${SCALE_POINTS//,/ }"
  first=${sizes[0]} last=${sizes[-1]}
  {
    echo "# geoidx scale run"
    echo
    echo "$RUN_HEADER"
    echo "- scale: ${SCALE_POINTS} points uniform on the sphere; 1 client, prepared, Unix socket; ${DURATION}s x $ROUNDS rounds, variants alternated; medians"
    echo
    echo "## Load, build and size"
    echo
    echo "| points | load + VACUUM ANALYZE s | table | geoidx build s | GiST(geometry) build s | GiST(geography) build s | geoidx / GiST(geometry) | geoidx size | GiST(geometry) size | GiST(geography) size | geoidx depth |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    for n in "${sizes[@]}"; do
      g=$(scale_value "$n" build_ms geoidx) b=$(scale_value "$n" build_ms gist_geom)
      printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" \
        "$(scale_seconds "$(scale_value "$n" load_ms -)")" "$(scale_size "$(scale_value "$n" table_bytes -)")" \
        "$(scale_seconds "$g")" "$(scale_seconds "$b")" "$(scale_seconds "$(scale_value "$n" build_ms gist_geog)")" \
        "$(awk -v g="${g:-0}" -v b="${b:-0}" 'BEGIN { if (g > 0 && b > 0) printf "%.2fx", g / b; else print "-" }')" \
        "$(scale_size "$(scale_value "$n" index_bytes geoidx)")" "$(scale_size "$(scale_value "$n" index_bytes gist_geom)")" \
        "$(scale_size "$(scale_value "$n" index_bytes gist_geog)")" "$(scale_value "$n" depth geoidx)"
    done
    echo
    echo "## Query latency (ms, 1 client)"
    echo
    echo "| workload | points | rows (avg) | geoidx | GiST(geometry) | GiST(geography) | GiST(geography) / geoidx |"
    echo "|---|---|---|---|---|---|---|"
    for w in "${SCALE_WORKLOADS[@]}"; do
      for n in "${sizes[@]}"; do
        g=$(scale_value "$n" "lat_ms:$w" geoidx) b=$(scale_value "$n" "lat_ms:$w" gist_geog)
        printf '| %s | %s | %s | %s | %s | %s | %s |\n' "${SCALE_TITLE[$w]}" "$n" \
          "$(scale_value "$n" "rows:$w" -)" "${g:--}" "$(scale_value "$n" "lat_ms:$w" gist_geom)" "${b:--}" \
          "$(awk -v g="${g:-0}" -v b="${b:-0}" 'BEGIN { if (g > 0 && b > 0) printf "%.1fx", b / g; else print "-" }')"
      done
    done
    if grep -q ',unused:' "$SCALE_CSV"; then
      echo
      echo "**Some runs did not read their index** (scale.csv, items unused:*): those rows measure something else."
    fi
    if ((SCALE_TID)); then
      echo
      echo "## The floor: geoidx's answers handed over as heap TIDs (ms, 1 client)"
      echo
      echo "Both on the same $SCALE_FLOOR_CENTRES fixed centres; each transaction also reads its centre from scale_tids (one primary-key row)."
      echo "A TID Scan does no index work at all: it is what any index would cost if it found its answer for free."
      echo
      echo "| workload | points | geoidx | TID scan | geoidx - TID scan | geoidx / TID scan |"
      echo "|---|---|---|---|---|---|"
      for w in "${SCALE_FLOOR_WORKLOADS[@]}"; do
        for n in "${sizes[@]}"; do
          g=$(scale_value "$n" "lat_ms:$w" geoidx_fixed) b=$(scale_value "$n" "lat_ms:$w" tid)
          printf '| %s | %s | %s | %s | %s | %s |\n' "${SCALE_TITLE[$w]}" "$n" "${g:--}" "${b:--}" \
            "$(awk -v g="${g:-0}" -v b="${b:-0}" 'BEGIN { if (g > 0 && b > 0) printf "%.3f", g - b; else print "-" }')" \
            "$(awk -v g="${g:-0}" -v b="${b:-0}" 'BEGIN { if (g > 0 && b > 0) printf "%.2fx", g / b; else print "-" }')"
        done
      done
    fi
    echo
    echo "## Growth from $first to $last points (geoidx)"
    echo
    d_first=$(scale_value "$first" depth geoidx) d_last=$(scale_value "$last" depth geoidx)
    echo "Tree depth: $d_first -> $d_last. The target: latency grows by at most the added levels' pages (one page per level)."
    echo
    for w in r1n k1 r2; do
      lat_first=$(scale_value "$first" "lat_ms:$w" geoidx) lat_last=$(scale_value "$last" "lat_ms:$w" geoidx)
      [[ -n $lat_first && -n $lat_last ]] || continue
      printf -- '- %s: %s ms -> %s ms (%s)\n' "${SCALE_TITLE[$w]}" "$lat_first" "$lat_last" \
        "$(awk -v a="$lat_first" -v b="$lat_last" 'BEGIN { printf "%+.3f ms, %.2fx", b - a, b / a }')"
    done
    if ((SCALE_TID)); then
      echo
      echo "The same on the $SCALE_FLOOR_CENTRES fixed centres, geoidx and the TID floor:"
      echo
      for w in "${SCALE_FLOOR_WORKLOADS[@]}"; do
        for v in geoidx_fixed tid; do
          lat_first=$(scale_value "$first" "lat_ms:$w" "$v") lat_last=$(scale_value "$last" "lat_ms:$w" "$v")
          [[ -n $lat_first && -n $lat_last ]] || continue
          printf -- '- %s, %s: %s ms -> %s ms (%s)\n' "${SCALE_TITLE[$w]}" "$([[ $v == tid ]] && echo "TID scan" || echo geoidx)" \
            "$lat_first" "$lat_last" "$(awk -v a="$lat_first" -v b="$lat_last" 'BEGIN { printf "%+.3f ms, %.2fx", b - a, b / a }')"
        done
      done
    fi
    echo
    echo "Files: scale.csv (every measurement), chart.png, logs/."
  } >"$RESULTS_MD"

  command -v gnuplot >/dev/null || { warn "no gnuplot: no chart"; return 0; }
  mkdir -p "$dir"
  for v in geoidx gist_geom gist_geog tid; do
    for n in "${sizes[@]}"; do
      # (a missing measurement: NaN, which gnuplot leaves out)
      printf '%s %s %s' "$n" "$(scale_nan "$(scale_value "$n" build_ms "$v")")" \
        "$(scale_nan "$(scale_value "$n" index_bytes "$v")")"
      for w in "${SCALE_WORKLOADS[@]}"; do printf ' %s' "$(scale_nan "$(scale_value "$n" "lat_ms:$w" "$v")")"; done
      echo
    done >"$dir/scale_$v.dat"
  done
  {
    echo "set terminal pngcairo size 1500,900 font 'sans,10'"
    echo "set output '$RESULTS_DIR/chart.png'"
    echo "set multiplot layout 2,3 title 'geoidx --scale: ${SCALE_POINTS} points uniform on the sphere (2 cores; 1 client for latency)'"
    echo "set logscale xy; set grid; set key top left; set xlabel 'points'; set format x '%.0s%c'"
    echo "set xrange [${first}/1.5:${last}*1.5]"
    local col
    echo "set title 'build (s)'"
    echo "plot '$dir/scale_geoidx.dat' using 1:(\$2/1000) with linespoints lw 2 title 'geoidx', '$dir/scale_gist_geom.dat' using 1:(\$2/1000) with linespoints title 'GiST(geometry)', '$dir/scale_gist_geog.dat' using 1:(\$2/1000) with linespoints title 'GiST(geography)'"
    echo "set title 'index size (MB)'"
    echo "plot '$dir/scale_geoidx.dat' using 1:(\$3/1048576) with linespoints lw 2 title 'geoidx', '$dir/scale_gist_geom.dat' using 1:(\$3/1048576) with linespoints title 'GiST(geometry)', '$dir/scale_gist_geog.dat' using 1:(\$3/1048576) with linespoints title 'GiST(geography)'"
    col=4
    for w in "${SCALE_WORKLOADS[@]}"; do
      echo "set title '${SCALE_TITLE[$w]}: latency (ms)'"
      echo "plot '$dir/scale_geoidx.dat' using 1:$col with linespoints lw 2 title 'geoidx', '$dir/scale_gist_geom.dat' using 1:$col with linespoints title 'GiST(geometry)', '$dir/scale_gist_geog.dat' using 1:$col with linespoints title 'GiST(geography)', '$dir/scale_tid.dat' using 1:$col with linespoints dt 2 title 'TID scan of the answers (the floor; fixed centres)'"
      col=$((col + 1))
    done
    echo "unset multiplot"
  } >"$dir/chart.gp"
  gnuplot "$dir/chart.gp" 2>>"$RUN_LOG" || warn "gnuplot failed (see $RUN_LOG)"
}
