-- scale R1n floor: geoidx's answer at one of the fixed centres (scale_tids,
-- wi = 1) handed to the executor as heap TIDs: no index work at all.
\set c random(1, :centres)
SELECT lon, lat FROM scale_tids WHERE wi = :wi AND c = :c \gset
SELECT id FROM scale WHERE ctid = ANY ((SELECT tids FROM scale_tids WHERE wi = :wi AND c = :c)::tid[]);
