-- What a dedup key says, for operators (not a transition: it writes nothing).
--
-- KEYS[1]  the dedup key
--
-- Returns {0} absent, {1, pttl_ms} in progress, {2, pttl_ms} completed.
-- One script, so the state and the time it is kept are read together.
local v = redis.call('GET', KEYS[1])
if not v then
  return {0}
end
local pttl = redis.call('PTTL', KEYS[1])
if string.sub(v, 1, 1) == 'P' then
  return {1, pttl}
end
return {2, pttl}
