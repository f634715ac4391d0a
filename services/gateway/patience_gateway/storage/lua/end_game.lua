-- Ends a game without a move: a resignation, or an abandonment found by the gateway
-- (records.abandonment). ARGV: [1] the version read, [2] the closed record, [3] ttl_ms,
-- [4] the event's kind, [5] its body, [6] the publishing command, [7] an entry for the
-- outbox ('' for none: an anonymous game). A new version; the state and the history
-- stay. Returns {'ok', version}, {'gone'} or {'stale', version}.
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {'gone'} end
if v ~= ARGV[1] then return {'stale', v} end
local nv = tostring(tonumber(v) + 1)
redis.call('HSET', KEYS[1], 'version', nv, 'record', ARGV[2])
touch(ARGV[3])
publish(ARGV[4], nv, ARGV[5], ARGV[6])
to_outbox(ARGV[7])
return {'ok', nv}
