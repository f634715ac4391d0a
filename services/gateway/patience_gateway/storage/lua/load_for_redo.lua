-- ARGV: ttl_ms, idempotency key.
-- Returns nil, or {state, version, token_sha256, record, next_redo_entry_or_nil, open,
-- autoplay, owner, game record, hints, created, category, daily}; the state is the deal when
-- the change to redo is a restart.
local f = meta({'version', 'token', 'open', 'autoplay', 'owner', 'record', 'hints', 'created',
                'category', 'daily'})
if not f then return false end
touch(ARGV[1])
local next_redo = redis.call('LINDEX', KEYS[4], 0)
local index = next_redo == 'restart' and 0 or -1
return {redis.call('LINDEX', KEYS[2], index), f[1], f[2], record(ARGV[2]), next_redo, f[3],
        f[4], f[5], f[6], f[7], f[8], f[9], f[10]}
