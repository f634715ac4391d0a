-- The end of the compare-and-set writes (see _cas_check.lua): the new version, the
-- idempotency record, the time to live and the event.
local nv = tostring(tonumber(v) + 1)
redis.call('HSET', KEYS[1], 'version', nv)
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'status', ARGV[3]) end
if ARGV[14] == '1' and f[4] == v then redis.call('HSET', KEYS[1], 'lost', nv) end
if #ARGV > 14 then redis.call('HSET', KEYS[1], unpack(ARGV, 15)) end
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[5], ARGV[5], ARGV[6])
  if redis.call('RPUSH', KEYS[6], ARGV[5]) > tonumber(ARGV[7]) then
    redis.call('HDEL', KEYS[5], redis.call('LPOP', KEYS[6]))
  end
end
touch(ARGV[4])
publish(ARGV[9], nv, ARGV[10], ARGV[11])
to_outbox(ARGV[12])
return {'ok', nv}
