-- limit R1 (information, --full): the same rows fetched by primary key
-- (id = ANY(ids precomputed for that centre)), ~17,000 B-tree descents: no
-- limit at all, slower than geoidx, kept to show why the TID scan replaced it.
\set c random(1, 32)
SELECT ST_X(pos) AS lon, ST_Y(pos) AS lat FROM r1_centres WHERE c = :c \gset
SELECT id FROM seed1
 WHERE id = ANY ((SELECT ids FROM r1_centres WHERE c = :c)::int[]);
