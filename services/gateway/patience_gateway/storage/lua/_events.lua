-- The game's events (KEYS[8], `game:{<id>}:events`): each change is published on the
-- pub/sub channel of that name (PUBLISH, or SPUBLISH on a Redis Cluster, where the
-- channel lies in the game's slot) by the script that makes the change. While a stream
-- of the game is open, its changes are also kept in the list of that name, so that a
-- stream that loses its connection can resume from there: the last 16 changes, for 300
-- seconds after the latest change a stream heard. A change that no stream hears is kept
-- only while that list lives (a stream heard one lately and may be coming back); a game
-- that no stream watches keeps no list. An entry is "<kind> <version>\n<JSON body>";
-- kind '' publishes nothing.
local EVENT_LOG_LENGTH = 16
local EVENT_LOG_TTL_MS = 300000
local function publish(kind, version, body, command)
  if kind == nil or kind == '' then return end
  local entry = kind .. ' ' .. version .. '\n' .. body
  if redis.call(command, KEYS[8], entry) > 0 then
    redis.call('RPUSH', KEYS[8], entry)
    redis.call('PEXPIRE', KEYS[8], EVENT_LOG_TTL_MS)
  elseif redis.call('RPUSHX', KEYS[8], entry) == 0 then
    return
  end
  redis.call('LTRIM', KEYS[8], -EVENT_LOG_LENGTH, -1)
end
