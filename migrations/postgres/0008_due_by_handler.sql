-- Issue 12 (isolation between handlers): each handler's due deliveries,
-- in due order. While a handler is full or its circuit is open, the
-- workers lease only for the others, one index range per handler. Through
-- `delivery_due` alone, every such lease read past all the skipped
-- handler's due rows first: with a timing-out handler's backlog of 20,000,
-- about 6 ms and 4,000 buffers per lease, run as often as events arrive.
-- Pending is written as neither delivered nor dead (the only other states,
-- by the table's CHECK), and the per-handler lease says it so: a lease
-- that said state = 'pending' would also match `delivery_due`, and the
-- planner picks that walk, not knowing the skipped rows sit at its front.
CREATE INDEX delivery_due_by_handler ON delivery (handler, next_attempt_ms)
    WHERE state <> 'delivered' AND state <> 'dead';
