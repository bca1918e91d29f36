-- R1 ids: as geoidx.sql, on a copy of the table CLUSTERed USING its geoidx
-- index (heap in the index's spatial order).
\set lon 106.0 + random(0, 8000000) / 1000000.0
\set lat -8.0 + random(0, 2000000) / 1000000.0
SELECT id FROM seed1_geoidx_cl
 WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326), 200000);
