#!/usr/bin/env python3
"""geoidx through psycopg 3 with server-side prepared statements, checked against PostGIS.

    python3 test/clients/test_psycopg.py "host=... port=... dbname=..."

The database must hold the extension and the table pts(id, cat, pos) with
geoidx indexes on it (test/clients/run loads them). Every geoidx answer is
compared with PostGIS's geography answer computed on a second connection that
cannot use an index; every statement must end up on a generic plan that
scans a geoidx index with its parameters unknown at plan time. Exits 1 on
any mismatch.
"""
import re
import sys

import psycopg

from checks import Checks  # test/clients/checks.py, beside this file

CENTRES = [
    (2.35, 48.86),     # inside a dense cluster
    (-60.0, 20.0),     # a cluster ~10 m across: thousands of points at almost one distance
    (-73.98, 40.75),
    (179.99, 5.0),     # just west of the antimeridian: answers come from both sides
    (-180.0, -3.0),    # on it
    (0.0, 90.0),       # the north pole: hundreds of points at distance 0 (ties)
    (45.0, -89.9),     # next to the south pole
    (112.0, -7.0),
]
# Largest first: the plan cache compares a generic plan with the average of the
# first custom ones, and geoidx estimates a small circle as cheaper than the
# generic plan's default guess, so small radii first would keep it custom.
RADII = [5000000.0, 300000.0, 5000.0, 100.0]
KS = [1, 10, 100, 1000]
CAT_KS = [10, 100]

# The leading comment finds each statement in pg_prepared_statements.
RADIUS = ("/* client:radius */ SELECT id FROM pts"
          " WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326), %(r)s)")
KNN = ("/* client:knn */ SELECT id, pos <~> ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326) AS metres"
       " FROM pts ORDER BY pos <~> ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326) LIMIT %(k)s")
# The centre as an EWKT text parameter this time, and a filter on the second key column.
KNN_CAT = ("/* client:knn_cat */ SELECT id, pos <~> %(c)s::geometry AS metres FROM pts"
           " WHERE cat = %(cat)s ORDER BY pos <~> %(c)s::geometry LIMIT %(k)s")

# PostGIS's own SQL, as an app sends it, with every value a parameter (the
# radius too): geoidx's rewrite must give it the geoidx index in a generic plan.
PG_RADIUS = ("/* client:pg_radius */ SELECT id FROM pts WHERE ST_DWithin(pos::geography,"
             " ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326)::geography, %(r)s)")
PG_KNN = ("/* client:pg_knn */ SELECT id, ST_Distance(pos::geography,"
          " ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326)::geography) AS metres FROM pts"
          " ORDER BY ST_Distance(pos::geography, ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326)::geography)"
          " LIMIT %(k)s")

# PostGIS's planar SQL as map clients and GiST users send it: the viewport box,
# ST_DWithin in degrees, the nearest in degrees, and geography's <-> (the sphere).
PG_VIEWPORT = ("/* client:pg_viewport */ SELECT id FROM pts"
               " WHERE pos && ST_MakeEnvelope(%(x0)s, %(y0)s, %(x1)s, %(y1)s, 4326)")
PG_DEGREES = ("/* client:pg_degrees */ SELECT id FROM pts"
              " WHERE ST_DWithin(pos, ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326), %(d)s)")
PG_PLANAR_KNN = ("/* client:pg_planar_knn */ SELECT id, pos <-> ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326)"
                 " FROM pts ORDER BY pos <-> ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326) LIMIT %(k)s")
PG_SPHERE_KNN = ("/* client:pg_sphere_knn */ SELECT id, pos::geography <->"
                 " ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326)::geography FROM pts"
                 " ORDER BY pos::geography <-> ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326)::geography"
                 " LIMIT %(k)s")
REF_VIEWPORT = "SELECT id FROM pts WHERE pos && ST_MakeEnvelope(%(x0)s, %(y0)s, %(x1)s, %(y1)s, 4326)"
REF_DEGREES = "SELECT id FROM pts WHERE ST_DWithin(pos, ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326), %(d)s)"
REF_PLANAR_KNN = ("SELECT id, pos <-> ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326) AS d"
                  " FROM pts ORDER BY d FETCH FIRST %(k)s ROWS WITH TIES")
REF_SPHERE_KNN = ("SELECT id, pos::geography <-> ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326)::geography AS d"
                  " FROM pts ORDER BY d FETCH FIRST %(k)s ROWS WITH TIES")

REF_RADIUS = ("SELECT id FROM pts WHERE ST_DWithin(pos::geography,"
              " ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326)::geography, %(r)s)")
# WITH TIES: every row tied with the k-th, so that any choice among them can be accepted.
REF_KNN = ("SELECT id, ST_Distance(pos::geography, ST_SetSRID(ST_MakePoint(%(lon)s, %(lat)s), 4326)::geography) AS d"
           " FROM pts WHERE %(cat)s::int IS NULL OR cat = %(cat)s ORDER BY d FETCH FIRST %(k)s ROWS WITH TIES")


def knn_mismatch(got, ref, k):
    """Why the k-NN rows got differ from PostGIS's ref (ordered, with ties), or None."""
    want = [d for _, d in ref[:k]]
    have = [d for _, d in got]
    if have != want:  # float8 equality, in order
        bad = next((i for i, (a, b) in enumerate(zip(have, want)) if a != b), min(len(have), len(want)))
        return f"distance #{bad} differs: {have[bad:bad + 3]} vs PostGIS {want[bad:bad + 3]} ({len(have)} vs {len(want)} rows)"
    last = have[-1] if have else None
    for d in sorted(set(have)):
        ids = {i for i, x in got if x == d}
        ref_ids = {i for i, x in ref if x == d}
        # The rows tied at the last distance may be any of those PostGIS has there.
        if ids != ref_ids and not (d == last and ids < ref_ids):
            return f"ids at distance {d}: {sorted(ids)[:5]}... vs PostGIS {sorted(ref_ids)[:5]}..."
    if len({i for i, _ in got}) != len(got):
        return "a row is returned twice"
    return None


class Session:
    """The connection under test: auto_explain's NOTICE of each execution is kept.

    It has geoidx's rewrite of PostGIS's SQL on (the default, which the test
    cluster turns off so that the reference connection's SQL stays PostGIS's).
    """

    def __init__(self, conninfo):
        self.conn = psycopg.connect(conninfo, autocommit=True)
        self.conn.execute("SET geoidx.rewrite_postgis = on")
        self.notices = []
        self.conn.add_notice_handler(lambda diag: self.notices.append(diag.message_primary))
        self.conn.execute("LOAD 'auto_explain'")
        self.conn.execute("SET auto_explain.log_min_duration = 0")
        self.conn.execute("SET auto_explain.log_level = notice")

    def run(self, query, params):
        self.notices.clear()
        rows = self.conn.execute(query, params, prepare=True).fetchall()
        self.last_plans = [n for n in self.notices if "plan:" in n]
        return rows

    def plan_counts(self, tag):
        rows = self.conn.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE NOT from_sql AND strpos(statement, %s) > 0", (tag,), prepare=False).fetchall()
        return rows[0] if len(rows) == 1 else (None, None)


def prove_generic(t, s, tag, indexes, cond):
    """The last execution of the statement tagged tag ran a generic plan scanning a geoidx index."""
    generic, custom = s.plan_counts(tag)
    t.check(generic is not None and generic > 0,
            f"{tag}: no generic plan in pg_prepared_statements (generic {generic}, custom {custom})")
    plan = s.last_plans[-1] if len(s.last_plans) == 1 else ""
    scan = re.search(r"(?:Index Scan|Index Only Scan) using (\S+)|Bitmap Index Scan on (\S+)", plan)
    t.check(scan is not None and (scan.group(1) or scan.group(2)) in indexes,
            f"{tag}: the last execution scanned no geoidx index:\n{plan}")
    # A custom plan shows the values; only a generic one keeps $n in the index condition.
    conds = [line for line in plan.splitlines() if line.strip().startswith(cond)]
    t.check(any(re.search(r"\$\d+", line) for line in conds),
            f"{tag}: no $n parameter in '{cond}' of the last execution's plan:\n{plan}")
    print(f"  {tag.strip('/* ')}: {generic} generic, {custom} custom plans; last plan: {scan.group(0) if scan else '?'}")


def main():
    conninfo = sys.argv[1] if len(sys.argv) > 1 else ""
    t = Checks()
    s = Session(conninfo)
    ref = psycopg.connect(conninfo, autocommit=True)
    for setting in ("enable_indexscan", "enable_bitmapscan", "enable_indexonlyscan"):
        ref.execute(f"SET {setting} = off")

    indexes = {r[0] for r in ref.execute(
        "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
        " JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = 'pts'::regclass AND a.amname = 'geoidx'")}
    t.check(len(indexes) > 0, "pts has no geoidx index")
    ref_plan = "\n".join(r[0] for r in ref.execute(
        "EXPLAIN " + REF_KNN, {"lon": 0.0, "lat": 0.0, "cat": None, "k": 10}))
    t.check("Seq Scan" in ref_plan and not any(i in ref_plan for i in indexes),
            f"the PostGIS reference is not a sequential scan:\n{ref_plan}")

    print("radius: geoidx_dwithin vs ST_DWithin(geography)")
    for r in RADII:
        for lon, lat in CENTRES:
            p = {"lon": lon, "lat": lat, "r": r}
            got = [row[0] for row in s.run(RADIUS, p)]
            want = {row[0] for row in ref.execute(REF_RADIUS, p)}
            t.check(len(got) == len(set(got)) and set(got) == want,
                    f"radius ({lon}, {lat}) {r} m: {len(got)} rows, PostGIS {len(want)};"
                    f" only geoidx: {sorted(set(got) - want)[:5]}, only PostGIS: {sorted(want - set(got))[:5]}")
    prove_generic(t, s, "/* client:radius */", indexes, "Index Cond:")

    print("radius: PostGIS's ST_DWithin(geography) sent unchanged, rewritten, vs the same SQL on PostGIS")
    for r in RADII + [-1.0, float("nan")]:  # a negative or NaN radius: false, as PostGIS says
        for lon, lat in CENTRES:
            p = {"lon": lon, "lat": lat, "r": r}
            got = [row[0] for row in s.run(PG_RADIUS, p)]
            want = {row[0] for row in ref.execute(REF_RADIUS, p)}
            t.check(len(got) == len(set(got)) and set(got) == want,
                    f"PostGIS form, radius ({lon}, {lat}) {r} m: {len(got)} rows, PostGIS {len(want)}")
    prove_generic(t, s, "/* client:pg_radius */", indexes, "Index Cond:")

    refs = {}

    def knn_battery(query, tag, cases):
        for lon, lat, cat, k in cases:
            key = (lon, lat, cat, k)
            if key not in refs:
                refs[key] = ref.execute(REF_KNN, {"lon": lon, "lat": lat, "cat": cat, "k": k}).fetchall()
            p = {"lon": lon, "lat": lat, "c": f"SRID=4326;POINT({lon!r} {lat!r})", "cat": cat, "k": k}
            why = knn_mismatch(s.run(query, p), refs[key], k)
            t.check(why is None, f"{tag} ({lon}, {lat}) cat {cat} k {k}: {why}")

    knn_cases = [(lon, lat, None, k) for lon, lat in CENTRES for k in KS]
    cat_cases = [(lon, lat, i % 10, k) for i, (lon, lat) in enumerate(CENTRES) for k in CAT_KS]
    print("k-NN: ORDER BY pos <~> c LIMIT k vs ORDER BY ST_Distance(geography), plan_cache_mode = auto")
    knn_battery(KNN, "knn", knn_cases)
    knn_battery(KNN_CAT, "knn_cat", cat_cases)
    for tag in ("/* client:knn */", "/* client:knn_cat */"):
        generic, custom = s.plan_counts(tag)
        print(f"  {tag.strip('/* ')}: {generic} generic, {custom} custom plans")
    # PostgreSQL costs LIMIT $n as 10 % of the rows, so under auto the generic plan
    # of a small-k query looks dearer than every custom one and is never chosen:
    # force it to run geoidx's k-NN with the centre and k unknown at plan time.
    print("k-NN again, plan_cache_mode = force_generic_plan")
    s.conn.execute("SET plan_cache_mode = force_generic_plan")
    knn_battery(KNN, "knn", knn_cases)
    prove_generic(t, s, "/* client:knn */", indexes, "Order By:")
    knn_battery(KNN_CAT, "knn_cat", cat_cases)
    prove_generic(t, s, "/* client:knn_cat */", indexes, "Order By:")
    print("k-NN: PostGIS's ORDER BY ST_Distance(geography) LIMIT k sent unchanged, rewritten")
    knn_battery(PG_KNN, "pg_knn", knn_cases)
    prove_generic(t, s, "/* client:pg_knn */", indexes, "Order By:")

    print("planar: PostGIS's pos && ST_MakeEnvelope(...) and ST_DWithin(pos, c, degrees), sent unchanged")
    s.conn.execute("SET plan_cache_mode = force_generic_plan")
    for lon, lat in CENTRES:
        for w in (0.001, 0.1, 2.0):
            p = {"x0": lon - w, "y0": lat - w, "x1": lon + w, "y1": lat + w}
            got = [row[0] for row in s.run(PG_VIEWPORT, p)]
            want = {row[0] for row in ref.execute(REF_VIEWPORT, p)}
            t.check(len(got) == len(set(got)) and set(got) == want,
                    f"viewport ({lon}, {lat}) {w}: {len(got)} rows, PostGIS {len(want)}")
            p = {"lon": lon, "lat": lat, "d": w}
            got = [row[0] for row in s.run(PG_DEGREES, p)]
            want = {row[0] for row in ref.execute(REF_DEGREES, p)}
            t.check(len(got) == len(set(got)) and set(got) == want,
                    f"degrees ({lon}, {lat}) {w}: {len(got)} rows, PostGIS {len(want)}")
    prove_generic(t, s, "/* client:pg_viewport */", indexes, "Index Cond:")
    prove_generic(t, s, "/* client:pg_degrees */", indexes, "Index Cond:")

    print("k-NN: PostGIS's ORDER BY pos <-> c (degrees) and pos::geography <-> c::geography (sphere), unchanged")
    for query, reference, tag in ((PG_PLANAR_KNN, REF_PLANAR_KNN, "pg_planar_knn"),
                                  (PG_SPHERE_KNN, REF_SPHERE_KNN, "pg_sphere_knn")):
        for lon, lat in CENTRES:
            for k in KS:
                p = {"lon": lon, "lat": lat, "k": k}
                why = knn_mismatch(s.run(query, p), ref.execute(reference, p).fetchall(), k)
                t.check(why is None, f"{tag} ({lon}, {lat}) k {k}: {why}")
        prove_generic(t, s, f"/* client:{tag} */", indexes, "Order By:")

    print(f"psycopg: {t.passed} passed, {t.failed} failed")
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
