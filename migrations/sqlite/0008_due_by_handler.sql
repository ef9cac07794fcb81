-- Issue 12 (isolation between handlers): each handler's due deliveries,
-- in due order, so a lease for some handlers reads only their rows, not
-- every due row of the handlers it skips (see the PostgreSQL migration).
-- Pending is written as neither delivered nor dead (the only other states,
-- by the table's CHECK), and the per-handler lease says it so: a lease
-- that said state = 'pending' would also match `delivery_due`, and the
-- planner picks that walk, not knowing the skipped rows sit at its front.
CREATE INDEX delivery_due_by_handler ON delivery (handler, next_attempt_ms)
    WHERE state <> 'delivered' AND state <> 'dead';
