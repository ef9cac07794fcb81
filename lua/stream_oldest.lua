-- When the oldest delivery waiting in a handler's stream or retry set was
-- recorded (its `m` field, milliseconds since the epoch), for the
-- `backlog_age` alert. Writes nothing.
--
-- KEYS[1]  the handler's stream
-- KEYS[2]  its retry set
-- ARGV[1]  most retry-set entries to read (those due first)
--
-- Returns the time, or -1 when nothing waits. The stream is read from its
-- front (retries that came back from the set are behind newer entries),
-- so a deep backlog may hold an older one further in: the answer is never
-- younger than the front's.
local oldest = -1
local function consider(fields)
  for i = 1, #fields, 2 do
    if fields[i] == 'm' then
      local m = tonumber(fields[i + 1])
      if m and (oldest < 0 or m < oldest) then
        oldest = m
      end
    end
  end
end
local front = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
if #front == 1 then
  consider(front[1][2])
end
for _, packed in ipairs(redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[1]) - 1)) do
  consider(cmsgpack.unpack(packed))
end
return oldest
