-- Part of every script that renews a game's time to live: the keys of the current
-- layout are KEYS[1] to KEYS[6] (KEYS[7] is the earlier layout's hash).
local LIVE_KEYS = 6
local function touch(ttl_ms)
  for i = 1, LIVE_KEYS do redis.call('PEXPIRE', KEYS[i], ttl_ms) end
end
