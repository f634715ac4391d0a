"""Redis failures that mean "not reachable right now", as opposed to a bug: the HTTP
layer answers them 503 `storage-unavailable`, and nothing was changed (or, for a change
its replicas did not confirm, nothing is acknowledged)."""

from __future__ import annotations

from redis import exceptions as redis_errors


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
    # Redis Cluster: a slot without a primary, redirections that did not settle, no node
    # reachable while the client reads the topology again (ClusterDownError and
    # SlotNotCoveredError are kinds of these two)
    redis_errors.ClusterError,
    redis_errors.RedisClusterException,
    ConnectionError,
)
