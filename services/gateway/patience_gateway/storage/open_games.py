"""A player's open ranked game, one per category and variant (`games.ranked`): a key
per player, category and variant naming the game, under the player's hash tag.

The key outlives the game's abandonment by a day; a key that names a game long ended
is harmless (ending an ended game changes nothing)."""

from __future__ import annotations

from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster


def open_game_key(player_id: str, category: str, variant: str) -> bytes:
    return f"player:{{{player_id}}}:open:{category}:{variant}".encode()


async def swap_open_game(
    redis: Redis | RedisCluster,
    player_id: str,
    category: str,
    variant: str,
    game_id: str,
    ttl_seconds: int,
) -> str | None:
    """Names `game_id` the player's open game of this category and variant; the game
    it named before, if any (one SET ... GET: two starts at once each get the one
    before their own, so every earlier game is handed to exactly one of them)."""
    key = open_game_key(player_id, category, variant)
    earlier: Any = await redis.set(key, game_id, ex=ttl_seconds, get=True)
    if earlier is None:
        return None
    found = earlier.decode() if isinstance(earlier, bytes) else str(earlier)
    return None if found == game_id else found
