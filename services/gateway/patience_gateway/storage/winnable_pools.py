"""The pools of winnable deals in Redis (`games.winnable` fills and empties them).

`winnable:{<variant>/<options>}` lists (one key each, so any Redis Cluster slot will
do) hold proven sealed states per variant and options, taken from the right.
`winnable:pools` is the set of pools to keep full. One gateway process at a time
refills them: the one holding the lock `winnable:refill-lock`.
"""

from __future__ import annotations

from collections.abc import Sequence

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from patience_gateway.storage.scripts import Script

POOLS_KEY = "winnable:pools"
LOCK_KEY = "winnable:refill-lock"
# How long the refill lock lasts unless renewed: a process that dies lets another take
# over within this.
LOCK_MILLISECONDS = 30_000

_RENEW = Script.joined("renew_lock")


def pool_name(variant: str, options: Sequence[str]) -> str:
    """The pool's name: the variant and its options in a stable order."""
    return f"{variant}/{','.join(sorted(set(options)))}"


def pool_key(name: str) -> str:
    # the whole name is the hash tag: a pool is one key, in a slot of its own
    return f"winnable:{{{name}}}"


class WinnablePools:
    """The pools, the set of those wanted, and the refill lock; one command each."""

    def __init__(self, redis: Redis | RedisCluster) -> None:
        self.redis = redis
        self._renew = redis.register_script(_RENEW.text)

    async def take(self, name: str) -> bytes | None:
        """A state from the pool `name`, or None when it is empty."""
        raw = await self.redis.rpop(pool_key(name))
        return raw if isinstance(raw, bytes) else None

    async def put(self, name: str, state: bytes) -> None:
        await self.redis.lpush(pool_key(name), state)

    async def size(self, name: str) -> int:
        return int(await self.redis.llen(pool_key(name)))

    async def want(self, *names: str) -> None:
        """Marks pools as wanted: the refill keeps them full from then on."""
        await self.redis.sadd(POOLS_KEY, *names)

    async def wanted(self) -> list[str]:
        """The names of the pools to keep full, in order."""
        members = await self.redis.smembers(POOLS_KEY)
        return sorted(n.decode() if isinstance(n, bytes) else n for n in members)

    async def take_lock(self, token: str) -> bool:
        """Takes the refill lock for `token`, if no one holds it."""
        return bool(await self.redis.set(LOCK_KEY, token, nx=True, px=LOCK_MILLISECONDS))

    async def renew_lock(self, token: str) -> bool:
        """Extends the lock while `token` holds it; False when another holds it now."""
        return bool(await self._renew(keys=[LOCK_KEY], args=[token, LOCK_MILLISECONDS]))
