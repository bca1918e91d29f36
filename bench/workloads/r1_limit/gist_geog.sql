-- limit R1: GiST(geography) on the same 32 centres as tid.sql.
\set c random(1, 32)
SELECT ST_X(pos) AS lon, ST_Y(pos) AS lat FROM r1_centres WHERE c = :c \gset
SELECT id FROM seed1_gist_geog
 WHERE ST_DWithin(pos::geography, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)::geography, 200000);
