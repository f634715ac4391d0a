-- The idempotency record kept under `key`, or false.
local function record(key)
  if key == '' then return false end
  return redis.call('HGET', KEYS[5], key)
end
