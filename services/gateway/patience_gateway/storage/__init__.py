"""The games in Redis, on one server or a Redis Cluster: the store and its Lua scripts,
the clients, the event subscriber, and the pools of winnable deals."""
