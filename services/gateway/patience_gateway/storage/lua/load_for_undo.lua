-- ARGV: ttl_ms, idempotency key. Undo goes to position p - 1: it needs the checkpoint
-- at or before it and the steps from there (fewer than K).
-- Returns nil, or {meta (META, then every, status, secret, deal), checkpoint_state,
-- answer kept for the key, p, {steps...}, dealt} (checkpoint_state false and no steps
-- when p is 0). A step is one change: a move, possibly with the safe moves after it, or
-- a restart; `dealt`, the state as dealt, comes when a restart is among the steps to
-- replay (false otherwise).
local f = meta({'every', 'status', 'secret', 'deal'})
if not f then return false end
touch(ARGV[1])
local p = redis.call('LLEN', KEYS[3])
if p == 0 then return {f, false, answer(ARGV[2]), 0, {}, false} end
local every = tonumber(f[META_COUNT + 1])
local target = p - 1
local base = target - target % every
local steps = {}
if target > base then steps = redis.call('LRANGE', KEYS[3], base, target - 1) end
local checkpoint = redis.call('LINDEX', KEYS[2], math.floor(base / every))
local dealt = false
for _, m in ipairs(steps) do
  if m == 'restart' then dealt = redis.call('LINDEX', KEYS[2], 0) break end
end
return {f, checkpoint, answer(ARGV[2]), p, steps, dealt}
