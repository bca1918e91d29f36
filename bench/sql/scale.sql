-- scale: points uniform on the sphere (world.sql's distribution, its own
-- seed), for bench/run --scale. Size from :points.
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.4018);
CREATE TABLE scale (id int PRIMARY KEY, pos geometry(Point, 4326) NOT NULL);
INSERT INTO scale
SELECT g, ST_Point(-180 + 360 * random(), degrees(asin(2 * random() - 1)), 4326)
FROM generate_series(1, :points) g;
