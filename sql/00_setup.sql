-- The extension comes with its dependency.
CREATE EXTENSION geoidx CASCADE;
SELECT extname FROM pg_extension WHERE extname IN ('postgis', 'geoidx') ORDER BY 1;
SELECT amname, amtype FROM pg_am WHERE amname = 'geoidx';
SELECT opcname, opcdefault FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod WHERE amname = 'geoidx';
-- The tests' PostGIS SQL is the reference geoidx is compared with: no geoidx
-- rewrite of it in this database; the tests of the rewrites turn them on.
DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET geoidx.rewrite_postgis = off', current_database()); END $$;
