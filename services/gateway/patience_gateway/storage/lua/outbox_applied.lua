-- KEYS[1]: a game's outbox. ARGV: the ids of the entries applied to PostgreSQL.
-- Deletes them, and the stream once it is empty. Returns the entries left.
redis.call('XDEL', KEYS[1], unpack(ARGV))
local left = redis.call('XLEN', KEYS[1])
if left == 0 then redis.call('DEL', KEYS[1]) end
return left
