-- Points uniform on the sphere (lat = asin(2u - 1), not uniform in degrees,
-- which would crowd the poles), into table :table (world: seed 0.3018; the
-- --scale run's scale: seed 0.4018). Size from :points.
SET max_parallel_workers_per_gather = 0;
SELECT setseed(:seed);
CREATE TABLE :table (id int PRIMARY KEY, pos geometry(Point, 4326) NOT NULL);
INSERT INTO :table
SELECT g, ST_Point(-180 + 360 * random(), degrees(asin(2 * random() - 1)), 4326)
FROM generate_series(1, :points) g;
