"""What is left of a deleted player: every PostgreSQL table and every Redis key searched
for the player's id and its games' ids."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import psycopg
from psycopg import sql
from redis.asyncio import Redis

from tests.gateway.helpers import Gateway

# What docs/api.md says stays of a deleted player: the mark that refuses its access
# tokens until the longest could expire (its name is the id, its value nothing).
ALLOWED_KEYS = ("player-gone:{%s}",)


async def postgres_leftovers(database_url: str, needles: Iterable[str]) -> list[str]:
    """`table: row` for every row of any table whose text holds one of `needles`."""
    found: list[str] = []
    wanted = list(needles)
    async with await psycopg.AsyncConnection.connect(database_url) as connection:
        tables = await (
            await connection.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"
            )
        ).fetchall()
        for (table,) in tables:
            for needle in wanted:
                query = sql.SQL("SELECT r::text FROM {} AS r WHERE strpos(r::text, %s) > 0").format(
                    sql.Identifier(table)
                )
                rows = await (await connection.execute(query, (needle,))).fetchall()
                found += [f"{table}: {row[0][:200]}" for row in rows]
    return found


async def _values(redis: Redis, key: bytes) -> list[bytes]:
    kind = (await redis.type(key)).decode()
    raw: Any
    if kind == "string":
        raw = await redis.get(key)
        return [raw or b""]
    if kind == "hash":
        raw = await redis.hgetall(key)
        return [part for pair in raw.items() for part in pair]
    if kind == "set":
        return list(await redis.smembers(key))
    if kind == "zset":
        return list(await redis.zrange(key, 0, -1))
    if kind == "list":
        return list(await redis.lrange(key, 0, -1))
    if kind == "stream":
        entries = await redis.xrange(key)
        return [part for _, fields in entries for pair in fields.items() for part in pair]
    return []


async def redis_leftovers(redis: Redis, player_id: str, needles: Iterable[str]) -> list[str]:
    """Every key whose name or value holds one of `needles` (the key allowed to stay
    aside)."""
    allowed = {(pattern % player_id).encode() for pattern in ALLOWED_KEYS}
    wanted = [needle.encode() for needle in needles]
    found: list[str] = []
    async for key in redis.scan_iter(count=1000):
        if key in allowed:
            continue
        texts = [key, *await _values(redis, key)]
        if any(needle in text for needle in wanted for text in texts):
            found.append(key.decode(errors="replace"))
    return found


async def leftovers(
    gateway: Gateway, database_url: str, redis: Redis, player_id: str, game_ids: Iterable[str]
) -> list[str]:
    needles = [player_id, *game_ids]
    return [
        *await postgres_leftovers(database_url, needles),
        *await redis_leftovers(redis, player_id, needles),
    ]
