-- A delivery row is written once and then updated at least twice (the
-- worker's lease, then the outcome). Keep those updates small: the body
-- goes out of line into the TOAST table (an update copies a pointer, not
-- the body), uncompressed (no CPU spent on it per write), and pages keep
-- room so that a lease (which changes no indexed column) can be a HOT
-- update. Delivered rows leave dead entries in the `delivery_due` index
-- that every lease would step over until vacuumed: vacuum this table
-- early, not after 20% of it has churned.
ALTER TABLE delivery ALTER COLUMN body SET STORAGE EXTERNAL;
ALTER TABLE delivery SET (
    toast_tuple_target = 128,
    fillfactor = 70,
    autovacuum_vacuum_scale_factor = 0.01,
    autovacuum_vacuum_insert_scale_factor = 0.01
);
