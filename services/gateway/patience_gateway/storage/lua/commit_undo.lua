-- Undo from position p to p - 1: the last step goes to the front of the undone ones.
-- The state at p goes, checkpoint or not; at a multiple of K the checkpoint there
-- is the state at p - 1 already.
local p = redis.call('LLEN', KEYS[3])
local m = redis.call('RPOP', KEYS[3])
if not m then return {'empty'} end
redis.call('LPUSH', KEYS[4], m)
if p % every ~= 0 and (p - 1) % every == 0 then redis.call('RPOP', KEYS[2])
else redis.call('LSET', KEYS[2], -1, ARGV[2]) end
