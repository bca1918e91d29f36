-- T limit: R1 ids with GiST(geography) for the same 32 centres as pk.sql.
\set c random(1, 32)
SELECT id FROM seed1_gist_geog
 WHERE ST_DWithin(pos::geography, (SELECT pos FROM r1_centres WHERE c = :c)::geography, 200000);
