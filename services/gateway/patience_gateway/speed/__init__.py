"""The gateway's speed paths: code that stands in for a plainer way of doing the same
thing, because the plainer way was measured to cost too much (bench/README.md).

Each speed path names the reference code it must equal, answer for answer, and sits
beside it behind one interface; tests hold each to its reference. Turn them all off
with PATIENCE_SPEED_PATHS=off (`Settings.speed_paths`): the gateway then runs the
references only, which is the way to tell whether a fault lies in a speed path.

- `moves.MoveFastPath`: POST /v1/games/{id}/moves answered from raw ASGI, without
  FastAPI's routing and parameter layers. Reference: the FastAPI route
  `http.routes.games.make_move` (the middleware is simply not installed).
- `node_runners.NodeRunner`: the Redis scripts of a single server run with a hand-made
  EVALSHA on the client's own connections. Reference: `node_runners.RedisPyRunner`,
  the same through redis-py's public `Redis.evalsha`. (A Redis Cluster has no speed
  path: `storage.runners.ClusterRunner` serves it either way.)

The engine has a speed path of its own behind the same variable.
"""

from __future__ import annotations

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from starlette.middleware import Middleware

from patience_gateway.speed.moves import MoveFastPath
from patience_gateway.speed.node_runners import NodeRunner, RedisPyRunner
from patience_gateway.storage.runners import ClusterRunner, ReplicaWait, ScriptRunner


def entrances(speed_paths: bool) -> list[Middleware]:
    """The middleware that answers moves ahead of FastAPI: the move speed path, or
    none (FastAPI's route answers every move)."""
    return [Middleware(MoveFastPath)] if speed_paths else []


def script_runner(
    redis: Redis | RedisCluster, wait: ReplicaWait | None, speed_paths: bool
) -> ScriptRunner:
    """What runs the game scripts on `redis`: on a single server the speed path or its
    reference; on a Redis Cluster its one runner."""
    if isinstance(redis, RedisCluster):
        return ClusterRunner(redis, wait)
    if speed_paths:
        return NodeRunner(redis.connection_pool, wait)
    return RedisPyRunner(redis, wait)
