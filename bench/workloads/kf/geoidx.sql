-- KF: the 10 nearest of one category (1 % of the rows) to a centre uniform on
-- the sphere; geoidx (pos, category): the category is an index condition of
-- the same k-NN scan, exact spheroid metres (<~>).
\set cat random(0, 99)
\set lon -180.0 + random(0, 359999999) / 1000000.0
\set u random(0, 1000000000) / 1000000000.0
SELECT id FROM worldcat_geoidx
 WHERE category = :cat
 ORDER BY pos <~> ST_SetSRID(ST_MakePoint(:lon, degrees(asin(2 * :u::float8 - 1))), 4326)
 LIMIT 10;
