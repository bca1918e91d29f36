-- limit R2: geoidx's R2 query on the same 32 centres as tid.sql.
\set c random(1, 32)
SELECT ST_X(pos) AS lon, ST_Y(pos) AS lat FROM r2_centres WHERE c = :c \gset
SELECT id FROM seed2_geoidx
 WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326), 5000)
 ORDER BY pos <~> ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)
 LIMIT 100;
