-- The answer kept for the Idempotency-Key `key`, or false.
local function answer(key)
  if key == '' then return false end
  return redis.call('HGET', KEYS[5], key)
end
