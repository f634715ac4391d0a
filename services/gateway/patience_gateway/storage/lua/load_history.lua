-- ARGV: ttl_ms. Returns nil, or
-- {version, token_sha256, variant, options_json, deal, secret, status, {moves}, {redo},
--  open, owner, daily}.
local f = meta({'version', 'token', 'variant', 'options', 'deal', 'secret', 'status',
                'open', 'owner', 'daily'})
if not f then return false end
touch(ARGV[1])
return {f[1], f[2], f[3], f[4], f[5], f[6], f[7],
        redis.call('LRANGE', KEYS[3], 0, -1), redis.call('LRANGE', KEYS[4], 0, -1), f[8], f[9],
        f[10]}
