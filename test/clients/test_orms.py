#!/usr/bin/env python3
"""PostGIS's SQL as two ORMs write it, on geoidx indexes, checked against PostGIS.

    python3 test/clients/test_orms.py "host=... port=... user=... dbname=..."

GeoAlchemy2 (SQLAlchemy) and GeoDjango, as Debian packages them, each create
their model's table, get a geoidx index on its spatial column instead of
GiST, and run their standard distance, nearest and containment queries. For
every query the ORM sent (taken from the driver after it ran), the test
checks that its plan scans the geoidx index (geoidx.rewrite_postgis on, the
default) and that its rows equal PostGIS's own answer to the same SQL (the
rewrite off, no index: a sequential scan). Exits 1 on any mismatch.
"""
import re
import sys

import psycopg2

from checks import Checks  # test/clients/checks.py, beside this file

CENTRES = [(2.35, 48.86), (-73.98, 40.75), (179.99, 5.0), (0.0, 89.9), (112.0, -7.0)]
RADII = [300.0, 5000.0, 300000.0]


class Reference:
    """A plain psycopg2 connection: plans and PostGIS's answers to the SQL an ORM sent."""

    def __init__(self, dsn, indexes):
        self.conn = psycopg2.connect(dsn)
        self.conn.autocommit = True
        self.indexes = indexes

    def plan(self, sql):
        with self.conn.cursor() as cur:
            cur.execute("SET geoidx.rewrite_postgis = on")
            cur.execute("EXPLAIN " + sql)
            return "\n".join(r[0] for r in cur.fetchall())

    def postgis_rows(self, sql):
        with self.conn.cursor() as cur:
            cur.execute("SET geoidx.rewrite_postgis = off")
            for setting in ("enable_indexscan", "enable_bitmapscan", "enable_indexonlyscan"):
                cur.execute(f"SET {setting} = off")
            cur.execute(sql)
            rows = cur.fetchall()
            for setting in ("enable_indexscan", "enable_bitmapscan", "enable_indexonlyscan"):
                cur.execute(f"RESET {setting}")
            cur.execute("SET geoidx.rewrite_postgis = on")
            return rows

    def verify(self, t, label, sql, got, ordered):
        """The ORM's rows equal PostGIS's to its own SQL; the plan read a geoidx index."""
        plan = self.plan(sql)
        used = [i for i in self.indexes if re.search(rf"Index (Only )?Scan using {i}\b|Bitmap Index Scan on {i}\b", plan)]
        t.check(bool(used), f"{label}: the plan of the ORM's SQL reads no geoidx index\n{sql}\n{plan}")
        want = self.postgis_rows(sql)
        if ordered:
            # the ids may swap among equal distances; the distances may not
            ok = [r[-1] for r in got] == [r[-1] for r in want]
        else:  # the ids (GeoDjango's SQL also selects the geometry)
            ok = sorted(r[0] for r in got) == sorted(r[0] for r in want)
        t.check(ok, f"{label}: {len(got)} rows, PostGIS {len(want)}\n{sql}")
        return plan


def geoalchemy(t, dsn, ref):
    from sqlalchemy import Column, Integer, cast, create_engine, event, func, text
    from sqlalchemy.orm import Session, declarative_base
    from geoalchemy2 import Geography, Geometry, WKTElement

    Base = declarative_base()

    class Shop(Base):  # a geometry column, asked in metres through ::geography
        __tablename__ = "ga_shops"
        id = Column(Integer, primary_key=True)
        pos = Column(Geometry("POINT", srid=4326, spatial_index=False))

    class Spot(Base):  # a geography column
        __tablename__ = "ga_spots"
        id = Column(Integer, primary_key=True)
        geog = Column(Geography("POINT", srid=4326, spatial_index=False))

    # the ORM's own connection has geoidx's rewrite on (the test cluster's default is off)
    engine = create_engine("postgresql+psycopg2://",
                           creator=lambda: psycopg2.connect(dsn, options="-c geoidx.rewrite_postgis=on"))
    sent = []
    event.listen(engine, "after_cursor_execute",
                 lambda conn, cursor, statement, params, context, many: sent.append(cursor.query.decode()))
    Base.metadata.create_all(engine)
    with engine.begin() as c:
        c.execute(text("INSERT INTO ga_shops (pos) SELECT pos FROM pts"))
        c.execute(text("INSERT INTO ga_spots (geog) SELECT pos::geography FROM pts"))
        c.execute(text("CREATE INDEX ga_shops_pos ON ga_shops USING geoidx (pos)"))
        c.execute(text("CREATE INDEX ga_spots_geog ON ga_spots USING geoidx (geog)"))
        c.execute(text("ANALYZE ga_shops, ga_spots"))

    with Session(engine) as s:
        for lon, lat in CENTRES:
            wkt = WKTElement(f"POINT({lon} {lat})", srid=4326)
            here = cast(wkt, Geography)
            for r in RADII:
                for label, q in (
                        ("geoalchemy2 geometry ST_DWithin(::geography)",
                         s.query(Shop.id).filter(func.ST_DWithin(cast(Shop.pos, Geography), here, r))),
                        ("geoalchemy2 geometry ST_Distance(::geography) <",
                         s.query(Shop.id).filter(func.ST_Distance(cast(Shop.pos, Geography), here) < r)),
                        ("geoalchemy2 geography ST_DWithin",
                         s.query(Spot.id).filter(func.ST_DWithin(Spot.geog, here, r)))):
                    got = q.all()
                    ref.verify(t, f"{label} ({lon}, {lat}) {r} m", sent[-1], got, False)
            for label, q in (
                    ("geoalchemy2 geometry ORDER BY ST_Distance(::geography)",
                     s.query(Shop.id, func.ST_Distance(cast(Shop.pos, Geography), here))
                     .order_by(func.ST_Distance(cast(Shop.pos, Geography), here)).limit(10)),
                    ("geoalchemy2 geography ORDER BY ST_Distance",
                     s.query(Spot.id, func.ST_Distance(Spot.geog, here))
                     .order_by(func.ST_Distance(Spot.geog, here)).limit(10))):
                got = q.all()
                ref.verify(t, f"{label} ({lon}, {lat})", sent[-1], got, True)
            zone = cast(WKTElement(f"POLYGON(({lon - 0.01} {lat - 0.01}, {lon + 0.01} {lat - 0.01}, "
                                   f"{lon + 0.01} {min(lat + 0.01, 90)}, {lon - 0.01} {lat - 0.01}))", srid=4326),
                        Geography)
            got = s.query(Shop.id).filter(func.ST_CoveredBy(cast(Shop.pos, Geography), zone)).all()
            ref.verify(t, f"geoalchemy2 geometry ST_CoveredBy(::geography) ({lon}, {lat})", sent[-1], got, False)
            # planar, in degrees, as GiST users write it: the box operator, ST_Within, ST_DWithin, <->
            box = WKTElement(f"POLYGON(({lon - 0.2} {lat - 0.1}, {lon + 0.2} {lat - 0.1}, {lon + 0.2} "
                             f"{min(lat + 0.1, 90)}, {lon - 0.2} {min(lat + 0.1, 90)}, {lon - 0.2} {lat - 0.1}))",
                             srid=4326)
            for label, q in (
                    ("geoalchemy2 geometry && (Comparator.intersects)", s.query(Shop.id).filter(Shop.pos.intersects(box))),
                    ("geoalchemy2 geometry @ (Comparator.contained)", s.query(Shop.id).filter(Shop.pos.contained(box))),
                    ("geoalchemy2 geometry ST_Within", s.query(Shop.id).filter(func.ST_Within(Shop.pos, box))),
                    ("geoalchemy2 geometry ST_DWithin in degrees",
                     s.query(Shop.id).filter(func.ST_DWithin(Shop.pos, wkt, 0.05)))):
                got = q.all()
                ref.verify(t, f"{label} ({lon}, {lat})", sent[-1], got, False)
            got = (s.query(Shop.id, Shop.pos.distance_centroid(wkt))
                   .order_by(Shop.pos.distance_centroid(wkt)).limit(10).all())
            ref.verify(t, f"geoalchemy2 geometry ORDER BY <-> (distance_centroid) ({lon}, {lat})", sent[-1], got, True)
            sphere = cast(Shop.pos, Geography).distance_centroid(here)
            got = s.query(Shop.id, sphere).order_by(sphere).limit(10).all()
            ref.verify(t, f"geoalchemy2 geography <-> order ({lon}, {lat})", sent[-1], got, True)
    engine.dispose()


def geodjango(t, dsn, ref):
    import django
    from django.conf import settings

    params = dict(kv.split("=", 1) for kv in dsn.split())
    settings.configure(
        DATABASES={"default": {"ENGINE": "django.contrib.gis.db.backends.postgis",
                               "NAME": params["dbname"], "HOST": params["host"],
                               "PORT": params["port"], "USER": params["user"],
                               "OPTIONS": {"options": "-c geoidx.rewrite_postgis=on"}}},
        INSTALLED_APPS=["django.contrib.gis"], USE_TZ=True)
    django.setup()
    from django.contrib.gis.db import models
    from django.contrib.gis.db.models.functions import Distance
    from django.contrib.gis.geos import Point, Polygon
    from django.contrib.gis.measure import D
    from django.db import connection

    class Place(models.Model):  # GeoDjango's way to metres: a geography field
        pos = models.PointField(geography=True, srid=4326, spatial_index=False)

        class Meta:
            app_label = "geoidx_test"
            db_table = "dj_places"

    class Stop(models.Model):  # a geometry field of SRID 4326: GeoDjango measures it on the sphere
        pos = models.PointField(srid=4326, spatial_index=False)

        class Meta:
            app_label = "geoidx_test"
            db_table = "dj_stops"

    with connection.schema_editor() as editor:
        editor.create_model(Place)
        editor.create_model(Stop)
    with connection.cursor() as c:
        c.execute("INSERT INTO dj_places (pos) SELECT pos::geography FROM pts WHERE pos IS NOT NULL")
        c.execute("CREATE INDEX dj_places_pos ON dj_places USING geoidx (pos)")
        c.execute("INSERT INTO dj_stops (pos) SELECT pos FROM pts WHERE pos IS NOT NULL")
        c.execute("CREATE INDEX dj_stops_pos ON dj_stops USING geoidx (pos)")
        c.execute("ANALYZE dj_places, dj_stops")

    def last_sql():
        # the SQL as sent (psycopg2 interpolates the parameters on the client)
        return connection.queries_log[-1]["sql"]

    connection.force_debug_cursor = True
    for lon, lat in CENTRES:
        here = Point(lon, lat, srid=4326)
        for r in RADII:
            for label, qs in (
                    ("geodjango dwithin", Place.objects.filter(pos__dwithin=(here, D(m=r)))),
                    ("geodjango distance_lte", Place.objects.filter(pos__distance_lte=(here, D(m=r))))):
                got = [(p.id,) for p in qs]
                ref.verify(t, f"{label} ({lon}, {lat}) {r} m", last_sql(), got, False)
        for r in RADII:  # ST_DistanceSphere(pos, ...) <= r
            got = [(p.id,) for p in Stop.objects.filter(pos__distance_lte=(here, D(m=r)))]
            ref.verify(t, f"geodjango geometry distance_lte ({lon}, {lat}) {r} m", last_sql(), got, False)
        qs = Place.objects.annotate(d=Distance("pos", here)).order_by("d")[:10]
        got = [(p.id, p.d.m) for p in qs]
        ref.verify(t, f"geodjango Distance order_by ({lon}, {lat})", last_sql(), got, True)
        zone = Polygon(((lon - 0.01, lat - 0.01), (lon + 0.01, lat - 0.01), (lon + 0.01, min(lat + 0.01, 90)),
                        (lon - 0.01, lat - 0.01)), srid=4326)
        got = [(p.id,) for p in Place.objects.filter(pos__coveredby=zone)]
        ref.verify(t, f"geodjango coveredby ({lon}, {lat})", last_sql(), got, False)
        # a geometry field's planar lookups, as GeoDjango sends them for GiST
        box = Polygon.from_bbox((lon - 0.2, lat - 0.1, lon + 0.2, min(lat + 0.1, 90)))
        box.srid = 4326
        for label, qs in (
                ("geodjango bboverlaps (&&)", Stop.objects.filter(pos__bboverlaps=box)),
                ("geodjango contained (@)", Stop.objects.filter(pos__contained=box)),
                ("geodjango within", Stop.objects.filter(pos__within=box)),
                ("geodjango intersects", Stop.objects.filter(pos__intersects=box)),
                ("geodjango geometry coveredby", Stop.objects.filter(pos__coveredby=box)),
                ("geodjango geometry dwithin in degrees", Stop.objects.filter(pos__dwithin=(here, 0.05)))):
            got = [(p.id,) for p in qs]
            ref.verify(t, f"{label} ({lon}, {lat})", last_sql(), got, False)


def main():
    dsn = sys.argv[1] if len(sys.argv) > 1 else ""
    t = Checks()
    ref = Reference(dsn, ["ga_shops_pos", "ga_spots_geog", "dj_places_pos", "dj_stops_pos"])
    print("GeoAlchemy2: geometry and geography columns, ST_DWithin, ST_Distance, ST_CoveredBy; planar &&,"
          " ST_Within, ST_DWithin in degrees, <->; geography <->")
    geoalchemy(t, dsn, ref)
    print("GeoDjango: a geography PointField (dwithin, distance_lte, Distance, coveredby), a geometry one"
          " (distance_lte, bboverlaps, contained, within, intersects, coveredby, dwithin)")
    geodjango(t, dsn, ref)
    print(f"orms: {t.passed} passed, {t.failed} failed")
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
