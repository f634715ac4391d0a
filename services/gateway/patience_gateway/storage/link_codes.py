"""Link codes in Redis: a short code shown on a player's first device, typed on the
second, that opens the player there once.

A code is kept only as its SHA-256 (`link:{<digest>}`), names the player, and lives
LINK_CODE_SECONDS; using it deletes it (GETDEL), so it opens one device at most.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

LINK_CODE_SECONDS: Final = 300


def _key(code: str) -> bytes:
    return b"link:{" + hashlib.sha256(code.encode()).hexdigest().encode() + b"}"


class LinkCodes:
    def __init__(self, redis: Redis | RedisCluster) -> None:
        self.redis = redis

    async def keep(self, code: str, player_id: str) -> bool:
        """Keeps a new code for the player; False if the code is taken (draw again)."""
        return bool(await self.redis.set(_key(code), player_id, nx=True, ex=LINK_CODE_SECONDS))

    async def use(self, code: str) -> str | None:
        """The player the code opens, and the code is gone; None for no such code."""
        player: Any = await self.redis.getdel(_key(code))
        return None if player is None else bytes(player).decode()
