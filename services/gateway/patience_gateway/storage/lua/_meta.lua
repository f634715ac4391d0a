-- The fields of the meta hash every read returns first, in this order (the store reads
-- them as storage.reads.GameMeta), and after them the `more` a script asks for.
local META = {'version', 'token', 'owner', 'category', 'daily', 'open', 'autoplay', 'lost',
              'record', 'hints', 'created'}
local META_COUNT = #META
-- The fields META and `more` (a table, may be empty), upgrading a game of the earlier
-- layout first; nil for an unknown game.
local function meta(more)
  local names = {unpack(META)}
  for i = 1, #more do names[META_COUNT + i] = more[i] end
  local f = redis.call('HMGET', KEYS[1], unpack(names))
  if f[1] then return f end
  if not upgrade() then return nil end
  return redis.call('HMGET', KEYS[1], unpack(names))
end
