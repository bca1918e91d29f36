-- scale R1n on the floor's fixed centres (scale_tids), geoidx: the same
-- transaction as r1_tid.sql with the index doing the work.
\set c random(1, :centres)
SELECT lon, lat FROM scale_tids WHERE wi = :wi AND c = :c \gset
SELECT id FROM scale WHERE geoidx_dwithin(pos, ST_SetSRID(ST_MakePoint(:lon, :lat), 4326), :radius::float8);
