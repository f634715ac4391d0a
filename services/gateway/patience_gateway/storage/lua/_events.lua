-- The game's events (KEYS[8], `game:{<id>}:events`): each change is published on the
-- pub/sub channel of that name (PUBLISH, or SPUBLISH on a Redis Cluster, where the
-- channel lies in the game's slot) by the script that makes the change, and kept in the
-- list of that name: the last 16 changes, for 300 seconds after the latest, so that a
-- stream that lost its connection can resume from there. An entry is
-- "<kind> <version>\n<JSON body>"; kind '' publishes nothing.
local EVENT_LOG_LENGTH = 16
local EVENT_LOG_TTL_MS = 300000
local function publish(kind, version, body, command)
  if kind == nil or kind == '' then return end
  local entry = kind .. ' ' .. version .. '\n' .. body
  redis.call('RPUSH', KEYS[8], entry)
  redis.call('LTRIM', KEYS[8], -EVENT_LOG_LENGTH, -1)
  redis.call('PEXPIRE', KEYS[8], EVENT_LOG_TTL_MS)
  redis.call(command, KEYS[8], entry)
end
