"""The gateway's Redis client: one server, or a Redis Cluster (REDIS_CLUSTER=true)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import urlsplit

from redis.asyncio import Redis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from patience_gateway.settings import Settings
from patience_gateway.storage.failures import STORAGE_DOWN
from patience_gateway.storage.runners import ReplicaWait

log = logging.getLogger("patience_gateway")


def seed_nodes(redis_url: str) -> tuple[str, list[tuple[str, int]]]:
    """The first URL of a comma-separated REDIS_URL (its credentials and options
    apply to every node) and the (host, port) of each seed node. Items after the
    first may be URLs or plain host:port."""
    items = [item.strip() for item in redis_url.split(",") if item.strip()]
    if not items:
        raise ValueError("REDIS_URL names no Redis node")
    nodes = []
    for item in items:
        parts = urlsplit(item if "://" in item else f"redis://{item}")
        nodes.append((parts.hostname or "127.0.0.1", parts.port or 6379))
    return items[0], nodes


def open_redis(settings: Settings) -> Redis | RedisCluster:
    """The client for settings.redis_url.

    No automatic retries: a write whose reply was lost must not be sent twice
    blindly. The client sees 503 and retries with its Idempotency-Key instead; a
    cluster client that met an error reads the topology afresh on its next command.
    No socket timeout either: GameStore puts one deadline on each call instead.
    """
    common: dict[str, Any] = {
        "socket_timeout": None,
        "socket_connect_timeout": settings.redis_timeout_seconds,
        "retry": Retry(NoBackoff(), 0),
    }
    if not settings.redis_cluster:
        return Redis.from_url(settings.redis_url, **common)
    first, nodes = seed_nodes(settings.redis_url)
    return RedisCluster.from_url(
        first,
        startup_nodes=[ClusterNode(host, port) for host, port in nodes[1:]],
        **common,
    )


async def learn_topology(redis: Redis | RedisCluster, timeout: float) -> None:
    """A cluster client reads which node holds which slots before the first request.

    Left to the first command, that reading would ask a seed node drawn at random, and a
    seed that is up but does not answer (a frozen replica: no socket timeout, see
    `open_redis`) would hold that request until the store's deadline. Best effort: a
    cluster that cannot be read now is read by the first command, as before."""
    if not isinstance(redis, RedisCluster):
        return  # one server: nothing to learn
    try:
        async with asyncio.timeout(timeout):
            await redis.initialize()
    except (*STORAGE_DOWN, TimeoutError) as error:  # type: ignore[misc]
        log.warning("Redis Cluster's slots not read at start (%s): read at first use", error)


def replica_wait(settings: Settings) -> ReplicaWait | None:
    if settings.redis_wait_replicas == 0:
        return None
    return ReplicaWait(settings.redis_wait_replicas, settings.redis_wait_timeout_ms)
