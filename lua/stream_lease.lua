-- Lease a handler's due deliveries from its stream (non-critical events,
-- `store.non_critical_deliveries = "redis"`), in one step:
-- 1. retries whose time has come go back into the stream;
-- 2. entries a worker took and did not finish within the lease (it died)
--    are taken over (XAUTOCLAIM);
-- 3. new entries are read for this worker (XREADGROUP).
-- Every entry read stays in the group's pending list, owned by this worker,
-- until stream_finish.lua acknowledges and deletes it.
--
-- KEYS[1]  the handler's stream of one provider+tenant
-- KEYS[2]  its retry set: packed entries scored by the time they are due
-- ARGV[1]  consumer group
-- ARGV[2]  this worker's consumer name (its lease owner)
-- ARGV[3]  most entries to return
-- ARGV[4]  the lease in milliseconds: an entry idle this long is taken over
-- ARGV[5]  now, milliseconds since the epoch
--
-- Returns entries as XREADGROUP does: { {id, {field, value, ...}}, ... }.
local count = tonumber(ARGV[3])
local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[5], 'LIMIT', 0, count)
for _, packed in ipairs(due) do
  redis.call('XADD', KEYS[1], '*', unpack(cmsgpack.unpack(packed)))
  redis.call('ZREM', KEYS[2], packed)
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {}
end
local out = {}
local claimed = redis.pcall('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[4], '0-0', 'COUNT', count)
if claimed.err then
  if string.sub(claimed.err, 1, 7) ~= 'NOGROUP' then
    return redis.error_reply(claimed.err)
  end
  -- From the stream's first entry: those appended before any worker came.
  redis.call('XGROUP', 'CREATE', KEYS[1], ARGV[1], '0')
else
  for _, e in ipairs(claimed[2]) do
    out[#out + 1] = e
  end
end
if #out < count then
  local read = redis.call('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', count - #out,
    'STREAMS', KEYS[1], '>')
  if read then
    for _, e in ipairs(read[1][2]) do
      out[#out + 1] = e
    end
  end
end
return out
