-- Give an owned claim up (processing failed) so the provider's retry is not
-- blocked for in_progress_ttl.
--
-- KEYS[1]  the dedup key
-- ARGV[1]  owner token (16 bytes) that claimed it
-- KEYS[2]  optional: the body key claimed with it, freed if still ours
--
-- Returns 1 when released, 0 when the caller no longer owns the key: a stale
-- owner must never delete a newer claim or a completed key.
local v = redis.call('GET', KEYS[1])
if not v or string.sub(v, 1, 1) ~= 'P' or string.sub(v, 2, 17) ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
if KEYS[2] then
  local b = redis.call('GET', KEYS[2])
  if b and string.sub(b, 1, 17) == 'P' .. ARGV[1] then
    redis.call('DEL', KEYS[2])
  end
end
return 1
