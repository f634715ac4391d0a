"""The gateway's Redis client: one server, or a Redis Cluster (REDIS_CLUSTER=true)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import urlsplit

from redis.asyncio import Redis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

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


# A command that met a dead connection is sent again on a fresh one, after 0.1, 0.2,
# 0.4 and 0.8 s: a Redis restarted (or a failover) within about 1.5 s costs the
# request nothing but the wait; the store's deadline on each call bounds it all.
RETRIES = 4
BACKOFF = ExponentialBackoff(cap=1.0, base=0.05)
# A connection idle this long is PINGed before it is used again (and made afresh if
# the PING fails): one whose server went away without a word (a network cut) is
# found before a command is lost on it.
HEALTH_CHECK_SECONDS = 5


def open_redis(settings: Settings, *, health_checks: bool = True) -> Redis | RedisCluster:
    """The client for settings.redis_url.

    Connections that died with the server they reached (a Redis restarted, a primary
    failed over) are made afresh and the command sent again, by redis-py's own retry
    (RETRIES, BACKOFF) on connection errors and timeouts, and idle connections are
    checked before use (HEALTH_CHECK_SECONDS): so the step that queues a finished game's
    record (`OutboxStore.announce`) reaches the restarted Redis instead of waiting for
    the drain's sweep. Sending a command again is safe even when its first sending was
    carried out and only the reply lost: a game's scripts change a game only at the
    version they read (a second sending finds it moved on and changes nothing; one with
    an Idempotency-Key answers what the first did), a create only under an id still
    free, and the outbox's and the drain's commands give the same result twice (a
    rate limit may count one request twice: the safe side).
    No socket timeout: GameStore puts one deadline on each call instead.

    Without `health_checks`: for a pub/sub connection that a reader waits on. redis-py's
    asyncio pub/sub reads a health check's PONG on the subscribe that follows an idle
    spell, while the reader is already reading that connection ("read() called while
    another coroutine is already waiting"); the reader finds a lost connection itself.
    """
    common: dict[str, Any] = {
        "socket_timeout": None,
        "socket_connect_timeout": settings.redis_timeout_seconds,
        "retry": Retry(BACKOFF, RETRIES),
        "retry_on_error": [RedisConnectionError, RedisTimeoutError],
        "health_check_interval": HEALTH_CHECK_SECONDS if health_checks else 0,
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
