"""The REST gateway of the patience engine.

FastAPI in front of the stateless gRPC engine; games in play live in Redis, players and
their records in PostgreSQL. Layers, each a package that imports only the ones below it
(http -> games -> players and records -> storage):

- `http/`: the REST surface. `factory` (the FastAPI app: routes, middleware, error
  answers, documentation pages), `routes/` (the resources), `deps` (what a route takes
  from the request), `errors` (every error as RFC 9457 problem+json), `openapi` (the
  published document), `shapes` (the operations routes' bodies), `bodies` and `limits`
  (what a request body may be), `cors`, `pages` (the web client at /play), `metrics`
  (Prometheus), `server` (Granian, the worker processes), `stop_signals`.
- `games/`: what each game operation does, one module per kind: `create`, `read` (view,
  legal moves, history, hint), `change` (move, autoplay, undo, redo, settings, delete,
  written by `writes`), `streams` (tickets, where a stream starts), `variants`. They
  share one opening, `deps.Games` (load the game, authorise, decode the sealed state,
  ask the engine and map its errors). `shapes` are the answers' bodies (their static
  types and their OpenAPI schemas), `views` builds them from the engine's messages,
  `enums` takes their values from the engine's contract; `requests` are the request
  bodies; `replies` (what an operation answers), `entries` (the history's entries),
  `preconditions` (ETag, If-Match), `idempotency`, `security` (ids, tokens),
  `create_records`, `winnable` (proven deals), `engine_errors`; `recording` (what a
  change does to the game's record), `ending` (resign, claim, abandonment).
- `players/`: players without passwords: `service` (the player routes' work),
  `access_tokens` (signed, short-lived), `sessions` (refresh tokens), `repository`,
  `names`, `shapes`, `requests`.
- `records/`: games' records and statistics: `record`, `entries` and `outbox` (what a
  player's records learn of a game, drained from Redis into PostgreSQL exactly once),
  `repository`, `statistics`, `service`, `views`, `shapes`.
- `storage/`: Redis and PostgreSQL. `database` and `schema` (PostgreSQL's connections
  and its migrations, `migrations/`), `outbox` (the Redis side of the outbox),
  `link_codes`, `rates`; `store` (a game's reads and writes, one round trip each), `keys`,
  `records` (what is read and written), `outcomes` (what a write script answers),
  `scripts` (the Lua scripts, from `lua/*.lua`), `runners`
  (running them), `clients` (a Redis server or a Redis Cluster), `events` (the
  subscriber behind the event streams), `winnable_pools`, `failures`.

Beside them: `speed/` (the speed paths, `moves` and `scripts`, each beside the
reference it must equal; all off with PATIENCE_SPEED_PATHS=off), `settings`
(configuration from the environment), `app` (the wiring: the HTTP app and what lives
as long as it), `main` (the `patience-gateway` command, also `python -m
patience_gateway`), and the small modules every layer may use: `problems` (the problem
catalog) and `json_enums`.
"""
