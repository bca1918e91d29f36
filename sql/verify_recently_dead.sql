-- geoidx_verify on an index built concurrently while rows were recently dead:
-- REINDEX CONCURRENTLY leaves out rows already dead at its snapshots, and
-- while they are RECENTLY_DEAD (vacuum_defer_cleanup_age keeps them so here,
-- as a standby's hot_standby_feedback does in production) their absence from
-- the index is no corruption. geoidx_verify called such an index invalid.
CREATE EXTENSION IF NOT EXISTS pageinspect;
CREATE TABLE rd (id int, pos geometry(Point, 4326));
INSERT INTO rd SELECT g, ST_Point(g * 0.01, 0, 4326) FROM generate_series(1, 100) g;
CREATE INDEX rd_idx ON rd USING geoidx (pos);
ALTER SYSTEM SET vacuum_defer_cleanup_age = 100000;
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
DELETE FROM rd WHERE id <= 10;
REINDEX INDEX CONCURRENTLY rd_idx;
VACUUM rd;
-- the 10 deleted rows are still on the heap page, and not in the index
SELECT count(*) AS dead_versions FROM heap_page_items(get_raw_page('rd', 0)) WHERE t_xmax <> 0;
SELECT entries FROM geoidx_stats('rd_idx');
SELECT geoidx_verify('rd_idx');
ALTER SYSTEM RESET vacuum_defer_cleanup_age;
SELECT pg_reload_conf();
DROP TABLE rd;
DROP EXTENSION pageinspect;
