-- The game's outbox (KEYS[9], `game:{<id>}:outbox`): a Redis stream of what its
-- player's records in PostgreSQL have still to learn of it (the game began, was
-- claimed, ended). An entry is written by the script that makes the change, so it is
-- there exactly when the change is; the gateway drains the stream into PostgreSQL and
-- then deletes what it applied (records.outbox). Each entry carries the game's history
-- and its state as dealt, so a finished game can be replayed from PostgreSQL alone.
-- The stream has no time to live: it goes when it is drained, whatever the game does.
local function to_outbox(entry)
  if entry == nil or entry == '' then return end
  local history = redis.call('LRANGE', KEYS[3], 0, -1)
  local dealt = redis.call('LINDEX', KEYS[2], 0) or ''
  redis.call('XADD', KEYS[9], '*', 'entry', entry, 'history', table.concat(history, '\n'),
             'dealt', dealt)
end
