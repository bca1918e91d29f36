-- T: the protocol floor. One round trip, no table.
SELECT 1;
