-- geoidx 0.2: an index access method for PostGIS points that answers radius and
-- nearest-neighbour questions in metres on the WGS84 spheroid, with the same
-- answers as PostGIS geography.
--
-- Every reference to another object is schema-qualified (@extschema@ for ours,
-- pg_catalog for the core's) and nothing is CREATE OR REPLACE'd. PostGIS's
-- geometry type cannot be: PG15 has no @extschema:postgis@. CREATE EXTENSION
-- searches the target schema first, so whoever may CREATE in it could plant a
-- "geometry" there (a domain over PostGIS's, whose CHECK would then run their
-- code as every caller of geoidx, superusers included); so the search_path of
-- this script is PostGIS's schema alone (pg_catalog implicitly first, pg_temp
-- last). CREATE EXTENSION restores the caller's search_path afterwards.

\echo Use "CREATE EXTENSION geoidx CASCADE" to load this file. \quit

SELECT pg_catalog.set_config('search_path',
	pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) ', pg_temp', true)
FROM pg_catalog.pg_extension e
	JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
WHERE e.extname OPERATOR(pg_catalog.=) 'postgis';

-- A search circle: centre (lon/lat degrees as the geography cast leaves them),
-- radius in metres, spheroid or sphere. It is the right-hand side of the index
-- operator <@, so that a radius query is one index condition.
CREATE TYPE @extschema@.geoidx_circle;

CREATE FUNCTION @extschema@.geoidx_circle_in(cstring)
	RETURNS @extschema@.geoidx_circle
	AS 'MODULE_PATHNAME', 'geoidx_circle_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_circle_out(@extschema@.geoidx_circle)
	RETURNS cstring
	AS 'MODULE_PATHNAME', 'geoidx_circle_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.geoidx_circle (
	INPUT = @extschema@.geoidx_circle_in,
	OUTPUT = @extschema@.geoidx_circle_out,
	INTERNALLENGTH = 32,
	ALIGNMENT = double,
	STORAGE = plain
);

CREATE FUNCTION @extschema@.geoidx_circle(center geometry, metres float8, use_spheroid boolean DEFAULT true)
	RETURNS @extschema@.geoidx_circle
	AS 'MODULE_PATHNAME', 'geoidx_circle_make'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- pos <@ circle: the index operator behind geoidx_dwithin.
CREATE FUNCTION @extschema@.geoidx_within_circle(geometry, @extschema@.geoidx_circle)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_within_circle'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_circle_sel(internal, oid, internal, integer)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'geoidx_circle_sel'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.<@ (
	LEFTARG = geometry,
	RIGHTARG = @extschema@.geoidx_circle,
	FUNCTION = @extschema@.geoidx_within_circle,
	RESTRICT = @extschema@.geoidx_circle_sel
);

-- a <~> b: geodesic distance in metres on WGS84, = ST_Distance(a::geography, b::geography).
CREATE FUNCTION @extschema@.geoidx_distance_op(geometry, geometry)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'geoidx_distance_op'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;

CREATE OPERATOR @extschema@.<~> (
	LEFTARG = geometry,
	RIGHTARG = geometry,
	FUNCTION = @extschema@.geoidx_distance_op,
	COMMUTATOR = OPERATOR(@extschema@.<~>)
);

CREATE FUNCTION @extschema@.geoidx_distance(a geometry, b geometry, use_spheroid boolean DEFAULT true)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'geoidx_distance'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;

-- The lon/lat box (degrees) that provably holds every point within the radius;
-- what a plain GiST index on the column is given for geoidx_dwithin.
CREATE FUNCTION @extschema@.geoidx_search_box(center geometry, metres float8, use_spheroid boolean DEFAULT true)
	RETURNS geometry
	AS 'MODULE_PATHNAME', 'geoidx_search_box'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_dwithin_support(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'geoidx_dwithin_support'
	LANGUAGE C STRICT PARALLEL SAFE;

-- = ST_DWithin(a::geography, b::geography, metres, use_spheroid), boundary included.
CREATE FUNCTION @extschema@.geoidx_dwithin(a geometry, b geometry, metres float8, use_spheroid boolean DEFAULT true)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_dwithin'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10
	SUPPORT @extschema@.geoidx_dwithin_support;

-- Decodes an indexed value (support procedure 1 of the operator class).
CREATE FUNCTION @extschema@.geoidx_geometry_decode(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'geoidx_geometry_decode'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_handler(internal)
	RETURNS index_am_handler
	AS 'MODULE_PATHNAME', 'geoidx_handler'
	LANGUAGE C;

CREATE ACCESS METHOD geoidx TYPE INDEX HANDLER @extschema@.geoidx_handler;
COMMENT ON ACCESS METHOD geoidx IS 'exact metre radius and k-NN search over PostGIS points (WGS84)';

CREATE OPERATOR CLASS @extschema@.geoidx_geometry_ops
	DEFAULT FOR TYPE geometry USING geoidx AS
	OPERATOR 1 @extschema@.<@ (geometry, @extschema@.geoidx_circle),
	OPERATOR 2 @extschema@.<~> (geometry, geometry) FOR ORDER BY pg_catalog.float_ops,
	FUNCTION 1 @extschema@.geoidx_geometry_decode(internal);

-- Checks every structural invariant of the index and that every live heap row
-- is indexed exactly once; raises an error naming the first fault.
CREATE FUNCTION @extschema@.geoidx_verify(index regclass)
	RETURNS void
	AS 'MODULE_PATHNAME', 'geoidx_verify'
	LANGUAGE C STRICT PARALLEL RESTRICTED;

CREATE FUNCTION @extschema@.geoidx_stats(index regclass,
	OUT pages bigint, OUT leaf_pages bigint, OUT internal_pages bigint,
	OUT entries bigint, OUT depth integer, OUT leaf_fill float8,
	OUT internal_fill float8, OUT incomplete_splits bigint)
	RETURNS record
	AS 'MODULE_PATHNAME', 'geoidx_stats'
	LANGUAGE C STRICT PARALLEL RESTRICTED;

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

-- geography: the same operator class, operators and functions for PostGIS
-- geography columns (issue 5). They share the geometry versions' C functions: a
-- geography is the same GSERIALIZED, holding what the ::geography cast made of
-- the coordinates (other SRIDs are refused as for geometry). The answers are
-- ST_DWithin's and ST_Distance's on geography, as for geometry.
CREATE FUNCTION @extschema@.geoidx_circle(center geography, metres float8, use_spheroid boolean DEFAULT true)
	RETURNS @extschema@.geoidx_circle
	AS 'MODULE_PATHNAME', 'geoidx_circle_make'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_within_circle(geography, @extschema@.geoidx_circle)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_within_circle'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.<@ (
	LEFTARG = geography,
	RIGHTARG = @extschema@.geoidx_circle,
	FUNCTION = @extschema@.geoidx_within_circle,
	RESTRICT = @extschema@.geoidx_circle_sel
);

CREATE FUNCTION @extschema@.geoidx_distance_op(geography, geography)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'geoidx_distance_op'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;

CREATE OPERATOR @extschema@.<~> (
	LEFTARG = geography,
	RIGHTARG = geography,
	FUNCTION = @extschema@.geoidx_distance_op,
	COMMUTATOR = OPERATOR(@extschema@.<~>)
);

CREATE FUNCTION @extschema@.geoidx_distance(a geography, b geography, use_spheroid boolean DEFAULT true)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'geoidx_distance'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;

CREATE FUNCTION @extschema@.geoidx_dwithin(a geography, b geography, metres float8, use_spheroid boolean DEFAULT true)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_dwithin'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10
	SUPPORT @extschema@.geoidx_dwithin_support;

CREATE FUNCTION @extschema@.geoidx_geography_decode(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'geoidx_geometry_decode'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR CLASS @extschema@.geoidx_geography_ops
	DEFAULT FOR TYPE geography USING geoidx AS
	OPERATOR 1 @extschema@.<@ (geography, @extschema@.geoidx_circle),
	OPERATOR 2 @extschema@.<~> (geography, geography) FOR ORDER BY pg_catalog.float_ops,
	FUNCTION 1 @extschema@.geoidx_geography_decode(internal);

-- Columns after the point (issue 5): USING geoidx (pos, category [, ...]) [INCLUDE (...)].
-- The index keeps their values with each point and tests conditions on them
-- (=, <, <=, >=, > through these operator classes) during the search, so that
-- WHERE category = 7 ORDER BY pos <~> c LIMIT 10 reads only matching rows.
-- Strategies number as btree's; the operators' own functions are called.
-- col <@ array: col is one of the array's elements (= col = ANY(array), NULLs
-- included); the planner rewrites col = ANY(array) and col IN (...) into it
-- when col is such a column of a geoidx index (and of no other index).
CREATE FUNCTION @extschema@.geoidx_in_array(anyelement, anyarray)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_in_array'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_in_array_sel(internal, oid, internal, integer)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'geoidx_in_array_sel'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.<@ (
	LEFTARG = anyelement,
	RIGHTARG = anyarray,
	FUNCTION = @extschema@.geoidx_in_array,
	RESTRICT = @extschema@.geoidx_in_array_sel
);

CREATE OPERATOR FAMILY @extschema@.geoidx_integer_ops USING geoidx;
ALTER OPERATOR FAMILY @extschema@.geoidx_integer_ops USING geoidx ADD
	OPERATOR 6 @extschema@.<@ (anyelement, anyarray);

CREATE OPERATOR CLASS @extschema@.geoidx_int2_ops
	DEFAULT FOR TYPE int2 USING geoidx FAMILY @extschema@.geoidx_integer_ops AS
	OPERATOR 1 pg_catalog.< (int2, int2),
	OPERATOR 2 pg_catalog.<= (int2, int2),
	OPERATOR 3 pg_catalog.= (int2, int2),
	OPERATOR 4 pg_catalog.>= (int2, int2),
	OPERATOR 5 pg_catalog.> (int2, int2);

CREATE OPERATOR CLASS @extschema@.geoidx_int4_ops
	DEFAULT FOR TYPE int4 USING geoidx FAMILY @extschema@.geoidx_integer_ops AS
	OPERATOR 1 pg_catalog.< (int4, int4),
	OPERATOR 2 pg_catalog.<= (int4, int4),
	OPERATOR 3 pg_catalog.= (int4, int4),
	OPERATOR 4 pg_catalog.>= (int4, int4),
	OPERATOR 5 pg_catalog.> (int4, int4);

CREATE OPERATOR CLASS @extschema@.geoidx_int8_ops
	DEFAULT FOR TYPE int8 USING geoidx FAMILY @extschema@.geoidx_integer_ops AS
	OPERATOR 1 pg_catalog.< (int8, int8),
	OPERATOR 2 pg_catalog.<= (int8, int8),
	OPERATOR 3 pg_catalog.= (int8, int8),
	OPERATOR 4 pg_catalog.>= (int8, int8),
	OPERATOR 5 pg_catalog.> (int8, int8);

-- cross-type comparisons, so that int8_column = 7 (an int4 literal) is a condition too
ALTER OPERATOR FAMILY @extschema@.geoidx_integer_ops USING geoidx ADD
	OPERATOR 1 pg_catalog.< (int2, int4),
	OPERATOR 2 pg_catalog.<= (int2, int4),
	OPERATOR 3 pg_catalog.= (int2, int4),
	OPERATOR 4 pg_catalog.>= (int2, int4),
	OPERATOR 5 pg_catalog.> (int2, int4),
	OPERATOR 1 pg_catalog.< (int2, int8),
	OPERATOR 2 pg_catalog.<= (int2, int8),
	OPERATOR 3 pg_catalog.= (int2, int8),
	OPERATOR 4 pg_catalog.>= (int2, int8),
	OPERATOR 5 pg_catalog.> (int2, int8),
	OPERATOR 1 pg_catalog.< (int4, int2),
	OPERATOR 2 pg_catalog.<= (int4, int2),
	OPERATOR 3 pg_catalog.= (int4, int2),
	OPERATOR 4 pg_catalog.>= (int4, int2),
	OPERATOR 5 pg_catalog.> (int4, int2),
	OPERATOR 1 pg_catalog.< (int4, int8),
	OPERATOR 2 pg_catalog.<= (int4, int8),
	OPERATOR 3 pg_catalog.= (int4, int8),
	OPERATOR 4 pg_catalog.>= (int4, int8),
	OPERATOR 5 pg_catalog.> (int4, int8),
	OPERATOR 1 pg_catalog.< (int8, int2),
	OPERATOR 2 pg_catalog.<= (int8, int2),
	OPERATOR 3 pg_catalog.= (int8, int2),
	OPERATOR 4 pg_catalog.>= (int8, int2),
	OPERATOR 5 pg_catalog.> (int8, int2),
	OPERATOR 1 pg_catalog.< (int8, int4),
	OPERATOR 2 pg_catalog.<= (int8, int4),
	OPERATOR 3 pg_catalog.= (int8, int4),
	OPERATOR 4 pg_catalog.>= (int8, int4),
	OPERATOR 5 pg_catalog.> (int8, int4);

CREATE OPERATOR CLASS @extschema@.geoidx_bool_ops
	DEFAULT FOR TYPE bool USING geoidx AS
	OPERATOR 1 pg_catalog.< (bool, bool),
	OPERATOR 2 pg_catalog.<= (bool, bool),
	OPERATOR 3 pg_catalog.= (bool, bool),
	OPERATOR 4 pg_catalog.>= (bool, bool),
	OPERATOR 5 pg_catalog.> (bool, bool),
	OPERATOR 6 @extschema@.<@ (anyelement, anyarray);

CREATE OPERATOR CLASS @extschema@.geoidx_text_ops
	DEFAULT FOR TYPE text USING geoidx AS
	OPERATOR 1 pg_catalog.< (text, text),
	OPERATOR 2 pg_catalog.<= (text, text),
	OPERATOR 3 pg_catalog.= (text, text),
	OPERATOR 4 pg_catalog.>= (text, text),
	OPERATOR 5 pg_catalog.> (text, text),
	OPERATOR 6 @extschema@.<@ (anyelement, anyarray);

CREATE OPERATOR CLASS @extschema@.geoidx_uuid_ops
	DEFAULT FOR TYPE uuid USING geoidx AS
	OPERATOR 1 pg_catalog.< (uuid, uuid),
	OPERATOR 2 pg_catalog.<= (uuid, uuid),
	OPERATOR 3 pg_catalog.= (uuid, uuid),
	OPERATOR 4 pg_catalog.>= (uuid, uuid),
	OPERATOR 5 pg_catalog.> (uuid, uuid),
	OPERATOR 6 @extschema@.<@ (anyelement, anyarray);

-- Regions other than a disc (issue 5): keyset paging, rings, "not within".
-- Each predicate is exactly the expression in its comment, NULLs included, and
-- has a support function that makes it an index condition `col <@ circle`
-- with one of these circle values (see src/core/region.h). The planner also
-- rewrites `a <~> b > x` (>=, <, <=) and `NOT geoidx_dwithin(...)` into them
-- (src/pg/rewrite.cc), so the plain spellings use the index too.
CREATE FUNCTION @extschema@.geoidx_circle_outside(center geometry, metres float8, use_spheroid boolean DEFAULT true, point_first boolean DEFAULT false)
	RETURNS @extschema@.geoidx_circle
	AS 'MODULE_PATHNAME', 'geoidx_circle_outside'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_circle_distance(center geometry, op text, metres float8)
	RETURNS @extschema@.geoidx_circle
	AS 'MODULE_PATHNAME', 'geoidx_circle_distance'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_circle_outside(center geography, metres float8, use_spheroid boolean DEFAULT true, point_first boolean DEFAULT false)
	RETURNS @extschema@.geoidx_circle
	AS 'MODULE_PATHNAME', 'geoidx_circle_outside'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_circle_distance(center geography, op text, metres float8)
	RETURNS @extschema@.geoidx_circle
	AS 'MODULE_PATHNAME', 'geoidx_circle_distance'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_region_support(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'geoidx_region_support'
	LANGUAGE C STRICT PARALLEL SAFE;

-- = a <~> b > metres (>= metres when inclusive): the next page after distance x.
CREATE FUNCTION @extschema@.geoidx_beyond(a geometry, b geometry, metres float8, inclusive boolean DEFAULT false)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_beyond'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10
	SUPPORT @extschema@.geoidx_region_support;

CREATE FUNCTION @extschema@.geoidx_beyond(a geography, b geography, metres float8, inclusive boolean DEFAULT false)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_beyond'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10
	SUPPORT @extschema@.geoidx_region_support;

-- = a <~> b < metres (<= metres when inclusive)
CREATE FUNCTION @extschema@.geoidx_nearer(a geometry, b geometry, metres float8, inclusive boolean DEFAULT false)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_nearer'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10
	SUPPORT @extschema@.geoidx_region_support;

CREATE FUNCTION @extschema@.geoidx_nearer(a geography, b geography, metres float8, inclusive boolean DEFAULT false)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_nearer'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10
	SUPPORT @extschema@.geoidx_region_support;

-- = NOT geoidx_dwithin(a, b, metres, use_spheroid)
CREATE FUNCTION @extschema@.geoidx_outside(a geometry, b geometry, metres float8, use_spheroid boolean DEFAULT true)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_outside'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10
	SUPPORT @extschema@.geoidx_region_support;

CREATE FUNCTION @extschema@.geoidx_outside(a geography, b geography, metres float8, use_spheroid boolean DEFAULT true)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_outside'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10
	SUPPORT @extschema@.geoidx_region_support;

-- = geoidx_dwithin(a, b, max_metres, s) AND NOT geoidx_dwithin(a, b, min_metres, s)
CREATE FUNCTION @extschema@.geoidx_ring(a geometry, b geometry, min_metres float8, max_metres float8, use_spheroid boolean DEFAULT true)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_ring'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10
	SUPPORT @extschema@.geoidx_region_support;

CREATE FUNCTION @extschema@.geoidx_ring(a geography, b geography, min_metres float8, max_metres float8, use_spheroid boolean DEFAULT true)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_ring'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10
	SUPPORT @extschema@.geoidx_region_support;

-- String overloads, for untyped literals only: with both a geometry and a
-- geography version, geoidx_dwithin('SRID=4326;POINT(1 2)', 'SRID=4326;POINT(1 1)', 100)
-- would be ambiguous; PostgreSQL gives an unknown literal to a string parameter
-- first (PostGIS has ST_DWithin(text, text, float8) for the same reason). They
-- read the strings as geometry and answer as the geometry versions. Two points
-- are (text, varchar): a (text, text) version would make calls with a geometry and
-- a text argument ambiguous (see call_with_geometry in src/pg/functions.cc).
CREATE FUNCTION @extschema@.geoidx_circle(center text, metres float8, use_spheroid boolean DEFAULT true)
	RETURNS @extschema@.geoidx_circle
	AS 'MODULE_PATHNAME', 'geoidx_circle_make_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.geoidx_within_circle(text, @extschema@.geoidx_circle)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_within_circle_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.<@ (
	LEFTARG = text,
	RIGHTARG = @extschema@.geoidx_circle,
	FUNCTION = @extschema@.geoidx_within_circle,
	RESTRICT = @extschema@.geoidx_circle_sel
);

CREATE FUNCTION @extschema@.geoidx_distance_op(text, varchar)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'geoidx_distance_op_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;

CREATE OPERATOR @extschema@.<~> (
	LEFTARG = text,
	RIGHTARG = varchar,
	FUNCTION = @extschema@.geoidx_distance_op
);

CREATE FUNCTION @extschema@.geoidx_distance(a text, b varchar, use_spheroid boolean DEFAULT true)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'geoidx_distance_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;

CREATE FUNCTION @extschema@.geoidx_dwithin(a text, b varchar, metres float8, use_spheroid boolean DEFAULT true)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'geoidx_dwithin_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 10;

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
