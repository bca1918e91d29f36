#!/usr/bin/env python3
"""The 10 points nearest to a place, and how many lie within a radius, with geoidx.

    python3 examples/python/nearby.py ["host=... port=... dbname=... user=..."]

Without an argument it connects as libpq does from the PG* environment
variables. The first run creates the extension (if it can) and a demo table of
20,000 points around Paris with a geoidx index; later runs reuse them.
"""
import sys

import psycopg

CENTRE = "SRID=4326;POINT(2.3522 48.8566)"  # EWKT: a text parameter PostgreSQL reads as geometry
RADIUS = 1000.0                              # metres
K = 10

# The points come from PostgreSQL's own seeded random(), so every client that
# runs this creates the same table.
SETUP = """
CREATE EXTENSION IF NOT EXISTS geoidx CASCADE;
CREATE TABLE nearby_demo (id int PRIMARY KEY, cat int NOT NULL, pos geometry(Point, 4326) NOT NULL);
SELECT setseed(0.42);
INSERT INTO nearby_demo
SELECT i, i % 8, ST_SetSRID(ST_MakePoint(2.3522 + 0.3 * (random() - 0.5), 48.8566 + 0.2 * (random() - 0.5)), 4326)
FROM generate_series(1, 20000) i;
CREATE INDEX nearby_demo_pos ON nearby_demo USING geoidx (pos);
ANALYZE nearby_demo;
"""

NEAREST = """
SELECT id, cat, pos <~> %s AS metres
FROM nearby_demo
ORDER BY pos <~> %s
LIMIT %s
"""

WITHIN = "SELECT count(*) FROM nearby_demo WHERE geoidx_dwithin(pos, %s, %s)"


def main():
    conninfo = sys.argv[1] if len(sys.argv) > 1 else ""
    with psycopg.connect(conninfo, autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('nearby_demo') IS NULL").fetchone()[0]:
            conn.execute(SETUP)
            print("created table nearby_demo: 20000 points, geoidx index nearby_demo_pos")

        # Bound parameters, never string formatting: psycopg sends them apart from the SQL.
        rows = conn.execute(NEAREST, (CENTRE, CENTRE, K)).fetchall()
        print(f"the {K} nearest to {CENTRE}:")
        print(f"{'id':>8} {'cat':>4} {'metres':>10}")
        for id_, cat, metres in rows:
            print(f"{id_:>8} {cat:>4} {metres:>10.2f}")

        (count,) = conn.execute(WITHIN, (CENTRE, RADIUS)).fetchone()
        print(f"within {RADIUS:.0f} m: {count}")


if __name__ == "__main__":
    main()
