-- Redo: the front of the redo list goes back onto the history.
local m = redis.call('LPOP', KEYS[4])
if not m then return {'empty'} end
forward(redis.call('RPUSH', KEYS[3], m))
