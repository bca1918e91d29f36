-- worldcat: the world points (uniform on the sphere) with a category uniform
-- in 0..99, for KF (filtered k-NN at 1 % selectivity). A view over world
-- (which must be loaded): the per-variant copies materialise it, and a
-- sequential scan of it is the guard's reference. Positions are those of
-- world, id for id; category = (id * 7919) mod 100: deterministic, exactly
-- 1 % of the rows per value (7919 is prime to 100, so this permutes id mod
-- 100), independent of the position (world draws each id's position
-- independently).
CREATE VIEW worldcat AS
SELECT id, pos, (id::int8 * 7919 % 100)::int AS category FROM world;
