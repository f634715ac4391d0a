-- KEYS: the game's keys (KEYS[8]: the events, unused here; KEYS[9]: its outbox), then
-- KEYS[10], where a create sent with an Idempotency-Key keeps its answer
-- (`keys.created_answer_key`).
-- ARGV: [1] ttl_ms, [2] the state as dealt, [3] the answer to keep ('' when the create
-- had no Idempotency-Key), [4] how long to keep it (ms), [5] an entry for the outbox
-- ('' for none: a player's game has one), then field, value, field, value ... of the
-- game's metadata hash (version and every among them).
-- Returns {'ok'}, {'idem', answer} when a create with the same key stored the game
-- first, or {'taken'} when another game has the id (without a kept answer: a 144-bit
-- collision, and the caller draws again; with one: an answer no longer kept).
-- The answer does not share the game's life: not touched, not deleted with the game.
if ARGV[3] ~= '' then
  local kept = redis.call('GET', KEYS[10])
  if kept then return {'idem', kept} end
end
if redis.call('EXISTS', KEYS[1], KEYS[7]) > 0 then return {'taken'} end
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
if ARGV[3] ~= '' then redis.call('SET', KEYS[10], ARGV[3], 'PX', ARGV[4]) end
to_outbox(ARGV[5])
return {'ok'}
