-- The release, the on-disk format and the SQL version (README: versions and
-- upgrades); test/upgrade/run upgrades from the previous release.
SELECT extversion FROM pg_extension WHERE extname = 'geoidx';
SELECT geoidx_lib_version(), geoidx_lib_format();
-- the release's major.minor is the SQL version
SELECT geoidx_lib_version() LIKE e.extversion || '.%' AS release_matches_sql
FROM pg_extension e WHERE e.extname = 'geoidx';
CREATE TABLE versions_pts (id int, pos geometry(Point, 4326));
INSERT INTO versions_pts SELECT i, ST_SetSRID(ST_MakePoint(i % 360 - 180, i % 180 - 90), 4326)
FROM generate_series(1, 2000) i;
CREATE INDEX versions_pos ON versions_pts USING geoidx (pos);
CREATE INDEX versions_id ON versions_pts (id);
SELECT geoidx_index_format('versions_pos');
-- what a DBA runs after an upgrade: the indexes this library cannot read
WITH geoidx_indexes AS MATERIALIZED (
	SELECT c.oid, c.relname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
	WHERE a.amname = 'geoidx' AND c.relkind = 'i')
SELECT count(*) AS to_reindex FROM geoidx_indexes WHERE geoidx_index_format(oid) <> geoidx_lib_format();
-- not a geoidx index, not an index, NULL
SELECT geoidx_index_format('versions_id');
SELECT geoidx_index_format('versions_pts');
SELECT geoidx_index_format(NULL) IS NULL AS strict;
DROP TABLE versions_pts;
