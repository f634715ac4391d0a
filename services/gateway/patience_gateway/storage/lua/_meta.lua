-- The metadata fields `names` (a table), upgrading a game of the earlier layout
-- first; nil for an unknown game.
local function meta(names)
  local f = redis.call('HMGET', KEYS[1], unpack(names))
  if f[1] then return f end
  if not upgrade() then return nil end
  return redis.call('HMGET', KEYS[1], unpack(names))
end
