#!/usr/bin/env bash
# Citus with geoidx, in one command, for anyone with Citus installed (it is
# not in Debian's archive, so CI cannot run this): a coordinator and two
# workers on loopback (ports 9700-9702, a temporary directory), a table
# distributed by location (geoidx_cell(pos, 6) in a plain column) and one
# distributed by tenant, each compared with the same rows in a local table
# and with PostGIS geography:
#   radius (the covering cells name the shards), k-NN, filtered k-NN, keyset
#   paging, a join with a reference table, count; and pruning: the task count
#   of every query with a geoidx index equals the task count without one
#   (geoidx's planner rewrites must never cost Citus a pruning), and a 1 km
#   radius reaches at most 2 shards. geoidx_verify on every shard through
#   run_command_on_shards.
#
#   test/citus/run.sh            build and install geoidx first (make install)
#   PG_BIN=/usr/lib/postgresql/15/bin test/citus/run.sh
#   test/citus/run.sh --bench    then time k = 10 nearest (pgbench, 2 clients,
#                                prepared, 5 s each, twice): the local table,
#                                the table distributed by tenant (every shard),
#                                by cell through the cells, the centre's cell
#                                alone (one shard: its cost, not an exact k-NN),
#                                and Citus's own floor (one row by its
#                                distribution column); prints each / local
#
# Run as a user that may run PostgreSQL (not root). Exit 77 when Citus is not
# installed. Prints "N passed, M failed" last.
set -euo pipefail
bench=0
[[ ${1:-} == --bench ]] && bench=1

PG_BIN=${PG_BIN:-$(pg_config --bindir)}
LIBDIR=$("$PG_BIN/pg_config" --pkglibdir 2>/dev/null || pg_config --pkglibdir)
if [[ ! -e $LIBDIR/citus.so ]]; then
	echo "Citus is not installed ($LIBDIR/citus.so is missing): nothing to run" >&2
	exit 77
fi
[[ $EUID -ne 0 ]] || { echo "run as an unprivileged user: PostgreSQL refuses root" >&2; exit 2; }

dir=$(mktemp -d /tmp/geoidx-citus.XXXXXX)
ports=(9700 9701 9702)
stop_all() {
	for p in "${ports[@]}"; do
		[[ -d $dir/n$p ]] && "$PG_BIN/pg_ctl" -D "$dir/n$p" -m immediate stop >/dev/null 2>&1 || true
	done
	rm -rf "$dir"
}
trap stop_all EXIT

for p in "${ports[@]}"; do
	"$PG_BIN/initdb" -D "$dir/n$p" --auth=trust --no-locale -E UTF8 >/dev/null
	cat >>"$dir/n$p/postgresql.conf" <<CONF
port = $p
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
shared_preload_libraries = 'citus'
max_connections = 100
jit = off
CONF
	"$PG_BIN/pg_ctl" -D "$dir/n$p" -l "$dir/n$p.log" -w start >/dev/null
	"$PG_BIN/psql" -X -q -h "$dir" -p "$p" -d postgres -c 'CREATE EXTENSION citus' >/dev/null
done
coord() { "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$dir" -p 9700 -d postgres "$@"; }
coord -c "SELECT citus_set_coordinator_host('127.0.0.1', 9700)" \
	-c "SELECT citus_add_node('127.0.0.1', 9701)" \
	-c "SELECT citus_add_node('127.0.0.1', 9702)" >/dev/null
coord -c 'CREATE EXTENSION geoidx CASCADE' >/dev/null

passed=0 failed=0
check() { # name got want
	if [[ $2 == "$3" ]]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		printf 'FAILED: %s\n  got:  %s\n  want: %s\n' "$1" "$2" "$3"
	fi
}
tasks() { # the task count of a query's distributed plan
	coord -c "EXPLAIN (COSTS OFF) $1" | sed -n 's/.*Task Count: \([0-9]*\).*/\1/p' | head -1
}

# 200k points: 60 % in three dense cities, the rest uniform; tenant 0..49.
coord <<'SQL' >/dev/null
SELECT setseed(0.14);
CREATE TABLE src AS
SELECT i AS id, i % 50 AS tenant,
	CASE WHEN i % 5 < 3 THEN ST_SetSRID(ST_MakePoint((ARRAY[-73.98, 2.35, 139.69])[1 + i % 3] + 0.3 * (random() - 0.5),
	                                                  (ARRAY[40.75, 48.86, 35.69])[1 + i % 3] + 0.3 * (random() - 0.5)), 4326)
	     ELSE ST_SetSRID(ST_MakePoint(360 * random() - 180, degrees(asin(2 * random() - 1))), 4326) END AS pos
FROM generate_series(1, 200000) i;
CREATE TABLE local_fleet AS SELECT *, geoidx_cell(pos, 6) AS cell FROM src;
CREATE INDEX ON local_fleet USING geoidx (pos, tenant);
CREATE TABLE by_cell (id int, tenant int, pos geometry(Point, 4326), cell bigint);
SELECT create_distributed_table('by_cell', 'cell', shard_count => 8);
INSERT INTO by_cell SELECT id, tenant, pos, geoidx_cell(pos, 6) FROM src;
CREATE INDEX ON by_cell USING geoidx (pos, cell, tenant);
CREATE TABLE by_tenant (id int, tenant int, pos geometry(Point, 4326));
SELECT create_distributed_table('by_tenant', 'tenant', shard_count => 8);
INSERT INTO by_tenant SELECT id, tenant, pos FROM src;
CREATE TABLE centres (c int PRIMARY KEY, pos geometry(Point, 4326));
SELECT create_reference_table('centres');
INSERT INTO centres VALUES (1, 'SRID=4326;POINT(-73.98 40.75)'), (2, 'SRID=4326;POINT(2.35 48.86)'),
	(3, 'SRID=4326;POINT(179.9 0)'), (4, 'SRID=4326;POINT(0 89.9)');
ANALYZE local_fleet; ANALYZE by_cell; ANALYZE by_tenant;
CREATE INDEX ON src (id);
-- The k nearest on a table distributed by cell, reaching only the shards of
-- the cells a circle can touch: the k nearest within the covering of r; when
-- k came back and the k-th lies within r, no row outside is nearer (exact);
-- when k came back farther than r, the k-th distance is a radius that holds
-- k rows, so one more query is exact; fewer than k: widen r fourfold. The
-- cells and the centre go into the text as constants, so Citus prunes shards
-- when it plans; the rows are read one by one (a plain ORDER BY ... LIMIT,
-- which Citus merges from the shards; an aggregate over it would make Citus
-- plan a subquery and ship an intermediate result).
CREATE FUNCTION nearest_by_cells(c geometry, k int, r float8 DEFAULT 20000)
RETURNS TABLE (id int, d float8) LANGUAGE plpgsql STABLE AS $$
DECLARE
  ids int[]; ds float8[]; row record;
BEGIN
  LOOP
    ids := '{}'; ds := '{}';
    FOR row IN EXECUTE format('SELECT b.id, b.pos <~> %1$L::geometry AS dist FROM by_cell b'
                              ' WHERE b.cell = ANY (%2$L::bigint[]) ORDER BY 2 LIMIT %3$s',
                              c, geoidx_covering_cells(c, r, 6), k) LOOP
      ids := ids || row.id; ds := ds || row.dist;
    END LOOP;
    EXIT WHEN (cardinality(ids) = k AND ds[k] <= r) OR r >= 2.1e7;
    r := CASE WHEN cardinality(ids) = k THEN ds[k] ELSE least(r * 4, 2.1e7) END;
  END LOOP;
  RETURN QUERY SELECT u.id, u.d FROM unnest(ids, ds) u(id, d);
END $$;
SQL

hash_of() { echo "SELECT count(*) || ':' || coalesce(sum(hashint4(id)), 0) FROM ($1) q"; }
for c in "-73.98 40.75" "2.35 48.86" "179.9 0" "0 89.9" "139.6 35.6"; do
	p="ST_SetSRID(ST_MakePoint(${c% *}, ${c#* }), 4326)"
	for r in 1000 20000 300000; do
		cells="cell = ANY (geoidx_covering_cells($p, $r, 6))"
		want=$(coord -c "$(hash_of "SELECT id FROM local_fleet WHERE ST_DWithin(pos::geography, $p::geography, $r)")")
		check "radius $r at ($c) by cell" \
			"$(coord -c "$(hash_of "SELECT id FROM by_cell WHERE $cells AND geoidx_dwithin(pos, $p, $r)")")" "$want"
		check "radius $r at ($c) by tenant" \
			"$(coord -c "$(hash_of "SELECT id FROM by_tenant WHERE geoidx_dwithin(pos, $p, $r)")")" "$want"
		if ((r == 1000)); then
			n=$(tasks "SELECT id FROM by_cell WHERE $cells AND geoidx_dwithin(pos, $p, $r)")
			check "a 1 km radius at ($c) reaches at most 2 shards" "$((n <= 2))" 1
		fi
	done
	knn="SELECT string_agg(round(d::numeric, 6)::text, ',' ORDER BY d) FROM (SELECT %s AS d FROM %s %s ORDER BY 1 LIMIT %s) s"
	for k in 1 10 100; do
		want=$(coord -c "$(printf "$knn" "ST_Distance(pos::geography, $p::geography)" local_fleet '' "$k")")
		check "$k nearest to ($c) by cell" "$(coord -c "$(printf "$knn" "pos <~> $p" by_cell '' "$k")")" "$want"
		check "$k nearest to ($c) by cell through the cells" \
			"$(coord -c "$(printf "$knn" d "nearest_by_cells($p, $k)" '' "$k")")" "$want"
		want=$(coord -c "$(printf "$knn" "ST_Distance(pos::geography, $p::geography)" local_fleet 'WHERE tenant IN (3, 7)' "$k")")
		check "$k nearest to ($c), tenant IN (3, 7), by tenant" \
			"$(coord -c "$(printf "$knn" "pos <~> $p" by_tenant 'WHERE tenant IN (3, 7)' "$k")")" "$want"
	done
	# keyset paging: page 3 of 10 from the 20th distance on
	bound=$(coord -c "SELECT ST_Distance(pos::geography, $p::geography) FROM local_fleet ORDER BY 1 LIMIT 1 OFFSET 19")
	check "page 3 at ($c)" \
		"$(coord -c "$(printf "$knn" "pos <~> $p" by_cell "WHERE pos <~> $p > $bound" 10)")" \
		"$(coord -c "$(printf "$knn" "ST_Distance(pos::geography, $p::geography)" local_fleet "WHERE ST_Distance(pos::geography, $p::geography) > $bound" 10)")"
done
check "join with a reference table" \
	"$(coord -c "SELECT count(*) FROM by_tenant f JOIN centres c ON geoidx_dwithin(f.pos, c.pos, 50000)")" \
	"$(coord -c "SELECT count(*) FROM local_fleet f JOIN centres c ON ST_DWithin(f.pos::geography, c.pos::geography, 50000)")"

# pruning: every query's task count with geoidx's index equals it without
queries=("SELECT id FROM by_tenant WHERE tenant IN (1, 2) AND geoidx_dwithin(pos, 'SRID=4326;POINT(2.35 48.86)', 5000)"
	"SELECT id FROM by_tenant WHERE tenant = 3 ORDER BY pos <~> 'SRID=4326;POINT(2.35 48.86)' LIMIT 5"
	"SELECT id FROM by_tenant WHERE tenant = ANY ('{4,5}') AND pos <~> 'SRID=4326;POINT(2.35 48.86)' < 9000")
declare -a with
for q in "${queries[@]}"; do with+=("$(tasks "$q")"); done
coord -c 'CREATE INDEX by_tenant_pos ON by_tenant USING geoidx (pos, tenant)' >/dev/null
for i in "${!queries[@]}"; do
	check "task count with a geoidx index: ${queries[$i]}" "$(tasks "${queries[$i]}")" "${with[$i]}"
done
check "tenant IN (1, 2) reaches at most 2 shards" "$(( $(tasks "${queries[0]}") <= 2 ))" 1

check "geoidx_verify on every shard" \
	"$(coord -c "SELECT count(*) FILTER (WHERE success) || '/' || count(*) FROM run_command_on_shards('by_cell', \$\$SELECT geoidx_verify(i.indexrelid::regclass) FROM pg_index i WHERE i.indrelid = '%s'::regclass\$\$)")" \
	"8/8"

if ((bench)); then
	# CPU-bound on 2 cores: coordinator, workers and pgbench share them.
	coord -c "ALTER SYSTEM SET citus.max_adaptive_executor_pool_size = 1" -c "SELECT pg_reload_conf()" >/dev/null
	pre='\set id random(1, 200000)
SELECT ST_X(pos) AS lon, ST_Y(pos) AS lat, geoidx_cell(pos, 6) AS cell FROM src WHERE id = :id \gset'
	c='ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)'
	declare -A sql=(
		[local]="SELECT id FROM local_fleet ORDER BY pos <~> $c LIMIT 10;"
		[by_tenant]="SELECT id FROM by_tenant ORDER BY pos <~> $c LIMIT 10;"
		[by_cell_cells]="SELECT id FROM nearest_by_cells($c, 10);"
		[by_cell_one_shard]="SELECT id FROM by_cell WHERE cell = :cell ORDER BY pos <~> $c LIMIT 10;"
		[citus_floor]="SELECT id FROM by_cell WHERE cell = :cell LIMIT 1;"
	)
	order=(local by_tenant by_cell_cells by_cell_one_shard citus_floor)
	declare -A best=()
	for round in 1 2; do
		for v in "${order[@]}"; do
			printf '%s\n%s\n' "$pre" "${sql[$v]}" >"$dir/$v.sql"
			tps=$("$PG_BIN/pgbench" -n -M prepared -c 2 -j 2 -T 5 -f "$dir/$v.sql" -h "$dir" -p 9700 postgres 2>&1 |
				sed -n 's/^tps = \([0-9.]*\).*/\1/p')
			printf 'bench round %s %-18s %9.1f tps\n' "$round" "$v" "$tps"
			best[$v]=$(awk -v a="${best[$v]:-0}" -v b="$tps" 'BEGIN { print (b > a ? b : a) }')
		done
	done
	for v in "${order[@]}"; do
		printf 'k = 10 nearest, %-18s %9.1f tps  %.3fx local\n' "$v" "${best[$v]}" \
			"$(awk -v a="${best[$v]}" -v b="${best[local]}" 'BEGIN { print a / b }')"
	done
fi

echo "$passed passed, $failed failed"
((failed == 0))
