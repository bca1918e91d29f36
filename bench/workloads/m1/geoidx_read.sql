-- M1 read by id (weight 25, or 35 at 0 % updates).
\set id random(1, :npoints)
SELECT id, pos FROM m1_geoidx WHERE id = :id;
