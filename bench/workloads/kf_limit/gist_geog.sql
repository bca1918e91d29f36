-- limit KF: GiST (category, (pos::geography))'s KF query on the same 32
-- centres as tid.sql: with the TID scan it bounds what any index could gain.
\set c random(1, 32)
SELECT ST_X(pos) AS lon, ST_Y(pos) AS lat FROM kf_centres WHERE c = :c \gset
SELECT id FROM worldcat_gist_geog
 WHERE category = :c
 ORDER BY pos::geography <-> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography
 LIMIT 10;
