-- M1 update (weight 10 or 0): move a random point by up to 0.05 degree.
\set id random(1, :npoints)
\set dx random(-50000, 50000) / 1000000.0
\set dy random(-50000, 50000) / 1000000.0
UPDATE m1_gist_geog SET pos = ST_SetSRID(ST_MakePoint(ST_X(pos) + :dx, ST_Y(pos) + :dy), 4326)
 WHERE id = :id;
