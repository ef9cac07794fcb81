-- Deliveries waiting in a handler's stream and retry set: one event's, for
-- its console page and `hookline events show`, or every one, for the
-- console's list of waiting deliveries. Writes nothing.
--
-- KEYS[1]  the handler's stream
-- KEYS[2]  its retry set
-- ARGV[1]  the event ID, or '' for every entry
-- ARGV[2]  most entries of each to read (the stream from its front, the
--          retry set in due order)
--
-- Returns one {due, fields} per match, the body left out: `due` is when a
-- retry is due (ms since the epoch), or -1 for an entry in the stream
-- (due now, or held by a worker).
local found = {}
local limit = tonumber(ARGV[2])
local function keep(fields, due)
  for i = 1, #fields, 2 do
    if fields[i] == 'e' then
      if ARGV[1] ~= '' and fields[i + 1] ~= ARGV[1] then
        return
      end
      local shown = {}
      for j = 1, #fields, 2 do
        if fields[j] ~= 'b' then
          shown[#shown + 1] = fields[j]
          shown[#shown + 1] = fields[j + 1]
        end
      end
      found[#found + 1] = {due, shown}
      return
    end
  end
end
for _, entry in ipairs(redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', limit)) do
  keep(entry[2], -1)
end
local retries = redis.call('ZRANGE', KEYS[2], 0, limit - 1, 'WITHSCORES')
for i = 1, #retries, 2 do
  keep(cmsgpack.unpack(retries[i]), tonumber(retries[i + 1]))
end
return found
