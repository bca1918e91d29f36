-- T limit: the same rows as an R1 ids answer, fetched by primary key
-- (id = ANY(ids precomputed for that centre)): what producing those rows
-- costs without any spatial work. The centre table r1_centres is read by
-- primary key in every variant of this workload, so the extra work is equal.
\set c random(1, 32)
SELECT id FROM seed1
 WHERE id = ANY ((SELECT ids FROM r1_centres WHERE c = :c)::int[]);
