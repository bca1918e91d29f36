-- limit K1 world k=10: geoidx's K1 query on the same 32 centres as tid.sql.
\set c random(1, 32)
SELECT ST_X(pos) AS lon, ST_Y(pos) AS lat FROM k1_centres WHERE c = :c \gset
SELECT id FROM world_geoidx
 ORDER BY pos <~> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)
 LIMIT 10;
