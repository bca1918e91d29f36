-- limit K1 world k=10: the 10 nearest handed to the executor as their heap
-- TIDs (precomputed for 32 centres, k1_centres), no index work at all.
\set c random(1, 32)
SELECT ST_X(pos) AS lon, ST_Y(pos) AS lat FROM k1_centres WHERE c = :c \gset
SELECT id FROM world_geoidx WHERE ctid = ANY ((SELECT tids FROM k1_centres WHERE c = :c)::tid[]);
