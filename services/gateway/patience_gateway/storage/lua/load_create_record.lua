-- KEYS[1]: a create record (`keys.create_record_key`). Returns it, or nil.
return redis.call('GET', KEYS[1])
