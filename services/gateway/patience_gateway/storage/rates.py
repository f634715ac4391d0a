"""Rate limits kept in Redis, shared by every gateway process: a fixed window per kind
of request and client (`rate:{<kind>:<client>}`), counted in one script call."""

from __future__ import annotations

from dataclasses import dataclass

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from patience_gateway.storage.scripts import Script

_RATE = Script.joined("rate")


@dataclass(frozen=True, slots=True)
class Rate:
    """At most `requests` per `window_seconds` for one client."""

    kind: str
    requests: int
    window_seconds: int


def rate_key(kind: str, client: str) -> bytes:
    return f"rate:{{{kind}:{client}}}".encode()


class RateLimits:
    def __init__(self, redis: Redis | RedisCluster) -> None:
        self._count = redis.register_script(_RATE.text)

    async def wait_needed(self, rate: Rate, client: str) -> float:
        """Counts a request of `client`; 0 when the rate allows it, else the seconds
        until it will."""
        key = rate_key(rate.kind, client)
        left = await self._count(keys=[key], args=[rate.window_seconds * 1000, rate.requests])
        return int(left) / 1000
