-- ARGV: ttl_ms. A write that changes nothing but the time to live, for a WAIT to
-- confirm everything written to the game before it.
touch(ARGV[1])
return 1
