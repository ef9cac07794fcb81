-- Issue 25 (PostgreSQL work per event). Mirrors migrations/sqlite/0010_*.sql.

-- A critical event's body is kept once, by its `processed_event` row: the
-- deliveries recorded with that row (in the same statement) keep none, and
-- a lease reads the row's. Before, every delivery row carried its own copy,
-- and every lease and outcome rewrote it with the row. Deliveries recorded
-- without a row (non-critical events, `ack = "handlers"`) keep theirs.
ALTER TABLE delivery ALTER COLUMN body DROP NOT NULL;

-- An attempt row's delivery is the one its own statement just updated
-- (`RECORD_OUTCOMES` inserts only for the deliveries it updated), and
-- deliveries are never deleted: the foreign key's check, one more
-- statement per attempt, proved nothing.
ALTER TABLE delivery_attempt DROP CONSTRAINT delivery_attempt_delivery_id_fkey;
