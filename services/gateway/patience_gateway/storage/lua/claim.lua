-- A player claims an anonymous game (with its token, checked by the caller on the
-- version read). ARGV: [1] the version read, [2] the player, [3] the game's category
-- from now on, [4] ttl_ms, [5] the event's body, [6] the publishing command, [7] the
-- outbox entry. The game token no longer opens the game: the player's does. A new
-- version. Returns {'ok', version}, {'gone'}, {'stale', version} or {'taken'} (another
-- player claimed it first).
local f = redis.call('HMGET', KEYS[1], 'version', 'owner')
local v = f[1]
if not v then return {'gone'} end
if f[2] and f[2] ~= '' then return {'taken'} end
if v ~= ARGV[1] then return {'stale', v} end
local nv = tostring(tonumber(v) + 1)
redis.call('HSET', KEYS[1], 'version', nv, 'owner', ARGV[2], 'token', '', 'category', ARGV[3])
touch(ARGV[4])
publish('claim', nv, ARGV[5], ARGV[6])
to_outbox(ARGV[7])
return {'ok', nv}
