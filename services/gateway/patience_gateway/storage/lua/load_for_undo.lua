-- ARGV: ttl_ms, idempotency key. Undo goes to position p - 1: it needs the checkpoint
-- at or before it and the moves from there (fewer than K).
-- Returns nil, or {checkpoint_state, version, token_sha256, record, p, {moves...},
-- {status, secret, deal, open}, autoplay, owner, game record, hints, created, category,
-- dealt, daily} (checkpoint_state false and no moves when p is 0). A history entry is one
-- change: a move, possibly with the safe moves after it, or a restart; `dealt`, the
-- state as dealt, comes when a restart is among the moves to replay (false otherwise).
local f = meta({'version', 'token', 'every', 'status', 'secret', 'deal', 'open',
                'autoplay', 'owner', 'record', 'hints', 'created', 'category', 'daily'})
if not f then return false end
touch(ARGV[1])
local ends = {f[4], f[5], f[6], f[7]}
local p = redis.call('LLEN', KEYS[3])
if p == 0 then
  return {false, f[1], f[2], record(ARGV[2]), 0, {}, ends, f[8], f[9], f[10], f[11], f[12],
          f[13], false, f[14]}
end
local every = tonumber(f[3])
local target = p - 1
local base = target - target % every
local moves = {}
if target > base then moves = redis.call('LRANGE', KEYS[3], base, target - 1) end
local checkpoint = redis.call('LINDEX', KEYS[2], math.floor(base / every))
local dealt = false
for _, m in ipairs(moves) do
  if m == 'restart' then dealt = redis.call('LINDEX', KEYS[2], 0) break end
end
return {checkpoint, f[1], f[2], record(ARGV[2]), p, moves, ends, f[8], f[9], f[10], f[11],
        f[12], f[13], dealt, f[14]}
