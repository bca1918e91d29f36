-- T limit: R1 ids with geoidx for the same 32 precomputed centres as pk.sql.
\set c random(1, 32)
SELECT id FROM seed1_geoidx
 WHERE geoidx_dwithin(pos, (SELECT pos FROM r1_centres WHERE c = :c), 200000);
