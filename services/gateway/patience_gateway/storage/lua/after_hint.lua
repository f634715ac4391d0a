-- ARGV: [1] the version the hint was given for, [2] '1' when the search proved the game
-- lost, [3] '1' to count the hint in the game's record (not once the record closed).
-- A proof is kept in the meta hash as `lost` while the game is still at that version
-- (any change bumps the version, and the proof no longer applies). Returns 1, or 0
-- when the game is gone or has moved on.
local v = redis.call('HGET', KEYS[1], 'version')
if v ~= ARGV[1] then return 0 end
if ARGV[2] == '1' then redis.call('HSET', KEYS[1], 'lost', v) end
if ARGV[3] == '1' then redis.call('HINCRBY', KEYS[1], 'hints', 1) end
return 1
