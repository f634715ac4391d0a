"""Deleted players' marks in Redis (`player-gone:{<player>}`): an access token is
verified without storage, so a player deleted while one of its tokens still lives is
refused by this mark, which lives as long as the longest-lived token could.

The mark holds nothing but the player's id in its name; it expires by itself.

`player_keys` finds every key kept under the player's hash tag (`...{<player>}...`),
whatever kept it: an account's deletion deletes them all.
"""

from __future__ import annotations

from typing import Any, Final

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

# The longest an access token may live (ACCESS_TOKEN_SECONDS at most), and the leeway
# its verification allows.
MARK_SECONDS: Final = 86400 + 60


def gone_key(player_id: str) -> bytes:
    return f"player-gone:{{{player_id}}}".encode()


class GonePlayers:
    def __init__(self, redis: Redis | RedisCluster) -> None:
        self.redis = redis

    async def mark(self, player_id: str) -> None:
        await self.redis.set(gone_key(player_id), b"1", ex=MARK_SECONDS)

    async def gone(self, player_id: str) -> bool:
        found: Any = await self.redis.exists(gone_key(player_id))
        return bool(found)


async def player_keys(redis: Redis | RedisCluster, player_id: str) -> list[bytes]:
    """Every key whose name holds the player's hash tag: on a Redis Cluster, those of
    the tag's slot (one node's list, not a scan of every node); on one server, a SCAN
    (a deletion is rare; the keyspace is walked once)."""
    tag = f"{{{player_id}}}".encode()
    if isinstance(redis, RedisCluster):
        slot = redis.keyslot(tag)
        count: Any = await redis.cluster_countkeysinslot(slot)
        keys: Any = await redis.cluster_get_keys_in_slot(slot, max(int(count), 1))
        names = [key if isinstance(key, bytes) else str(key).encode() for key in keys]
        return [name for name in names if tag in name]
    return [
        bytes(key) async for key in redis.scan_iter(match=b"*" + _escaped(tag) + b"*", count=1000)
    ]


def _escaped(text: bytes) -> bytes:
    """`text` as a literal in a SCAN pattern (glob)."""
    out = bytearray()
    for byte in text:
        if byte in b"*?[]\\":
            out += b"\\"
        out.append(byte)
    return bytes(out)
