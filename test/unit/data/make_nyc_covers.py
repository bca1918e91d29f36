#!/usr/bin/env python3
"""Regenerate nyc_covers.txt: which probe points PostGIS says each NYC neighbourhood covers.

The 195 neighbourhoods of data/gofence-profiling/nyc/nyc_ntas.geojson, moved
(ST_Translate, x + dx and y + dy exactly, as the unit test moves them) to four
places: where they are, across the antimeridian, near the north pole, and in
the southern hemisphere. The probes: the 1,962 MTA bus positions moved with
them, every vertex of the first eight neighbourhoods, and the lon/lat midpoint
of each of their edges (a few millimetres off the geodesic edge: cases only
rounding decides). For each place, the file lists the (neighbourhood, probe)
pairs where ST_Covers(shape::geography, probe::geography) is true; every other
pair is false (pairs whose boxes are more than half a degree apart are not
asked, PostGIS cannot cover them).

Usage: make_nyc_covers.py "psql -X -At -h HOST -p PORT -d DB" > nyc_covers.txt
"""
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(here, "..", "..", "..", "data", "gofence-profiling", "nyc")
psql = sys.argv[1].split()

ntas = json.load(open(os.path.join(data, "nyc_ntas.geojson")))["features"]
buses = json.load(open(os.path.join(data, "nyc_mta_vehiclemonitoring_1457799429_feed.geojson")))["features"]

probes = [tuple(b["geometry"]["coordinates"]) for b in buses]
for f in ntas[:8]:
    g = f["geometry"]
    polys = [g["coordinates"]] if g["type"] == "Polygon" else g["coordinates"]
    for poly in polys:
        for ring in poly:
            for i, (x, y) in enumerate(ring[:-1]):
                x2, y2 = ring[i + 1]
                probes.append((x, y))
                probes.append(((x + x2) / 2, (y + y2) / 2))

places = [(0.0, 0.0), (253.95, 0.0), (0.0, 44.2), (120.0, -81.0)]

sql = ["CREATE TEMP TABLE n(id int, g geometry); CREATE TEMP TABLE q(id int, g geometry);"]
for i, f in enumerate(ntas):
    sql.append("INSERT INTO n VALUES (%d, ST_SetSRID(ST_GeomFromGeoJSON('%s'), 4326));" % (i, json.dumps(f["geometry"])))
sql.append("INSERT INTO q VALUES " + ",".join("(%d, ST_SetSRID(ST_MakePoint(%r, %r), 4326))" % (i, x, y)
                                              for i, (x, y) in enumerate(probes)) + ";")
for t, (dx, dy) in enumerate(places):
    sql.append("SELECT %d, n.id, q.id FROM n JOIN q ON ST_Expand(n.g, 0.5) && q.g "
               "WHERE ST_Covers(ST_Translate(n.g, %r, %r)::geography, ST_Translate(q.g, %r, %r)::geography) "
               "ORDER BY 2, 3;" % (t, dx, dy, dx, dy))
out = subprocess.run(psql, input="\n".join(sql), capture_output=True, text=True, check=True).stdout

print("# NYC neighbourhoods and probe points, and where PostGIS 3.3 ST_Covers(geography) is true;")
print("# written by make_nyc_covers.py. q: a probe (lon lat); t: a place (dx dy);")
print("# c: place, neighbourhood (feature order), probe (q order) with ST_Covers true")
for x, y in probes:
    print("q %r %r" % (x, y))
for dx, dy in places:
    print("t %r %r" % (dx, dy))
for line in out.splitlines():
    if line.count("|") == 2:
        print("c " + line.replace("|", " "))
