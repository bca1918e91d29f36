-- seed-2: the MySQL fleet article's table, uniform over lon 120..130,
-- lat 70..80. Size from the psql variable :points (10,000,000 in the article).
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.2018);
CREATE TABLE seed2 (id int PRIMARY KEY, pos geometry(Point, 4326) NOT NULL);
INSERT INTO seed2
SELECT g, ST_Point(120 + 10 * random(), 70 + 10 * random(), 4326)
FROM generate_series(1, :points) g;
