-- ARGV: ttl_ms ('' to read without renewing the time to live), idempotency key ('' for
-- none), which state to read: '-1' (the current one) or '0' (the deal), and '1' to read
-- the plan of the game's last hint.
-- Returns nil for an unknown game, else {meta (META, then deal and secret), state,
-- answer kept for the key, at_deal, plan}: `at_deal` is 1 when the game stands at its
-- deal (nothing played since the start or the last restart).
local f = meta({'deal', 'secret'})
if not f then return false end
if ARGV[1] ~= '' then touch(ARGV[1]) end
local last = redis.call('LINDEX', KEYS[3], -1)
local at_deal = (not last or last == 'restart') and 1 or 0
return {f, redis.call('LINDEX', KEYS[2], tonumber(ARGV[3])), answer(ARGV[2]), at_deal,
        ARGV[4] == '1' and redis.call('HGET', KEYS[1], 'plan') or ''}
