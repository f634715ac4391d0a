"""The Lua scripts that read and write a game in Redis.

Every script names all the keys it touches in KEYS, always in the order
`data, moves, redo, idem, idem_order` (see `store.game_keys`); the keys share the game id as a
hash tag, so they live in one Redis Cluster slot and a script may use them all.

Reads are scripts too, so that one round trip fetches what an operation needs
(state, version, token hash, the idempotency record) and refreshes the time to
live. Writes are compare-and-set: they check the version read earlier, and are the
only writes an operation makes, so a change is applied entirely or not at all.
"""

from __future__ import annotations

# Refreshes the time to live (ARGV given in milliseconds) of every key of the game.
_TOUCH = """
local function touch(ttl_ms)
  for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ttl_ms) end
end
"""

# The idempotency record named by ARGV[idem_arg], or false.
_RECORD = """
local function record(key)
  if key == '' then return false end
  return redis.call('HGET', KEYS[4], key)
end
"""

_READ_PRELUDE = _TOUCH + _RECORD

# ARGV: ttl_ms, idempotency key ('' for none).
# Returns nil for an unknown game, else {state, version, token_sha256, record}.
LOAD_STATE = (
    _READ_PRELUDE
    + """
local f = redis.call('HMGET', KEYS[1], 'state', 'version', 'token')
if not f[2] then return false end
touch(ARGV[1])
return {f[1], f[2], f[3], record(ARGV[2])}
"""
)

# ARGV: ttl_ms, idempotency key. Undo replays from the deal, so it needs the
# initial state and the whole move list (only undo reads the history).
# Returns nil, or {initial_state, version, token_sha256, record, {moves...}}.
LOAD_FOR_UNDO = (
    _READ_PRELUDE
    + """
local f = redis.call('HMGET', KEYS[1], 'initial', 'version', 'token')
if not f[2] then return false end
touch(ARGV[1])
return {f[1], f[2], f[3], record(ARGV[2]), redis.call('LRANGE', KEYS[2], 0, -1)}
"""
)

# ARGV: ttl_ms, idempotency key.
# Returns nil, or {state, version, token_sha256, record, next_redo_move_or_nil}.
LOAD_FOR_REDO = (
    _READ_PRELUDE
    + """
local f = redis.call('HMGET', KEYS[1], 'state', 'version', 'token')
if not f[2] then return false end
touch(ARGV[1])
return {f[1], f[2], f[3], record(ARGV[2]), redis.call('LINDEX', KEYS[3], 0)}
"""
)

# ARGV: ttl_ms. Returns nil, or
# {version, token_sha256, variant, options_json, deal, secret, status, {moves}, {redo}}.
LOAD_HISTORY = (
    _READ_PRELUDE
    + """
local f = redis.call('HMGET', KEYS[1], 'version', 'token', 'variant', 'options', 'deal',
                     'secret', 'status')
if not f[1] then return false end
touch(ARGV[1])
return {f[1], f[2], f[3], f[4], f[5], f[6], f[7],
        redis.call('LRANGE', KEYS[2], 0, -1), redis.call('LRANGE', KEYS[3], 0, -1)}
"""
)

# ARGV: ttl_ms, then field, value, field, value ... of the game's hash.
# Returns 1, or 0 when the id is taken (a 144-bit collision; the caller draws again).
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
"""

# ARGV: expected version ('' for any).
# Returns {'ok'}, {'gone'} or {'stale', version}.
DELETE = """
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {'gone'} end
if ARGV[1] ~= '' and v ~= ARGV[1] then return {'stale', v} end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return {'ok'}
"""

# The compare-and-set writes. ARGV: [1] expected version, [2] new state,
# [3] new status, [4] ttl_ms, [5] idempotency key ('' for none), [6] the answer to
# store under it, [7] how many answers a game keeps (the oldest goes first),
# [8] the move (moves only).
# Returns {'ok', new_version}, {'idem', record} (the key was used meanwhile),
# {'gone'}, {'stale', version} or {'empty'} (nothing to undo / redo).
_CAS_CHECK = (
    _TOUCH
    + """
if ARGV[5] ~= '' then
  local rec = redis.call('HGET', KEYS[4], ARGV[5])
  if rec then return {'idem', rec} end
end
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {'gone'} end
if v ~= ARGV[1] then return {'stale', v} end
"""
)

_CAS_COMMIT = """
local nv = tostring(tonumber(v) + 1)
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'version', nv, 'status', ARGV[3])
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[4], ARGV[5], ARGV[6])
  if redis.call('RPUSH', KEYS[5], ARGV[5]) > tonumber(ARGV[7]) then
    redis.call('HDEL', KEYS[4], redis.call('LPOP', KEYS[5]))
  end
end
touch(ARGV[4])
return {'ok', nv}
"""

# A new move: appended to the history; the undone moves can no longer be redone.
COMMIT_MOVE = (
    _CAS_CHECK
    + """
redis.call('RPUSH', KEYS[2], ARGV[8])
redis.call('DEL', KEYS[3])
"""
    + _CAS_COMMIT
)

# Undo: the last move goes to the front of the redo list.
COMMIT_UNDO = (
    _CAS_CHECK
    + """
local m = redis.call('RPOP', KEYS[2])
if not m then return {'empty'} end
redis.call('LPUSH', KEYS[3], m)
"""
    + _CAS_COMMIT
)

# Redo: the front of the redo list goes back onto the history.
COMMIT_REDO = (
    _CAS_CHECK
    + """
local m = redis.call('LPOP', KEYS[3])
if not m then return {'empty'} end
redis.call('RPUSH', KEYS[2], m)
"""
    + _CAS_COMMIT
)
