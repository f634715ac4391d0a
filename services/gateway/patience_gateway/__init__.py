"""The REST gateway of the patience engine.

FastAPI in front of the stateless gRPC engine; games live in Redis.

Modules: `settings` (configuration from the environment), `app` (the app factory),
`routes` (the HTTP resources), `fast_moves` (the move route without FastAPI's
layers, for ordinary requests), `service` (what each game operation does), `store`
(the Redis layout and its scripts), `redis_client` (a Redis server or a Redis
Cluster), `script_calls` and `cluster_scripts` (running the scripts on either),
`views` (engine messages to JSON),
`problems` (RFC 9457 errors), `security` (tokens and ids), `preconditions`
(ETag / If-Match), `limits` (request body size), `metrics` (Prometheus),
`openapi` (the published schema), `main` (the `patience-gateway` command).
"""
