-- limit R2: GiST ((pos::geography))'s R2 query on the same 32 centres as
-- tid.sql: with the TID scan it bounds what any index could gain.
\set c random(1, 32)
SELECT ST_X(pos) AS lon, ST_Y(pos) AS lat FROM r2_centres WHERE c = :c \gset
SELECT id FROM seed2_gist_geog
 WHERE ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography, 5000)
 ORDER BY pos::geography <-> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography
 LIMIT 100;
