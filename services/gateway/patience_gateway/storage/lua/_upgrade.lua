-- A game stored before checkpoints kept everything in one hash (KEYS[7]: state,
-- initial and the metadata). It is moved to this layout on first use, with a
-- checkpoint interval too large to be reached: its list is the deal and the current
-- state, and its undo replays from the deal as it always did.
local LEGACY_EVERY = '2147483647'
local function upgrade()
  if redis.call('EXISTS', KEYS[7]) == 0 then return false end
  local old = redis.call('HGETALL', KEYS[7])
  local fields, state, initial = {'every', LEGACY_EVERY}, nil, nil
  for i = 1, #old, 2 do
    if old[i] == 'state' then state = old[i + 1]
    elseif old[i] == 'initial' then initial = old[i + 1]
    else fields[#fields + 1] = old[i]; fields[#fields + 1] = old[i + 1] end
  end
  local ttl = redis.call('PTTL', KEYS[7])
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[7])
  redis.call('HSET', KEYS[1], unpack(fields))
  redis.call('RPUSH', KEYS[2], initial)
  if redis.call('LLEN', KEYS[3]) > 0 then redis.call('RPUSH', KEYS[2], state) end
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[1], ttl)
    redis.call('PEXPIRE', KEYS[2], ttl)
  end
  return true
end
