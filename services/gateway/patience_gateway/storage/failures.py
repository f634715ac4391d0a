"""Redis failures that mean "not reachable right now", as opposed to a bug: the HTTP
layer answers them 503 `storage-unavailable`, and nothing was changed (or, for a change
its replicas did not confirm, nothing is acknowledged)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from redis import exceptions as redis_errors

T = TypeVar("T")


class ReplicationTimeout(redis_errors.TimeoutError):
    """A change was made on the primary, but fewer replicas than asked for confirmed
    it in time: it is not acknowledged to the client (answered as storage-unavailable)."""


# Redis errors that mean "not reachable right now", as opposed to a bug.
STORAGE_DOWN: tuple[type[Exception], ...] = (
    redis_errors.ConnectionError,  # includes BusyLoadingError (still loading its data)
    redis_errors.TimeoutError,
    redis_errors.ReadOnlyError,  # a replica, e.g. during a failover
    redis_errors.OutOfMemoryError,  # maxmemory reached: no writes until space is freed
    redis_errors.TryAgainError,
    # what answers at Redis's address does not speak Redis: a port another server took
    # after Redis went away, a proxy in front of it answering with an error of its own
    redis_errors.InvalidResponse,
    # Redis Cluster: a slot without a primary, redirections that did not settle, no node
    # reachable while the client reads the topology again (ClusterDownError and
    # SlotNotCoveredError are kinds of these two)
    redis_errors.ClusterError,
    redis_errors.RedisClusterException,
    ConnectionError,
)


async def within(call: Awaitable[T], seconds: float) -> T:
    """`call`'s answer, or redis-py's TimeoutError once `seconds` have passed. The Redis
    clients have no socket timeout (`clients.open_redis`): a server that stops answering
    without closing its connections (frozen, or cut off by the network) is given up
    here, per call, instead of holding the caller for good."""
    try:
        async with asyncio.timeout(seconds):
            return await call
    except TimeoutError:
        raise redis_errors.TimeoutError("Redis did not answer in time") from None
