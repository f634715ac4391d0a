-- ARGV: [1] the version the hint was given for, [2] '1' when the search proved the game
-- lost, [3] '1' to count the hint in the game's record (not once the record closed),
-- [4] the hint's plan (its line, for the next hint to continue; '' for none).
-- A proof is kept in the meta hash as `lost` while the game is still at that version
-- (any change bumps the version, and the proof no longer applies); the plan as `plan`,
-- which holds for later versions too (the engine finds the game's place on its line).
-- Returns 1, or 0 when the game is gone or has moved on.
local v = redis.call('HGET', KEYS[1], 'version')
if v ~= ARGV[1] then return 0 end
if ARGV[2] == '1' then redis.call('HSET', KEYS[1], 'lost', v) end
if ARGV[3] == '1' then redis.call('HINCRBY', KEYS[1], 'hints', 1) end
if ARGV[4] == '' then
  redis.call('HDEL', KEYS[1], 'plan')
else
  redis.call('HSET', KEYS[1], 'plan', ARGV[4])
end
return 1
