-- limit R2: the 100 nearest within 5 km handed to the executor as their heap
-- TIDs (precomputed for 32 centres, r2_centres), no index work at all.
\set c random(1, 32)
SELECT ST_X(pos) AS lon, ST_Y(pos) AS lat FROM r2_centres WHERE c = :c \gset
SELECT id FROM seed2_geoidx WHERE ctid = ANY ((SELECT tids FROM r2_centres WHERE c = :c)::tid[]);
