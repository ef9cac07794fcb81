-- Issue 10. The same in both dialects.

-- The provider's own headers a handler asked for (`forward_headers`), taken
-- from the request as it arrived: a JSON array of [name, value] pairs, the
-- union of what the event's handlers forward (each attempt sends only its
-- handler's). NULL when no handler forwards any.
ALTER TABLE delivery ADD COLUMN forward_headers TEXT;
