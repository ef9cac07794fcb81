-- Mark an owned claim COMPLETED for the dedup window. (A non-critical
-- event whose deliveries go to Redis Streams is never claimed and completed
-- apart: claim.lua completes it and appends them in one step.)
--
-- KEYS[1]  the dedup key
-- KEYS[2]  optional: the body key claimed with the dedup key
-- ARGV[1]  owner token (16 bytes) that claimed it
-- ARGV[2]  window in milliseconds
-- ARGV[3]  digest to record, in its COMPLETED form (claim.lua): the body's own, or, when the durable
--          record holds this ID with another body, the original's, so later
--          copies of the original are duplicates and copies of this body
--          are conflicts.
-- ARGV[4]  with the body key: the event ID to complete it for, or '' to
--          drop it (the event was recorded with another body)
-- ARGV[5]  with the body key: the replay window in milliseconds (how long
--          the completed body key holds the body against a replay)
--
-- Returns 1 when completed, 0 when the caller no longer owns the key (its
-- claim expired and the key is absent or someone else's): nothing is written.
local v = redis.call('GET', KEYS[1])
if not v or string.sub(v, 1, 1) ~= 'P' or string.sub(v, 2, 17) ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[2])
local body = KEYS[2]
if body then
  local b = redis.call('GET', body)
  -- Only our own claim of it (it may have expired and been taken since).
  if b and string.sub(b, 1, 17) == 'P' .. ARGV[1] then
    if ARGV[4] == '' then
      redis.call('DEL', body)
    else
      redis.call('SET', body, 'C' .. ARGV[4], 'PX', ARGV[5])
    end
  end
end
return 1
