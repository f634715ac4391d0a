-- KEYS: meta, the ticket. ARGV: the ticket's time to live (ms). A stream ticket is a
-- key that opens the game's event stream once (open_stream.lua deletes it).
-- Returns 1, or 0 for an unknown game.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
return 1
