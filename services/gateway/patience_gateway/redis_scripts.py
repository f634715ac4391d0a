"""The Lua scripts that read and write a game in Redis.

Every script names all the keys it touches in KEYS, always in the order of
`store.script_keys`: meta, states, moves, redo, idem, idem_order, then the one hash
of the earlier layout (read only to upgrade a game stored in it). The keys share
the game id as a hash tag, so they live in one Redis Cluster slot and a script may
use them all.

The states list holds the game's sealed states at positions 0, K, 2K, ... (K is the
game's `every` field, fixed at its creation) and, last, the state at the current
position p when p is not itself a multiple of K: the current state is always the
last element, and the list has floor(p / K) + 1 elements, one more when K does not
divide p. Undo replays fewer than K moves from the checkpoint at or before its
target, whatever the length of the game.

Reads are scripts too, so that one round trip fetches what an operation needs
(state, version, token hash, the idempotency record) and refreshes the time to
live. Writes are compare-and-set: they check the version read earlier, and are the
only writes an operation makes, so a change is applied entirely or not at all.
"""

from __future__ import annotations

# Keys of the current layout (KEYS[1] to KEYS[6]); KEYS[7] is the earlier one's hash.
_PRELUDE = """
local LIVE_KEYS = 6
local function touch(ttl_ms)
  for i = 1, LIVE_KEYS do redis.call('PEXPIRE', KEYS[i], ttl_ms) end
end
"""

# A game stored before checkpoints kept everything in one hash (KEYS[7]: state,
# initial and the metadata). It is moved to this layout on first use, with a
# checkpoint interval too large to be reached: its list is the deal and the current
# state, and its undo replays from the deal as it always did.
_UPGRADE = """
local LEGACY_EVERY = '2147483647'
local function upgrade()
  if redis.call('EXISTS', KEYS[7]) == 0 then return false end
  local old = redis.call('HGETALL', KEYS[7])
  local fields, state, initial = {'every', LEGACY_EVERY}, nil, nil
  for i = 1, #old, 2 do
    if old[i] == 'state' then state = old[i + 1]
    elseif old[i] == 'initial' then initial = old[i + 1]
    else fields[#fields + 1] = old[i]; fields[#fields + 1] = old[i + 1] end
  end
  local ttl = redis.call('PTTL', KEYS[7])
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[7])
  redis.call('HSET', KEYS[1], unpack(fields))
  redis.call('RPUSH', KEYS[2], initial)
  if redis.call('LLEN', KEYS[3]) > 0 then redis.call('RPUSH', KEYS[2], state) end
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[1], ttl)
    redis.call('PEXPIRE', KEYS[2], ttl)
  end
  return true
end
"""

# The idempotency record named by ARGV[idem_arg], or false.
_RECORD = """
local function record(key)
  if key == '' then return false end
  return redis.call('HGET', KEYS[5], key)
end
"""

# The metadata fields `names` (a table), upgrading a game of the earlier layout
# first; nil for an unknown game.
_META = """
local function meta(names)
  local f = redis.call('HMGET', KEYS[1], unpack(names))
  if f[1] then return f end
  if not upgrade() then return nil end
  return redis.call('HMGET', KEYS[1], unpack(names))
end
"""

_READ_PRELUDE = _PRELUDE + _UPGRADE + _RECORD + _META

# ARGV: ttl_ms, idempotency key ('' for none).
# Returns nil for an unknown game, else {state, version, token_sha256, record, open,
# lost, autoplay} (`open`: the deal number of a game taken back after its random deal
# was shown; `lost`: the version a search proved lost; `autoplay`: '1' when the game
# plays the safe moves after each move).
LOAD_STATE = (
    _READ_PRELUDE
    + """
local f = meta({'version', 'token', 'open', 'lost', 'autoplay'})
if not f then return false end
touch(ARGV[1])
return {redis.call('LINDEX', KEYS[2], -1), f[1], f[2], record(ARGV[2]), f[3], f[4], f[5]}
"""
)

# ARGV: the version a search proved lost. Kept in the meta hash as `lost` while the game
# is still at that version (any change bumps the version, and the proof no longer
# applies). Returns 1, or 0 when the game is gone or has moved on.
REMEMBER_LOST = """
local v = redis.call('HGET', KEYS[1], 'version')
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'lost', v)
return 1
"""

# ARGV: ttl_ms, idempotency key. Undo goes to position p - 1: it needs the checkpoint
# at or before it and the moves from there (fewer than K).
# Returns nil, or {checkpoint_state, version, token_sha256, record, p, {moves...},
# {status, secret, deal, open}, autoplay} (checkpoint_state false and no moves when p
# is 0). A history entry is one change: a move, possibly with the safe moves after it.
LOAD_FOR_UNDO = (
    _READ_PRELUDE
    + """
local f = meta({'version', 'token', 'every', 'status', 'secret', 'deal', 'open',
                'autoplay'})
if not f then return false end
touch(ARGV[1])
local ends = {f[4], f[5], f[6], f[7]}
local p = redis.call('LLEN', KEYS[3])
if p == 0 then return {false, f[1], f[2], record(ARGV[2]), 0, {}, ends, f[8]} end
local every = tonumber(f[3])
local target = p - 1
local base = target - target % every
local moves = {}
if target > base then moves = redis.call('LRANGE', KEYS[3], base, target - 1) end
local checkpoint = redis.call('LINDEX', KEYS[2], math.floor(base / every))
return {checkpoint, f[1], f[2], record(ARGV[2]), p, moves, ends, f[8]}
"""
)

# ARGV: ttl_ms, idempotency key.
# Returns nil, or {state, version, token_sha256, record, next_redo_entry_or_nil, open,
# autoplay}.
LOAD_FOR_REDO = (
    _READ_PRELUDE
    + """
local f = meta({'version', 'token', 'open', 'autoplay'})
if not f then return false end
touch(ARGV[1])
return {redis.call('LINDEX', KEYS[2], -1), f[1], f[2], record(ARGV[2]),
        redis.call('LINDEX', KEYS[4], 0), f[3], f[4]}
"""
)

# ARGV: ttl_ms. Returns nil, or
# {version, token_sha256, variant, options_json, deal, secret, status, {moves}, {redo},
#  open}.
LOAD_HISTORY = (
    _READ_PRELUDE
    + """
local f = meta({'version', 'token', 'variant', 'options', 'deal', 'secret', 'status',
                'open'})
if not f then return false end
touch(ARGV[1])
return {f[1], f[2], f[3], f[4], f[5], f[6], f[7],
        redis.call('LRANGE', KEYS[3], 0, -1), redis.call('LRANGE', KEYS[4], 0, -1), f[8]}
"""
)

# ARGV: ttl_ms. A write that changes nothing but the time to live, for a WAIT to
# confirm everything written to the game before it.
TOUCH = (
    _PRELUDE
    + """
touch(ARGV[1])
return 1
"""
)

# KEYS[1]: a create record (`store.create_record_key`). Returns it, or nil.
LOAD_CREATE_RECORD = """
return redis.call('GET', KEYS[1])
"""

# KEYS: the game's keys, then KEYS[9], its create record (KEYS[8]: the
# events, unused here) (`store.create_record_key`).
# ARGV: [1] ttl_ms, [2] the state as dealt, [3] the create record to keep ('' when
# the create had no Idempotency-Key), [4] how long to keep it (ms), then field, value,
# field, value ... of the game's metadata hash (version and every among them).
# Returns {'ok'}, {'idem', record} when a create with the same key stored the game
# first, or {'taken'} when another game has the id (without a record: a 144-bit
# collision, and the caller draws again; with one: an expired record).
# The record does not share the game's life: not touched, not deleted with the game.
CREATE = """
if ARGV[3] ~= '' then
  local record = redis.call('GET', KEYS[9])
  if record then return {'idem', record} end
end
if redis.call('EXISTS', KEYS[1], KEYS[7]) > 0 then return {'taken'} end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
if ARGV[3] ~= '' then redis.call('SET', KEYS[9], ARGV[3], 'PX', ARGV[4]) end
return {'ok'}
"""

# The game's events (KEYS[8], `game:{<id>}:events`): each change is published on the
# pub/sub channel of that name (PUBLISH, or SPUBLISH on a Redis Cluster, where the
# channel lies in the game's slot) by the script that makes the change, and kept in the
# list of that name: the last EVENT_LOG_LENGTH changes, for EVENT_LOG_TTL_MS after the
# latest, so that a stream that lost its connection can resume from there. An entry is
# "<kind> <version>\n<JSON body>"; kind '' publishes nothing.
EVENT_LOG_LENGTH = 16
EVENT_LOG_TTL_MS = 300_000

_EVENTS = f"""
local function publish(kind, version, body, command)
  if kind == nil or kind == '' then return end
  local entry = kind .. ' ' .. version .. '\\n' .. body
  redis.call('RPUSH', KEYS[8], entry)
  redis.call('LTRIM', KEYS[8], -{EVENT_LOG_LENGTH}, -1)
  redis.call('PEXPIRE', KEYS[8], {EVENT_LOG_TTL_MS})
  redis.call(command, KEYS[8], entry)
end
"""

# ARGV: expected version ('' for any), the body of the `deleted` event, the publishing
# command. Returns {'ok'}, {'gone'} or {'stale', version}.
DELETE = (
    _PRELUDE
    + _UPGRADE
    + _META
    + _EVENTS
    + """
local f = meta({'version'})
if not f then return {'gone'} end
if ARGV[1] ~= '' and f[1] ~= ARGV[1] then return {'stale', f[1]} end
redis.call('DEL', unpack(KEYS))
publish('deleted', tostring(tonumber(f[1]) + 1), ARGV[2], ARGV[3])
redis.call('DEL', KEYS[8])
return {'ok'}
"""
)

# KEYS: meta, the ticket. ARGV: the ticket's time to live (ms). A stream ticket is a
# key that opens the game's event stream once (OPEN_STREAM deletes it).
# Returns 1, or 0 for an unknown game.
ISSUE_TICKET = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
return 1
"""

# KEYS: meta, states, events and, with ARGV[1] = '1', the ticket to use up.
# Returns {'ticket'} (no such ticket: used, expired or never issued), {'gone'}, or
# {'ok', version, current_state, {recent event entries, oldest first}}.
OPEN_STREAM = """
if ARGV[1] == '1' and redis.call('DEL', KEYS[4]) == 0 then return {'ticket'} end
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {'gone'} end
return {'ok', v, redis.call('LINDEX', KEYS[2], -1), redis.call('LRANGE', KEYS[3], 0, -1)}
"""

# The compare-and-set writes. ARGV: [1] expected version, [2] new state,
# [3] new status, [4] ttl_ms, [5] idempotency key ('' for none), [6] the answer to
# store under it, [7] how many answers a game keeps (the oldest goes first),
# [8] the move ('' for undo and redo), [9] the event's kind ('' for none), [10] its
# body, [11] the publishing command (PUBLISH or SPUBLISH), [12], [13], ... more fields
# of the meta hash to set, as field, value pairs (a random deal's number once it is
# shown, `open`).
# Returns {'ok', new_version}, {'idem', record} (the key was used meanwhile),
# {'gone'}, {'stale', version} or {'empty'} (nothing to undo / redo).
_CAS_CHECK = (
    _PRELUDE
    + """
if ARGV[5] ~= '' then
  local rec = redis.call('HGET', KEYS[5], ARGV[5])
  if rec then return {'idem', rec} end
end
local f = redis.call('HMGET', KEYS[1], 'version', 'every')
local v, every = f[1], tonumber(f[2])
if not v then return {'gone'} end
if v ~= ARGV[1] then return {'stale', v} end
"""
)

# The new state after a step forward to position n (a move or a redo): it becomes
# the last element; the old last one stays as a checkpoint if n - 1 is a multiple.
_FORWARD = """
local function forward(n)
  if (n - 1) % every == 0 then redis.call('RPUSH', KEYS[2], ARGV[2])
  else redis.call('LSET', KEYS[2], -1, ARGV[2]) end
end
"""

_CAS_COMMIT = (
    _EVENTS
    + """
local nv = tostring(tonumber(v) + 1)
redis.call('HSET', KEYS[1], 'version', nv, 'status', ARGV[3])
if #ARGV > 11 then redis.call('HSET', KEYS[1], unpack(ARGV, 12)) end
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[5], ARGV[5], ARGV[6])
  if redis.call('RPUSH', KEYS[6], ARGV[5]) > tonumber(ARGV[7]) then
    redis.call('HDEL', KEYS[5], redis.call('LPOP', KEYS[6]))
  end
end
touch(ARGV[4])
publish(ARGV[9], nv, ARGV[10], ARGV[11])
return {'ok', nv}
"""
)

# A new move: appended to the history; the undone moves can no longer be redone.
COMMIT_MOVE = (
    _CAS_CHECK
    + _FORWARD
    + """
forward(redis.call('RPUSH', KEYS[3], ARGV[8]))
redis.call('DEL', KEYS[4])
"""
    + _CAS_COMMIT
)

# Undo from position p to p - 1: the last move goes to the front of the redo list.
# The state at p goes, checkpoint or not; at a multiple of K the checkpoint there
# is the state at p - 1 already.
COMMIT_UNDO = (
    _CAS_CHECK
    + """
local p = redis.call('LLEN', KEYS[3])
local m = redis.call('RPOP', KEYS[3])
if not m then return {'empty'} end
redis.call('LPUSH', KEYS[4], m)
if p % every ~= 0 and (p - 1) % every == 0 then redis.call('RPOP', KEYS[2])
else redis.call('LSET', KEYS[2], -1, ARGV[2]) end
"""
    + _CAS_COMMIT
)

# Redo: the front of the redo list goes back onto the history.
COMMIT_REDO = (
    _CAS_CHECK
    + _FORWARD
    + """
local m = redis.call('LPOP', KEYS[4])
if not m then return {'empty'} end
forward(redis.call('RPUSH', KEYS[3], m))
"""
    + _CAS_COMMIT
)

# ARGV: [1] the version read, [2] ttl_ms, [3] autoplay ('1' or '0'), [4] the body of
# the `settings` event, [5] the publishing command. Changes the game's settings as a new
# version (the view shows them) without touching its states or history; a proof of loss
# of the version read still holds (the position is the same). Returns {'ok', version},
# {'gone'} or {'stale', version}.
SET_SETTINGS = (
    _PRELUDE
    + _EVENTS
    + """
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {'gone'} end
if v ~= ARGV[1] then return {'stale', v} end
local nv = tostring(tonumber(v) + 1)
redis.call('HSET', KEYS[1], 'version', nv, 'autoplay', ARGV[3])
if redis.call('HGET', KEYS[1], 'lost') == v then redis.call('HSET', KEYS[1], 'lost', nv) end
touch(ARGV[2])
publish('settings', nv, ARGV[4], ARGV[5])
return {'ok', nv}
"""
)
