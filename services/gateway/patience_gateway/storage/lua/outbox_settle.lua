-- KEYS[1]: the outboxes waiting to be drained (a sorted set: game id -> when its last
-- entry was announced). ARGV: [1] a game id, [2] the score read before its outbox was
-- drained. Forgets the game only if no entry was announced since (the score is the
-- same): an entry written meanwhile keeps it waiting. Returns 1 when forgotten.
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == ARGV[2] then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
