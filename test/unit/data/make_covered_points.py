#!/usr/bin/env python3
"""Regenerate covered_points.txt: polygons, and the probe points PostGIS says they cover.

Asks PostGIS itself (ST_Covers on geography) which of many random probe points
each polygon covers, so that shape_bounds_test can check the claim the entry
box rests on: every point PostGIS calls covered lies in the box. The polygons
are where PostGIS's inside rule matters most: rings around the poles, across
the antimeridian, larger than a hemisphere (up to 120 degrees of radius), and
self-crossing bowties.

Usage: make_covered_points.py "psql -X -At -h HOST -p PORT -d DB" > covered_points.txt
(a database with PostGIS). Deterministic for a given PostGIS.
"""
import math
import random
import subprocess
import sys

psql = sys.argv[1].split()
rng = random.Random(20261202)


def star(clon, clat, radius_deg, n, bowtie):
    c = (math.cos(math.radians(clat)) * math.cos(math.radians(clon)),
         math.cos(math.radians(clat)) * math.sin(math.radians(clon)), math.sin(math.radians(clat)))
    east = (-math.sin(math.radians(clon)), math.cos(math.radians(clon)), 0.0)
    north = (c[1] * east[2] - c[2] * east[1], c[2] * east[0] - c[0] * east[2], c[0] * east[1] - c[1] * east[0])
    pts = []
    order = list(range(n))
    if bowtie:
        order[1], order[2] = order[2], order[1]
    for i in order:
        az = 2 * math.pi * (i + rng.uniform(0.25, 0.75)) / n
        r = math.radians(radius_deg) * rng.uniform(0.6, 1.0)
        dx, dy = math.sin(r) * math.cos(az), math.sin(r) * math.sin(az)
        v = [math.cos(r) * c[k] + dx * east[k] + dy * north[k] for k in range(3)]
        pts.append((round(math.degrees(math.atan2(v[1], v[0])), 9),
                    round(math.degrees(math.asin(max(-1.0, min(1.0, v[2])))), 9)))
    pts.append(pts[0])
    return pts


shapes = []
for s in range(240):
    kind = s % 4
    clon, clat = rng.uniform(-180, 180), math.degrees(math.asin(rng.uniform(-1, 1)))
    if kind == 1:
        clat = rng.choice([1, -1]) * rng.uniform(60, 90)
    elif kind == 2:
        clon = 180 - rng.uniform(0, 2)
    radius = rng.choice([rng.uniform(1, 30), rng.uniform(30, 89), rng.uniform(91, 120)])
    shapes.append(star(clon, clat, radius, rng.randint(4, 16), bowtie=(s % 10 == 9)))

probes = [(round(rng.uniform(-180, 180), 9), round(math.degrees(math.asin(rng.uniform(-1, 1))), 9))
          for _ in range(2500)]
# the six axis points, where the pole rule decides
probes += [(0, 0), (180, 0), (90, 0), (-90, 0), (0, 90), (0, -90)]

sql = ["CREATE TEMP TABLE s(id int, g geography); CREATE TEMP TABLE p(id int, g geography);"]
for i, ring in enumerate(shapes):
    wkt = "POLYGON((" + ",".join("%r %r" % pt for pt in ring) + "))"
    sql.append("INSERT INTO s VALUES (%d, 'SRID=4326;%s');" % (i, wkt))
sql.append("INSERT INTO p VALUES " + ",".join("(%d, 'SRID=4326;POINT(%r %r)')" % (i, x, y)
                                              for i, (x, y) in enumerate(probes)) + ";")
sql.append("SELECT s.id, p.id FROM s JOIN p ON ST_Covers(s.g, p.g) ORDER BY 1, 2;")
out = subprocess.run(psql, input="\n".join(sql), capture_output=True, text=True, check=True).stdout

covered = {}
for line in out.splitlines():
    if "|" in line:
        a, b = line.split("|")
        covered.setdefault(int(a), []).append(int(b))



def unit(pt):
    lon, lat = math.radians(pt[0]), math.radians(pt[1])
    return (math.cos(lat) * math.cos(lon), math.cos(lat) * math.sin(lon), math.sin(lat))


def extremes(pids):
    """The covered points that reach furthest along each of the six axis directions: the
    ones that decide whether a box holds them all (the axis points always kept)."""
    keep = {pid for pid in pids if pid >= len(probes) - 6}
    for axis in range(3):
        for sign in (1, -1):
            keep.update(sorted(pids, key=lambda pid: -sign * unit(probes[pid])[axis])[:10])
    return sorted(keep)


print("# polygons and the probe points PostGIS 3.3 ST_Covers(geography) says they cover")
print("# (of 2,506 probes, the ten reaching furthest each way, and any axis point);")
print("# written by make_covered_points.py. s: a ring (lon lat ...), c: a covered point (lon lat)")
for i, ring in enumerate(shapes):
    print("s " + " ".join("%r %r" % pt for pt in ring))
    for pid in extremes(covered.get(i, [])):
        print("c %r %r" % probes[pid])
