-- KEYS: meta, states, events and, with ARGV[1] = '1', the ticket to use up.
-- Returns {'ticket'} (no such ticket: used, expired or never issued), {'gone'}, or
-- {'ok', version, current_state, {recent event entries, oldest first}}.
if ARGV[1] == '1' and redis.call('DEL', KEYS[4]) == 0 then return {'ticket'} end
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {'gone'} end
return {'ok', v, redis.call('LINDEX', KEYS[2], -1), redis.call('LRANGE', KEYS[3], 0, -1)}
