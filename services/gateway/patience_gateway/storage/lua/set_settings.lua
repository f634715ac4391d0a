-- ARGV: [1] the version read, [2] ttl_ms, [3] autoplay ('1' or '0'), [4] the body of
-- the `settings` event, [5] the publishing command. Changes the game's settings as a new
-- version (the view shows them) without touching its states or history; a proof of loss
-- of the version read still holds (the position is the same). Returns {'ok', version},
-- {'gone'} or {'stale', version}.
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {'gone'} end
if v ~= ARGV[1] then return {'stale', v} end
local nv = tostring(tonumber(v) + 1)
redis.call('HSET', KEYS[1], 'version', nv, 'autoplay', ARGV[3])
if redis.call('HGET', KEYS[1], 'lost') == v then redis.call('HSET', KEYS[1], 'lost', nv) end
touch(ARGV[2])
publish('settings', nv, ARGV[4], ARGV[5])
return {'ok', nv}
