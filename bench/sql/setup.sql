-- Objects every data set and workload relies on. Run once per database.
CREATE EXTENSION IF NOT EXISTS postgis;
-- KF's GiST comparators index (category, position): btree_gist gives GiST
-- its int4 equality operator class.
CREATE EXTENSION IF NOT EXISTS btree_gist;

-- A degree box that provably contains every point within r metres (WGS84
-- spheroid, PostGIS geography semantics) of c. It is the prefilter the
-- geometry-GiST and SP-GiST comparators need, since their index only knows
-- degrees ("pos && box AND ST_DWithin(geography)").
-- Why it is sufficient: spheroid distance >= 0.996 x sphere distance on a
-- sphere of radius 6371008.77 m (sphere vs spheroid differ by -0.40 % to
-- +0.55 %, DESIGN-NOTES); we use 0.99 for extra margin. So every point within
-- r on the spheroid lies within the spherical cap of angular radius
-- theta = r / (0.99 R), whose exact bounding box is lat +- theta and
-- lon +- asin(sin theta / cos lat). A cap reaching a pole, or a box crossing
-- the antimeridian, gets the full longitude range (correct, just wider).
-- Both functions are single expressions so the planner inlines them.
CREATE OR REPLACE FUNCTION bench_cap_dlon(lat float8, theta float8)
RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN abs(lat) + degrees(theta) >= 90 THEN 360.0
              ELSE degrees(asin(sin(theta) / cos(radians(lat)))) END
$$;

CREATE OR REPLACE FUNCTION bench_dwithin_box(c geometry, r float8)
RETURNS geometry LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ST_MakeEnvelope(
    CASE WHEN abs(ST_X(c)) + bench_cap_dlon(ST_Y(c), r / (0.99 * 6371008.771415059)) >= 180
         THEN -180 ELSE ST_X(c) - bench_cap_dlon(ST_Y(c), r / (0.99 * 6371008.771415059)) END,
    greatest(-90, ST_Y(c) - degrees(r / (0.99 * 6371008.771415059))),
    CASE WHEN abs(ST_X(c)) + bench_cap_dlon(ST_Y(c), r / (0.99 * 6371008.771415059)) >= 180
         THEN 180 ELSE ST_X(c) + bench_cap_dlon(ST_Y(c), r / (0.99 * 6371008.771415059)) END,
    least(90, ST_Y(c) + degrees(r / (0.99 * 6371008.771415059))),
    4326)
$$;

-- P k-NN through the cells (issue 14): the k nearest of a table partitioned
-- on geoidx_cell(pos, level), reaching only the partitions that the covering
-- of a radius touches. The radius doubles until k rows lie within it (then no
-- row outside is nearer: the answer is exact); past 4,000 km, the plain
-- ordered scan of every partition. EXECUTE ... USING plans with the values,
-- so the covering is a constant and prunes.
CREATE OR REPLACE FUNCTION bench_knn_cells(tbl regclass, c geometry, k int, r0 float8, level int)
RETURNS SETOF int LANGUAGE plpgsql STABLE AS $$
DECLARE
  r float8 := r0;
  n int;
BEGIN
  WHILE r <= 4e6 LOOP
    EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM %s WHERE geoidx_cell(pos, %s) = ANY ($1)'
                   ' AND geoidx_dwithin(pos, $2, $3) LIMIT $4) s', tbl, level)
      INTO n USING geoidx_covering_cells(c, r, level), c, r, k;
    IF n >= k THEN
      RETURN QUERY EXECUTE format('SELECT id FROM %s WHERE geoidx_cell(pos, %s) = ANY ($1)'
                                  ' AND geoidx_dwithin(pos, $2, $3) ORDER BY pos <~> $2 LIMIT $4', tbl, level)
        USING geoidx_covering_cells(c, r, level), c, r, k;
      RETURN;
    END IF;
    r := r * 2;
  END LOOP;
  RETURN QUERY EXECUTE format('SELECT id FROM %s ORDER BY pos <~> $1 LIMIT $2', tbl) USING c, k;
END $$;
