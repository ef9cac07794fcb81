-- Append one hookline delivery to a Redis Stream, at most once per
-- webhook-id within the destination's dedup window (kind = "redis-stream").
--
-- KEYS[1]  the stream
-- KEYS[2]  the delivery's idempotency key (STREAM:hookline-id:WEBHOOK-ID)
-- ARGV[1]  how long the idempotency key lives, in milliseconds
-- ARGV[2]  MAXLEN ~ to trim the stream to; "0" trims nothing
-- ARGV[3..] field, value, field, value, ... of the entry
--
-- Returns {1, entry-id} when the entry was appended, {0, entry-id} when this
-- webhook-id was appended before (a redelivery: the stream has it already).
--
-- The key is written after the XADD, not before: a script that errors half
-- way is not rolled back, so an XADD that fails (the key holds another type,
-- out of memory) must leave no key behind that would make the retry look
-- like a duplicate. Inside one script the check and the append are atomic.
local seen = redis.call('GET', KEYS[2])
if seen then
  return {0, seen}
end
local add = {'XADD', KEYS[1]}
if ARGV[2] ~= '0' then
  add[#add + 1] = 'MAXLEN'
  add[#add + 1] = '~'
  add[#add + 1] = ARGV[2]
end
add[#add + 1] = '*'
for i = 3, #ARGV do
  add[#add + 1] = ARGV[i]
end
local id = redis.call(unpack(add))
redis.call('SET', KEYS[2], id, 'NX', 'PX', ARGV[1])
return {1, id}
