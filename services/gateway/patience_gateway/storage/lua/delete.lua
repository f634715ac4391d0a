-- ARGV: expected version ('' for any), the body of the `deleted` event, the publishing
-- command, an entry for the outbox ('' for none: a player's game that had not ended
-- ends as abandoned). Returns {'ok'}, {'gone'} or {'stale', version}. The outbox stays
-- until it is drained.
local f = meta({})
if not f then return {'gone'} end
if ARGV[1] ~= '' and f[1] ~= ARGV[1] then return {'stale', f[1]} end
to_outbox(ARGV[4])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
publish('deleted', tostring(tonumber(f[1]) + 1), ARGV[2], ARGV[3])
redis.call('DEL', KEYS[8])
return {'ok'}
