"""The REST gateway of the patience engine.

FastAPI in front of the stateless gRPC engine; games in play live in Redis, players and
their records in PostgreSQL. Layers, each a package that imports only the ones below it
(http -> games -> players and records -> storage):

- `http/`: the REST surface. `factory` (the FastAPI app: routes, middleware, error
  answers, documentation pages), `routes/` (the resources), `exchange` (what a route
  takes from the request, and how it sends a reply), `errors` (every error as RFC 9457
  problem+json), `openapi` (the published document), `shapes` (the operations routes'
  bodies), `bodies` and `limits` (what a request body may be), `cors`, `pages` (the web
  client at /play), `metrics` (Prometheus), `server` (Granian, the worker processes),
  `stop_signals`.
- `games/`: what each game operation does, one module per kind: `create` (and a game
  from a state dealt before), `read` (view, legal moves, history, hint, share token),
  `change` (every change of a game through one unit of work: move, autoplay, undo,
  redo, restart, settings, resign, claim, abandonment, delete), `streams` (tickets,
  where a stream starts), `variants`, `replays`, `results`, `daily`, `challenges`. They
  share one opening, `service.Games` (load the game, authorise, decode the sealed state,
  ask the engine and map its errors). `shapes` are the answers' bodies (their static
  types and their OpenAPI schemas), `answers` builds them from the engine's messages
  (and holds `Reply`, what an operation answers), `enums` takes their values from the
  engine's contract; `requests` are the request bodies; `preconditions` (ETag,
  If-Match, Idempotency-Key), `security` (ids, tokens, who may open a game),
  `create_once` (a create's kept answer), `winnable` (proven deals), `spare_time` (when
  the searches made ahead run), `engine_errors`, `shares`.
- `players/`: players without passwords: `service` (the player routes' work),
  `access_tokens` (signed, short-lived), `sessions` (refresh tokens), `repository`,
  `names`, `shapes`, `requests`.
- `records/`: games' records and statistics: `record`, `entries` and `outbox` (what a
  player's records learn of a game, drained from Redis into PostgreSQL exactly once),
  `repository`, `statistics`, `service`, `answers`, `shapes`.
- `storage/`: Redis and PostgreSQL. `database` and `schema` (PostgreSQL's connections
  and its migrations, `migrations/`), `outbox` (the Redis side of the outbox),
  `link_codes`, `rates`; `store` (a game's reads and writes, one round trip each, and
  the one place their replies are decoded), `keys`, `reads` (what a load reads),
  `writes` (what a write is given, and its outcome), `scripts` (the Lua scripts, from
  `lua/*.lua`), `runners` (running them; a Redis Cluster's runner), `clients` (a Redis
  server or a Redis Cluster), `events` (the subscriber behind the event streams),
  `winnable_pools`, `failures`.

Beside them: `speed/` (the speed paths, `moves` and `node_runners`, each beside the
reference it must equal; all off with PATIENCE_SPEED_PATHS=off), `settings`
(configuration from the environment), `app` (the wiring: the HTTP app and what lives
as long as it), `main` (the `patience-gateway` command, also `python -m
patience_gateway`), and the small modules every layer may use: `problems` (the problem
catalog) and `json_enums`.
"""
