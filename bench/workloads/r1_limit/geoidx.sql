-- limit R1: geoidx on the same 32 centres as tid.sql (the centre as constants,
-- so the plan is R1 ids' plain Index Scan).
\set c random(1, 32)
SELECT ST_X(pos) AS lon, ST_Y(pos) AS lat FROM r1_centres WHERE c = :c \gset
SELECT id FROM seed1_geoidx
 WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326), 200000);
