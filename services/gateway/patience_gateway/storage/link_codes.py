"""Link codes in Redis: a short code shown on a player's first device, typed on the
second, that opens the player there once.

A code is kept only as its SHA-256 (`link:{<digest>}`), names the player, and lives
LINK_CODE_SECONDS; using it deletes it (GETDEL), so it opens one device at most. The
player's live codes are listed under `player-links:{<player>}` (for as long as the
newest lives), so that deleting the player deletes its codes.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

LINK_CODE_SECONDS: Final = 300


def _key(code: str) -> bytes:
    return b"link:{" + hashlib.sha256(code.encode()).hexdigest().encode() + b"}"


def codes_key(player_id: str) -> bytes:
    return f"player-links:{{{player_id}}}".encode()


class LinkCodes:
    def __init__(self, redis: Redis | RedisCluster) -> None:
        self.redis = redis

    async def keep(self, code: str, player_id: str) -> bool:
        """Keeps a new code for the player; False if the code is taken (draw again)."""
        listed = codes_key(player_id)
        await self.redis.sadd(listed, _key(code))
        await self.redis.expire(listed, LINK_CODE_SECONDS)
        return bool(await self.redis.set(_key(code), player_id, nx=True, ex=LINK_CODE_SECONDS))

    async def use(self, code: str) -> str | None:
        """The player the code opens, and the code is gone; None for no such code."""
        player: Any = await self.redis.getdel(_key(code))
        return None if player is None else bytes(player).decode()

    async def forget_player(self, player_id: str) -> None:
        """Deletes every live code of the player (again at will: nothing left, nothing
        done)."""
        listed = codes_key(player_id)
        keys: Any = await self.redis.smembers(listed)
        for key in keys:  # one at a time: on a Redis Cluster each lives in a slot of its own
            await self.redis.delete(bytes(key))
        await self.redis.delete(listed)
