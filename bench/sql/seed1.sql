-- seed-1: 85,318 points around Java, Indonesia (the PostGIS vs Redis vs BuntDB
-- article). Deterministic: setseed + one serial INSERT (no parallel workers).
-- Shape: a band 15 degrees long (lon 104.5..119.5, Sumatra's tip to Sumbawa)
-- along the island chain's axis (it tilts from -6.3 deg at lon 105.5
-- to about -8 deg at lon 114), gaussian (sd 0.65 deg) across it. Dense enough that 200 km
-- around (112, -7) returns ~17,000 rows (the article had 17,644).
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.1918);
CREATE TABLE seed1 (id int PRIMARY KEY, pos geometry(Point, 4326) NOT NULL);
INSERT INTO seed1
WITH u AS MATERIALIZED (
  SELECT g, random() AS a, random() AS b, random() AS c FROM generate_series(1, 85318) g
)
SELECT g, ST_Point(lon, lat, 4326)
FROM (SELECT g, 104.5 + 15.0 * a AS lon_, b, c FROM u) s,
LATERAL (SELECT lon_ AS lon,
                -6.3 - 0.19 * (lon_ - 105.5) + 0.65 * sqrt(-2 * ln(1 - b)) * cos(2 * pi() * c) AS lat) p
ORDER BY g;
