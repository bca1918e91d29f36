-- limit R1: the fastest any index could serve R1 ids: the executor handed
-- exactly the answer's heap TIDs (precomputed for 32 centres, r1_centres), a
-- TID Scan in heap order, no index work at all. Every variant of this
-- workload first reads its centre by primary key, the same extra cost.
\set c random(1, 32)
SELECT ST_X(pos) AS lon, ST_Y(pos) AS lat FROM r1_centres WHERE c = :c \gset
SELECT id FROM seed1_geoidx WHERE ctid = ANY ((SELECT tids FROM r1_centres WHERE c = :c)::tid[]);
