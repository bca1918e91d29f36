-- limit KF: the 10 nearest of category c (1 % of the rows) handed to the
-- executor as their heap TIDs (precomputed for 32 centres, kf_centres), no
-- index work at all.
\set c random(1, 32)
SELECT ST_X(pos) AS lon, ST_Y(pos) AS lat FROM kf_centres WHERE c = :c \gset
SELECT id FROM worldcat_geoidx WHERE ctid = ANY ((SELECT tids FROM kf_centres WHERE c = :c)::tid[]);
