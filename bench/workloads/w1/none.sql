-- W1 moving points on seed-2 (table w1_none): insert-or-update a random id,
-- moving its point by up to 0.05 degree in each axis (the MySQL article's
-- ON DUPLICATE KEY UPDATE). :npoints comes from pgbench -D.
\set id random(1, :npoints)
\set dx random(-50000, 50000) / 1000000.0
\set dy random(-50000, 50000) / 1000000.0
INSERT INTO w1_none AS t (id, pos)
VALUES (:id, ST_SetSRID(ST_MakePoint(125, 75), 4326))
ON CONFLICT (id) DO UPDATE
SET pos = ST_SetSRID(ST_MakePoint(ST_X(t.pos) + :dx, ST_Y(t.pos) + :dy), 4326);
