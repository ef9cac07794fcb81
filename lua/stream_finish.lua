-- End workers' holds on deliveries of one stream, each if its worker still
-- holds it: the entry is acknowledged and deleted, and with 'retry' a copy
-- with its attempt count and kept attempts (the last of which is its last
-- answer) goes into the retry set, due when the entry says.
-- (A dead letter is written to PostgreSQL before this runs with 'ack'.)
--
-- KEYS[1]  the handler's stream
-- KEYS[2]  its retry set
-- ARGV[1]  consumer group
-- then, per entry, seven arguments (the first entry's from ARGV[2]):
--   +0  the worker's consumer name
--   +1  the entry ID
--   +2  'ack' or 'retry'
--   +3  with 'retry': when it is due, milliseconds since the epoch
--   +4  with 'retry': attempts made so far, or '' to keep the entry's
--       attempts as they are (handed back unattempted)
--   +5  with 'retry' after an attempt: the attempt as one line of JSON,
--       added to the entry's kept attempts (`l`, one per line)
--   +6  with 'retry' after an attempt: most attempts `l` keeps (the
--       latest)
--
-- Entries written before the last answer was read from `l` also carry it
-- as `s` (status) and `x` (error): an attempt drops them, `l` says it.
--
-- Returns, per entry in order, 1 when done, 0 when another worker holds
-- the entry now (or it is gone): nothing is written for it.

local function requeue(id, due, attempts, line, keep)
  local e = redis.call('XRANGE', KEYS[1], id, id)
  if #e == 0 then
    return
  end
  local fields, kept = e[1][2], {}
  local attempted = attempts ~= ''
  local lines = {}
  for i = 1, #fields, 2 do
    local f = fields[i]
    if f == 'l' and attempted then
      for l in string.gmatch(fields[i + 1], '[^\n]+') do
        lines[#lines + 1] = l
      end
    elseif not attempted or (f ~= 'a' and f ~= 's' and f ~= 'x') then
      kept[#kept + 1] = f
      kept[#kept + 1] = fields[i + 1]
    end
  end
  if attempted then
    lines[#lines + 1] = line
    local first = math.max(1, #lines - tonumber(keep) + 1)
    kept[#kept + 1] = 'l'
    kept[#kept + 1] = table.concat(lines, '\n', first, #lines)
    kept[#kept + 1] = 'a'
    kept[#kept + 1] = attempts
  end
  redis.call('ZADD', KEYS[2], due, cmsgpack.pack(kept))
end

local done, gone = {}, {}
for at = 2, #ARGV, 7 do
  local owner, id, how = ARGV[at], ARGV[at + 1], ARGV[at + 2]
  local p = redis.call('XPENDING', KEYS[1], ARGV[1], id, id, 1)
  if #p == 0 or p[1][2] ~= owner then
    done[#done + 1] = 0
  else
    if how == 'retry' then
      requeue(id, ARGV[at + 3], ARGV[at + 4], ARGV[at + 5], ARGV[at + 6])
    end
    gone[#gone + 1] = id
    done[#done + 1] = 1
  end
end
-- One acknowledgement and one deletion for all of them (a batch holds at
-- most a few dozen entries, well inside Lua's limit on unpacked values).
if #gone > 0 then
  redis.call('XACK', KEYS[1], ARGV[1], unpack(gone))
  redis.call('XDEL', KEYS[1], unpack(gone))
end
return done
