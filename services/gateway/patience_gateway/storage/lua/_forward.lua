-- The new state after a step forward to position n (a move or a redo): it becomes
-- the last element; the old last one stays as a checkpoint if n - 1 is a multiple.
local function forward(n)
  if (n - 1) % every == 0 then redis.call('RPUSH', KEYS[2], ARGV[2])
  else redis.call('LSET', KEYS[2], -1, ARGV[2]) end
end
