-- End a worker's hold on a stream delivery, if it still holds it: the
-- entry is acknowledged and deleted, and with 'retry' a copy with its
-- attempt count and kept attempts (the last of which is its last answer)
-- goes into the retry set, due at ARGV[5].
-- (A dead letter is written to PostgreSQL before this runs with 'ack'.)
--
-- KEYS[1]  the handler's stream
-- KEYS[2]  its retry set
-- ARGV[1]  consumer group
-- ARGV[2]  the worker's consumer name
-- ARGV[3]  the entry ID
-- ARGV[4]  'ack' or 'retry'
-- ARGV[5]  with 'retry': when it is due, milliseconds since the epoch
-- ARGV[6]  with 'retry': attempts made so far, or '' to keep the entry's
--          attempts as they are (handed back unattempted)
-- ARGV[7]  with 'retry' after an attempt: the attempt as one line of JSON,
--          added to the entry's kept attempts (`l`, one per line)
-- ARGV[8]  with 'retry' after an attempt: most attempts `l` keeps (the
--          latest)
--
-- Entries written before the last answer was read from `l` also carry it
-- as `s` (status) and `x` (error): an attempt drops them, `l` says it.
--
-- Returns 1 when done, 0 when another worker holds the entry now (or it is
-- gone): nothing is written.
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
if #p == 0 or p[1][2] ~= ARGV[2] then
  return 0
end
if ARGV[4] == 'retry' then
  local e = redis.call('XRANGE', KEYS[1], ARGV[3], ARGV[3])
  if #e == 1 then
    local fields, kept = e[1][2], {}
    local attempted = ARGV[6] ~= ''
    local lines = {}
    for i = 1, #fields, 2 do
      local f = fields[i]
      if f == 'l' and attempted then
        for line in string.gmatch(fields[i + 1], '[^\n]+') do
          lines[#lines + 1] = line
        end
      elseif not attempted or (f ~= 'a' and f ~= 's' and f ~= 'x') then
        kept[#kept + 1] = f
        kept[#kept + 1] = fields[i + 1]
      end
    end
    if attempted then
      lines[#lines + 1] = ARGV[7]
      local first = math.max(1, #lines - tonumber(ARGV[8]) + 1)
      kept[#kept + 1] = 'l'
      kept[#kept + 1] = table.concat(lines, '\n', first, #lines)
      kept[#kept + 1] = 'a'
      kept[#kept + 1] = ARGV[6]
    end
    redis.call('ZADD', KEYS[2], ARGV[5], cmsgpack.pack(kept))
  end
end
redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
redis.call('XDEL', KEYS[1], ARGV[3])
return 1
