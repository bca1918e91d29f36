-- geoidx 0.1 -> 0.2 (ALTER EXTENSION geoidx UPDATE). The on-disk format is
-- 3 (points only), which this library still reads and writes; a shape needs a
-- REINDEX into format 4. New in 0.2: the version functions and the shape
-- predicates. Objects are created exactly as geoidx--0.2.sql
-- creates them (test/upgrade/run compares the two catalogs).

\echo Use "ALTER EXTENSION geoidx UPDATE TO '0.2'" to load this file. \quit

-- The same search_path rule as geoidx--0.2.sql (see there why).
SELECT pg_catalog.set_config('search_path',
	pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) ', pg_temp', true)
FROM pg_catalog.pg_extension e
	JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
WHERE e.extname OPERATOR(pg_catalog.=) 'postgis';

-- Versions (0.2; README: versions and upgrades): the library's release, the
-- on-disk format it reads and writes, and the format an index was written in,
-- so that after an upgrade a query can list the indexes to REINDEX.
CREATE FUNCTION @extschema@.geoidx_lib_version()
	RETURNS text
	AS 'MODULE_PATHNAME', 'geoidx_lib_version'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_lib_format()
	RETURNS integer
	AS 'MODULE_PATHNAME', 'geoidx_lib_format'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_index_format(index regclass)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'geoidx_index_format'
	LANGUAGE C STRICT PARALLEL RESTRICTED;

-- Shapes (0.2): predicates on any geometry kind, PostGIS geography's answers.
-- A candidate disc: <@ asks only whether a shape's box reaches into it (the
-- lossy index condition of the predicates below).
CREATE FUNCTION @extschema@.geoidx_candidate_circle(g geometry, metres float8)
	RETURNS @extschema@.geoidx_circle
	AS 'MODULE_PATHNAME', 'geoidx_candidate_circle'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_candidate_circle(g geography, metres float8)
	RETURNS @extschema@.geoidx_circle
	AS 'MODULE_PATHNAME', 'geoidx_candidate_circle'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The rows beyond (op: > or >=) metres of g, a point or a shape: the lossy
-- index condition of keyset paging away from a value that may be a shape.
CREATE FUNCTION @extschema@.geoidx_candidate_beyond(g geometry, op text, metres float8)
	RETURNS @extschema@.geoidx_circle
	AS 'MODULE_PATHNAME', 'geoidx_candidate_beyond'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_candidate_beyond(g geography, op text, metres float8)
	RETURNS @extschema@.geoidx_circle
	AS 'MODULE_PATHNAME', 'geoidx_candidate_beyond'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_shape_support(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'geoidx_shape_support'
	LANGUAGE C STRICT PARALLEL SAFE;

-- = ST_Covers(a::geography, b::geography)
CREATE FUNCTION @extschema@.geoidx_covers(a geometry, b geometry)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_covers'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100
	SUPPORT @extschema@.geoidx_shape_support;

CREATE FUNCTION @extschema@.geoidx_covers(a geography, b geography)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_covers'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100
	SUPPORT @extschema@.geoidx_shape_support;

-- = ST_CoveredBy(a::geography, b::geography)
CREATE FUNCTION @extschema@.geoidx_coveredby(a geometry, b geometry)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_coveredby'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100
	SUPPORT @extschema@.geoidx_shape_support;

CREATE FUNCTION @extschema@.geoidx_coveredby(a geography, b geography)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_coveredby'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100
	SUPPORT @extschema@.geoidx_shape_support;

-- = ST_Intersects(a::geography, b::geography)
CREATE FUNCTION @extschema@.geoidx_intersects(a geometry, b geometry)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_intersects'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100
	SUPPORT @extschema@.geoidx_shape_support;

CREATE FUNCTION @extschema@.geoidx_intersects(a geography, b geography)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_intersects'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100
	SUPPORT @extschema@.geoidx_shape_support;

-- The shape operators, the exact index conditions the support above gives
-- geoidx_covers, _coveredby and _intersects with the indexed column first:
-- each is its function, and a geoidx scan decides from the index what it can
-- (an interior grid, a prepared polygon) and rechecks the rest.
CREATE FUNCTION @extschema@.geoidx_shape_op_sel(internal, oid, internal, integer)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'geoidx_shape_op_sel'
	LANGUAGE C STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.~@> (
	LEFTARG = geometry, RIGHTARG = geometry,
	FUNCTION = @extschema@.geoidx_covers,
	RESTRICT = @extschema@.geoidx_shape_op_sel
);
CREATE OPERATOR @extschema@.<@~ (
	LEFTARG = geometry, RIGHTARG = geometry,
	FUNCTION = @extschema@.geoidx_coveredby,
	RESTRICT = @extschema@.geoidx_shape_op_sel
);
CREATE OPERATOR @extschema@.~&& (
	LEFTARG = geometry, RIGHTARG = geometry,
	FUNCTION = @extschema@.geoidx_intersects,
	RESTRICT = @extschema@.geoidx_shape_op_sel
);
CREATE OPERATOR @extschema@.~@> (
	LEFTARG = geography, RIGHTARG = geography,
	FUNCTION = @extschema@.geoidx_covers,
	RESTRICT = @extschema@.geoidx_shape_op_sel
);
CREATE OPERATOR @extschema@.<@~ (
	LEFTARG = geography, RIGHTARG = geography,
	FUNCTION = @extschema@.geoidx_coveredby,
	RESTRICT = @extschema@.geoidx_shape_op_sel
);
CREATE OPERATOR @extschema@.~&& (
	LEFTARG = geography, RIGHTARG = geography,
	FUNCTION = @extschema@.geoidx_intersects,
	RESTRICT = @extschema@.geoidx_shape_op_sel
);

ALTER OPERATOR FAMILY @extschema@.geoidx_geometry_ops USING geoidx ADD
	OPERATOR 3 @extschema@.~@> (geometry, geometry),
	OPERATOR 4 @extschema@.<@~ (geometry, geometry),
	OPERATOR 5 @extschema@.~&& (geometry, geometry);
ALTER OPERATOR FAMILY @extschema@.geoidx_geography_ops USING geoidx ADD
	OPERATOR 3 @extschema@.~@> (geography, geography),
	OPERATOR 4 @extschema@.<@~ (geography, geography),
	OPERATOR 5 @extschema@.~&& (geography, geography);

-- PostGIS's planar predicates as operators, which geoidx's planner rewrite
-- (geoidx.rewrite_postgis) puts in the place of ST_Contains(col, g),
-- ST_Within(g, col), ST_Covers(col, g) and ST_Intersects (either side) on a
-- geoidx-indexed geometry column: each function is the PostGIS call itself,
-- and a geoidx scan decides a point g from a zone's planar grid where it can.
-- Called as functions (the column on the side an operator of the family does
-- not take: ST_Within(col, g), ST_Contains(g, col), ST_Covers(g, col)), their
-- support function gives the box condition PostGIS gives GiST (col @ g,
-- col ~ g), lossy, the call staying as the filter.
CREATE FUNCTION @extschema@.geoidx_planar_support(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'geoidx_planar_support'
	LANGUAGE C STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_planar_contains(a geometry, b geometry)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_planar_contains'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100
	SUPPORT @extschema@.geoidx_planar_support;

CREATE FUNCTION @extschema@.geoidx_planar_within(a geometry, b geometry)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_planar_within'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100
	SUPPORT @extschema@.geoidx_planar_support;

CREATE FUNCTION @extschema@.geoidx_planar_covers(a geometry, b geometry)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_planar_covers'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100
	SUPPORT @extschema@.geoidx_planar_support;

CREATE FUNCTION @extschema@.geoidx_planar_intersects(a geometry, b geometry)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_planar_intersects'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100;

CREATE OPERATOR @extschema@.##@> (
	LEFTARG = geometry, RIGHTARG = geometry,
	FUNCTION = @extschema@.geoidx_planar_contains,
	COMMUTATOR = OPERATOR(@extschema@.##<@),
	RESTRICT = @extschema@.geoidx_shape_op_sel
);
CREATE OPERATOR @extschema@.##<@ (
	LEFTARG = geometry, RIGHTARG = geometry,
	FUNCTION = @extschema@.geoidx_planar_within,
	COMMUTATOR = OPERATOR(@extschema@.##@>),
	RESTRICT = @extschema@.geoidx_shape_op_sel
);
CREATE OPERATOR @extschema@.##~@> (
	LEFTARG = geometry, RIGHTARG = geometry,
	FUNCTION = @extschema@.geoidx_planar_covers,
	RESTRICT = @extschema@.geoidx_shape_op_sel
);
CREATE OPERATOR @extschema@.##&& (
	LEFTARG = geometry, RIGHTARG = geometry,
	FUNCTION = @extschema@.geoidx_planar_intersects,
	COMMUTATOR = OPERATOR(@extschema@.##&&),
	RESTRICT = @extschema@.geoidx_shape_op_sel
);

ALTER OPERATOR FAMILY @extschema@.geoidx_geometry_ops USING geoidx ADD
	OPERATOR 6 @extschema@.##@> (geometry, geometry),
	OPERATOR 7 @extschema@.##~@> (geometry, geometry),
	OPERATOR 8 @extschema@.##&& (geometry, geometry);

-- PostGIS's own box operators (issue 11: the map viewport, col && ST_MakeEnvelope(...)),
-- which GiST serves: in geoidx's family they are index conditions as they stand,
-- the column on either side (&& is its own commutator, @ and ~ each other's).
-- The scan compares a point's box exactly as PostGIS does and rechecks shapes.
ALTER OPERATOR FAMILY @extschema@.geoidx_geometry_ops USING geoidx ADD
	OPERATOR 9 && (geometry, geometry),
	OPERATOR 10 @ (geometry, geometry),
	OPERATOR 11 ~ (geometry, geometry);

-- PostGIS's planar distance in degrees, ORDER BY col <-> g LIMIT k, as GiST
-- orders by it: a point's distance exact (PostGIS's arithmetic on the heap's
-- coordinates), a shape's and a box's lower bounds the executor rechecks.
ALTER OPERATOR FAMILY @extschema@.geoidx_geometry_ops USING geoidx ADD
	OPERATOR 12 <-> (geometry, geometry) FOR ORDER BY pg_catalog.float_ops;

-- a <~~> b = a::geography <-> b::geography: PostGIS's k-NN distance on its
-- sphere, which the rewrite puts in place of ORDER BY col::geography <-> g (the
-- column first). No commutator: the sphere's great-circle angle is not
-- symmetric in its last bits. A geography column orders by PostGIS's <->
-- itself. The scan orders by the sphere distance and the executor rechecks
-- each row with PostGIS's value.
CREATE FUNCTION @extschema@.geoidx_sphere_knn_distance(geometry, geometry)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'geoidx_sphere_knn_distance'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100;

CREATE OPERATOR @extschema@.<~~> (
	LEFTARG = geometry,
	RIGHTARG = geometry,
	FUNCTION = @extschema@.geoidx_sphere_knn_distance
);

ALTER OPERATOR FAMILY @extschema@.geoidx_geometry_ops USING geoidx ADD
	OPERATOR 13 @extschema@.<~~> (geometry, geometry) FOR ORDER BY pg_catalog.float_ops;
ALTER OPERATOR FAMILY @extschema@.geoidx_geography_ops USING geoidx ADD
	OPERATOR 13 <-> (geography, geography) FOR ORDER BY pg_catalog.float_ops;

-- PostGIS's ST_CoveredBy(a, b) and ST_DWithin(a, b, degrees) on geometry, which
-- the rewrite puts in the place of PostGIS's calls on a geoidx-indexed column:
-- the call itself, with the box condition PostGIS gives GiST (col @ g, col ~ g;
-- col && ST_Expand(g, degrees)) as a lossy index condition.
CREATE FUNCTION @extschema@.geoidx_planar_coveredby(a geometry, b geometry)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_planar_coveredby'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100
	SUPPORT @extschema@.geoidx_planar_support;

CREATE FUNCTION @extschema@.geoidx_planar_dwithin(a geometry, b geometry, degrees float8)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_planar_dwithin'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100
	SUPPORT @extschema@.geoidx_planar_support;

-- How many shape entries this backend's scans decided from the index alone.
CREATE FUNCTION @extschema@.geoidx_shape_decisions(OUT ruled_out_by_box bigint,
	OUT accepted bigint, OUT rejected bigint, OUT rechecked bigint, OUT by_pieces bigint)
	AS 'MODULE_PATHNAME', 'geoidx_shape_decisions'
	LANGUAGE C STRICT PARALLEL RESTRICTED;

-- How many polygon-point distances this backend computed itself, and how many PostGIS did.
CREATE FUNCTION @extschema@.geoidx_shape_distances(OUT computed bigint, OUT by_postgis bigint)
	AS 'MODULE_PATHNAME', 'geoidx_shape_distances'
	LANGUAGE C STRICT PARALLEL RESTRICTED;

-- The prepared polygons in shared memory (geoidx in shared_preload_libraries):
-- whether there are any, how many, bytes used of the capacity, and since the
-- server started the lookups that found one, the polygons prepared, how often
-- it started again, and how often a backend used its own cache instead.
CREATE FUNCTION @extschema@.geoidx_prepared_shapes(OUT shared boolean, OUT polygons bigint,
	OUT bytes bigint, OUT capacity bigint, OUT hits bigint, OUT prepared bigint,
	OUT resets bigint, OUT own_cache bigint)
	AS 'MODULE_PATHNAME', 'geoidx_prepared_shapes'
	LANGUAGE C STRICT PARALLEL RESTRICTED;

-- Sharding by location (issue 14): a point's cell of the index's own curve at
-- a level (0..30; 6 * 4^level cells, contiguous in the build order), a
-- partition or distribution key; and the cells a circle can touch, for
-- cell = ANY (geoidx_covering_cells(c, r, level)), which prunes. Geometry
-- only (a geography column passes pos::geometry), so that a literal resolves.
CREATE FUNCTION @extschema@.geoidx_cell(pos geometry, level integer)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'geoidx_cell'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.geoidx_covering_cells(center geometry, metres float8, level integer, use_spheroid boolean DEFAULT true)
	RETURNS bigint[]
	AS 'MODULE_PATHNAME', 'geoidx_covering_cells'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- Range i / 2 of the cells at a level a row in the region can have: its first
-- cell (i even) or the one after its last (i odd); past the last range the
-- first again, and -1 when no row can be in the region.
-- What geoidx adds to a radius query on a table range-partitioned on
-- geoidx_cell, so that PostgreSQL prunes its partitions (src/pg/partition_prune.cc).
CREATE FUNCTION @extschema@.geoidx_covering_bound(region @extschema@.geoidx_circle, level integer, i integer)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'geoidx_covering_bound'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
