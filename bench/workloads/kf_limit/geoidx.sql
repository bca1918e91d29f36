-- limit KF: geoidx's KF query on the same 32 centres (and categories) as tid.sql.
\set c random(1, 32)
SELECT ST_X(pos) AS lon, ST_Y(pos) AS lat FROM kf_centres WHERE c = :c \gset
SELECT id FROM worldcat_geoidx
 WHERE category = :c
 ORDER BY pos <~> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)
 LIMIT 10;
