-- ARGV: ttl_ms. Returns nil, or {meta (META, then variant, options_json, deal, secret,
-- status), {steps}, {undone steps}}.
local f = meta({'variant', 'options', 'deal', 'secret', 'status'})
if not f then return false end
touch(ARGV[1])
return {f, redis.call('LRANGE', KEYS[3], 0, -1), redis.call('LRANGE', KEYS[4], 0, -1)}
