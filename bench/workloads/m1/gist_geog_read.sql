-- M1 read by id (weight 25, or 35 at 0 % updates).
\set id random(1, :npoints)
SELECT id, pos FROM m1_gist_geog WHERE id = :id;
