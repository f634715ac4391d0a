-- KEYS[1]: a lock; ARGV[1]: its holder's token. Releases the lock if this holder still
-- holds it: returns 1, else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
