"""Leaderboards in Redis: one sorted set per board (`board:v2:{<name>}`), players by
score, read in a round trip or two however many players a board holds.

A board's scores are absolute values computed from PostgreSQL (`records.leaderboards`),
so writing one again changes nothing, and a board Redis lost is written again from
PostgreSQL (`rebuild`, which merges: a score never gets worse). A second key,
`board:v2:{<name>}:built`, says the board was built: a board that is empty because
nobody is on it yet is not rebuilt at every read. A day's board keeps each player's
active time beside the score (`board:v2:{<name>}:time`, a hash): shown, never ranked.

`v2`: the boards as ranked since clean wins alone count and a day's board ranks no
time; the boards of before (`board:{<name>}`) are left to expire, and every board is
built again from PostgreSQL under these rules when it is first read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

BOARD_TTL_SECONDS: Final = 90 * 86400  # a day's or a week's board, long after it ends


def board_key(name: str) -> bytes:
    return f"board:v2:{{{name}}}".encode()


def built_key(name: str) -> bytes:
    return f"board:v2:{{{name}}}:built".encode()


def time_key(name: str) -> bytes:
    return f"board:v2:{{{name}}}:time".encode()


@dataclass(frozen=True, slots=True)
class Ranked:
    """A player on a board: competition rank (ties share a rank), score."""

    rank: int
    player_id: str
    score: float


class Boards:
    def __init__(self, redis: Redis | RedisCluster) -> None:
        self.redis = redis

    async def set_score(
        self, name: str, player_id: str, score: float, time_ms: int | None = None
    ) -> None:
        key = board_key(name)
        await self.redis.zadd(key, {player_id: score})
        await self.redis.expire(key, BOARD_TTL_SECONDS)
        if time_ms is not None:
            await self.redis.hset(time_key(name), player_id, time_ms)
            await self.redis.expire(time_key(name), BOARD_TTL_SECONDS)

    async def remove(self, name: str, player_id: str) -> None:
        """Takes the player off the board (a board of a player kept off the boards)."""
        await self.redis.zrem(board_key(name), player_id)
        await self.redis.hdel(time_key(name), player_id)

    async def times(self, name: str, players: list[str]) -> dict[str, int]:
        """The active times kept beside a day's board, of these players."""
        if not players:
            return {}
        found: Any = await self.redis.hmget(time_key(name), players)
        return {player: int(value) for player, value in zip(players, found, strict=True) if value}

    async def built(self, name: str) -> bool:
        return bool(await self.redis.exists(built_key(name)))

    async def rebuild(
        self,
        name: str,
        scores: Mapping[str, float],
        *,
        high_first: bool,
        times: Mapping[str, int] | None = None,
    ) -> None:
        """The board given `scores` (what PostgreSQL knew when it was read), merged into
        what Redis holds: a score only ever gets better (wins and streaks grow, a day's
        first attempt is scored once), so each player keeps the better of the two, and
        a score the drain wrote while PostgreSQL was being read is not lost."""
        key = board_key(name)
        items = list(scores.items())
        for start in range(0, len(items), 10_000):
            chunk = dict(items[start : start + 10_000])
            await self.redis.zadd(key, chunk, gt=high_first, lt=not high_first)
        await self.redis.expire(key, BOARD_TTL_SECONDS)
        if times:
            pairs = list(times.items())
            for start in range(0, len(pairs), 10_000):
                await self.redis.hset(time_key(name), mapping=dict(pairs[start : start + 10_000]))
            await self.redis.expire(time_key(name), BOARD_TTL_SECONDS)
        await self.redis.set(built_key(name), b"1", ex=BOARD_TTL_SECONDS)

    async def size(self, name: str) -> int:
        count: Any = await self.redis.zcard(board_key(name))
        return int(count)

    async def page(self, name: str, start: int, count: int, *, high_first: bool) -> list[Ranked]:
        """Players `start`.. (0 first) of the board, best first, with their ranks."""
        key = board_key(name)
        end = start + count - 1
        found: Any = (
            await self.redis.zrevrange(key, start, end, withscores=True)
            if high_first
            else await self.redis.zrange(key, start, end, withscores=True)
        )
        ranked: list[Ranked] = []
        for index, (member, score) in enumerate(found):
            if not ranked:  # it may tie with players before the page
                rank = await self._rank(key, score, high_first)
            elif score == ranked[-1].score:
                rank = ranked[-1].rank
            else:
                rank = start + index + 1
            ranked.append(Ranked(rank, member.decode(), score))
        return ranked

    async def position(self, name: str, player_id: str, *, high_first: bool) -> int | None:
        """Where the player stands on the board (0 first), or None when absent."""
        key = board_key(name)
        found: Any = (
            await self.redis.zrevrank(key, player_id)
            if high_first
            else await self.redis.zrank(key, player_id)
        )
        return None if found is None else int(found)

    async def _rank(self, key: bytes, score: float, high_first: bool) -> int:
        """Competition rank: one more than the players strictly better."""
        better: Any = (
            await self.redis.zcount(key, f"({score}", "+inf")
            if high_first
            else await self.redis.zcount(key, "-inf", f"({score}")
        )
        return int(better) + 1
