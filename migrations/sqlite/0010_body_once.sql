-- Issue 25. Mirrors migrations/postgres/0010_*.sql.

-- PostgreSQL's deliveries of a critical event no longer keep a copy of its
-- body (the `processed_event` row's is read). The embedded store writes
-- each delivery with its body, as before: its `delivery.body` stays
-- NOT NULL, and the lease's reading of the row's body never applies.
SELECT 1;
