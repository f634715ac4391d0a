-- KEYS[1]: a counter of one kind of request by one client. ARGV: [1] the window (ms),
-- [2] how many requests the window allows. Counts this one; returns 0 when it is
-- within the limit, else the milliseconds until the window ends.
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
if n <= tonumber(ARGV[2]) then return 0 end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) left = tonumber(ARGV[1]) end
return left
