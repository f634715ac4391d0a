-- KEYS[1]: a lock; ARGV: its holder's token, the new time to live (ms).
-- Extends the lock if this holder still holds it: returns 1, else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
