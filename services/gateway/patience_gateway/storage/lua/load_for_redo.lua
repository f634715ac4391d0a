-- ARGV: ttl_ms, idempotency key.
-- Returns nil, or {meta, state, answer kept for the key, the next step to redo or nil};
-- the state is the deal when that step is a restart.
local f = meta({})
if not f then return false end
touch(ARGV[1])
local next_step = redis.call('LINDEX', KEYS[4], 0)
local index = next_step == 'restart' and 0 or -1
return {f, redis.call('LINDEX', KEYS[2], index), answer(ARGV[2]), next_step}
