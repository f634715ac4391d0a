-- ARGV: ttl_ms ('' to read without renewing the time to live), idempotency key ('' for
-- none), which state to read: '-1' (the current one; the default) or '0' (the deal,
-- for a restart), and '1' to read the plan of the game's last hint (for a hint).
-- Returns nil for an unknown game, else {state, version, token_sha256, record, open,
-- lost, autoplay, owner, game record, hints, created, category, at_deal, deal, secret,
-- daily, plan}
-- (`open`: the
-- deal number of a game taken back after its random deal was shown; `lost`: the
-- version a search proved lost; `autoplay`: '1' when the game plays the safe moves
-- after each move; `owner`: the player who owns it; `at_deal`: 1 when the game stands
-- at its deal, nothing played since the start or the last restart).
local f = meta({'version', 'token', 'open', 'lost', 'autoplay', 'owner', 'record', 'hints',
                'created', 'category', 'deal', 'secret', 'daily'})
if not f then return false end
if ARGV[1] ~= '' then touch(ARGV[1]) end
local last = redis.call('LINDEX', KEYS[3], -1)
local at_deal = (not last or last == 'restart') and 1 or 0
return {redis.call('LINDEX', KEYS[2], tonumber(ARGV[3] or '-1')), f[1], f[2], record(ARGV[2]),
        f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], at_deal, f[11], f[12], f[13],
        ARGV[4] == '1' and redis.call('HGET', KEYS[1], 'plan') or ''}
