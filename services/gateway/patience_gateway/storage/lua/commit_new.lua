-- A new step: appended to the history; the undone steps can no longer be redone.
forward(redis.call('RPUSH', KEYS[3], ARGV[8]))
redis.call('DEL', KEYS[4])
