-- The start of the compare-and-set writes. ARGV: [1] expected version, [2] new state,
-- [3] new status ('' keeps it), [4] ttl_ms, [5] idempotency key ('' for none), [6] the
-- answer to store under it, [7] how many answers a game keeps (the oldest goes first),
-- [8] the step a new step adds to the history, [9] the event's kind ('' for none),
-- [10] its body, [11] the publishing command (PUBLISH or SPUBLISH), [12] an entry for
-- the game's outbox ('' for none: see _outbox.lua), [13] '1': only while no player owns
-- the game (a claim), [14] '1': a proof of loss of the version read holds for the new
-- one (the position stays), [15], [16], ... more fields of the meta hash to set, as
-- field, value pairs (the game's record, a random deal's number once it is shown,
-- `open`, the settings, the owner).
-- Returns {'ok', new_version}, {'idem', answer} (the key was used meanwhile), {'gone'},
-- {'taken'}, {'stale', version} or {'empty'} (nothing to undo / redo).
if ARGV[5] ~= '' then
  local rec = redis.call('HGET', KEYS[5], ARGV[5])
  if rec then return {'idem', rec} end
end
local f = redis.call('HMGET', KEYS[1], 'version', 'every', 'owner', 'lost')
local v, every = f[1], tonumber(f[2])
if not v then return {'gone'} end
if ARGV[13] == '1' and f[3] and f[3] ~= '' then return {'taken'} end
if v ~= ARGV[1] then return {'stale', v} end
