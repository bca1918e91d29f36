-- amvalidate and the index properties.
SELECT amvalidate(c.oid) FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod WHERE amname = 'geoidx';
CREATE TABLE pv (pos geometry(Point, 4326));
CREATE INDEX pv_idx ON pv USING geoidx (pos);
SELECT p.name, pg_index_column_has_property('pv_idx'::regclass, 1, p.name)
FROM unnest(array['orderable', 'distance_orderable', 'returnable', 'search_array', 'search_nulls']) p(name);
SELECT p.name, pg_indexam_has_property(a.oid, p.name)
FROM pg_am a, unnest(array['can_order', 'can_unique', 'can_multi_col', 'can_exclude', 'can_include']) p(name)
WHERE a.amname = 'geoidx';
-- an operator class that lacks what geoidx needs is reported
CREATE OPERATOR FAMILY broken_ops USING geoidx;
CREATE OPERATOR CLASS broken_class FOR TYPE geometry USING geoidx FAMILY broken_ops AS
	OPERATOR 1 <@ (geometry, geoidx_circle);
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'broken_class';
DROP OPERATOR FAMILY broken_ops USING geoidx;
DROP TABLE pv;
-- every GUC geoidx defines is in pg_settings with a description (the README's Settings table);
-- geoidx.shared_prepared_memory exists only where geoidx is preloaded (140_shared_prepared checks it)
LOAD 'geoidx';
SELECT name, boot_val AS default, context, vartype, enumvals IS NOT NULL AS has_values, short_desc <> '' AS described
FROM pg_settings WHERE name LIKE 'geoidx.%' AND name <> 'geoidx.shared_prepared_memory' ORDER BY name;
