-- Claim a dedup key in one atomic step (one round trip).
--
-- KEYS[1]        the dedup key (src/store/redis/keys.rs)
-- KEYS[2..1+n]   with ARGV[5]: the deliveries' streams, one per handler
--                (n = ARGV[7]), in the dedup key's slot, as complete.lua's
-- KEYS[2+n]      optional: {prefix}:body:{TAG}:{provider}:{tenant}:{digest},
--                the body key of a provider whose signature does not cover
--                the event ID
-- ARGV[1]  the body digest in its COMPLETED form: the first 63 bits of the
--          body's SHA-256 as a decimal integer
-- ARGV[2]  owner token: 16 random bytes
-- ARGV[3]  in_progress_ttl in milliseconds
-- ARGV[4]  the event ID (read only with the body key; may be '')
-- ARGV[5]  optional: the dedup window in milliseconds. A new event is then
--          claimed and COMPLETED at once, when nothing happens between
--          claiming and completing it: a non-critical event no handler
--          wants (the key is its whole record), or one whose deliveries go
--          to Redis Streams (appended here, as complete.lua would).
-- ARGV[6]  with ARGV[5]: the replay window in milliseconds, how long the
--          completed body key holds the body against a replay (read only
--          with the body key).
-- ARGV[7]  with ARGV[5]: n, how many streams follow the dedup key (0 or
--          absent for none)
-- ARGV[8..] with n > 0: the delivery's stream entry, field and value pairs
--          (src/store/redis/streams.rs), appended to each stream
--
-- Value layout (kept small: a completed key is held for the whole window):
--   IN_PROGRESS  'P' .. owner(16) .. digest     PX in_progress_ttl
--   COMPLETED    digest                         PX window
-- (Redis keeps a COMPLETED value, a decimal integer, as a 16-byte object.)
-- Body key:
--   IN_PROGRESS  'P' .. owner(16) .. event_id       PX in_progress_ttl
--   COMPLETED    'C' .. event_id                    PX window
--
-- Returns {0} owned (with ARGV[5]: completed), {1} duplicate, {2, pttl_ms} in progress, {3} conflict,
-- {4} replay: this body is held under another event ID.
local function pttl_of(key)
  -- PTTL is -1 only for a key without TTL, which we never write; clamp.
  local pttl = redis.call('PTTL', key)
  if pttl < 0 then
    pttl = 0
  end
  return pttl
end

local n = tonumber(ARGV[7] or '0')
local body = KEYS[2 + n]
local v = redis.call('GET', KEYS[1])
if not v then
  if body then
    local b = redis.call('GET', body)
    if b then
      local state = string.sub(b, 1, 1)
      local holder = string.sub(b, state == 'P' and 18 or 2)
      if holder ~= ARGV[4] then
        if state == 'C' then
          return {4}
        end
        return {2, pttl_of(body)}
      end
    end
    if ARGV[5] then
      redis.call('SET', body, 'C' .. ARGV[4], 'PX', ARGV[6] or ARGV[5])
    else
      redis.call('SET', body, 'P' .. ARGV[2] .. ARGV[4], 'PX', ARGV[3])
    end
  end
  if ARGV[5] then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[5])
    if n > 0 then
      local entry = {}
      for i = 8, #ARGV do
        entry[#entry + 1] = ARGV[i]
      end
      for i = 2, 1 + n do
        redis.call('XADD', KEYS[i], '*', unpack(entry))
      end
    end
    return {0}
  end
  -- Absent or expired: this request owns the key until the TTL runs out.
  redis.call('SET', KEYS[1], 'P' .. ARGV[2] .. ARGV[1], 'PX', ARGV[3])
  return {0}
end
-- A different body under the same ID is a conflict whatever the state,
-- as in the embedded store.
local in_progress = string.sub(v, 1, 1) == 'P'
if (in_progress and string.sub(v, 18) or v) ~= ARGV[1] then
  return {3}
end
if not in_progress then
  return {1}
end
-- In progress elsewhere: tell the caller how long the claim may still last
-- (for Retry-After).
return {2, pttl_of(KEYS[1])}
