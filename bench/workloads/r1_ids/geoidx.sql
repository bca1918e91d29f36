-- R1 ids: the ids within 200 km, geoidx (exact spheroid metres in the index).
\set lon 106.0 + random(0, 8000000) / 1000000.0
\set lat -8.0 + random(0, 2000000) / 1000000.0
SELECT id FROM seed1_geoidx
 WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326), 200000);
