"""The Redis side of the outbox: each player's game keeps, in a stream of its own
(`keys.outbox_key`), what its player's records in PostgreSQL have still to learn, and
a sorted set (PENDING_KEY) names the games whose stream waits to be drained.

An entry is written by the game's own script in the same atomic step as the change it
reports (a game begun, claimed, ended: see lua/_outbox.lua), so no change is ever
reported without having been made, nor made without being reported. The game is named
in the sorted set by a second call right after (`announce`): on a Redis Cluster the
set and the game live in different slots, so one script cannot write both. A gateway
killed between the two leaves a stream nobody announced; `sweep` finds such streams
(a SCAN over every primary) and announces them.

The drain (`records.outbox`) reads the announced games' entries, applies them to
PostgreSQL (each application is idempotent, so an entry applied twice counts once),
deletes them (`applied`), and forgets a game (`settle`) only if nothing new was
announced for it meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from patience_gateway.storage.failures import within
from patience_gateway.storage.keys import outbox_key
from patience_gateway.storage.scripts import Script

T = TypeVar("T")

PENDING_KEY: Final = b"patience:outbox:pending"
LOCK_KEY: Final = b"patience:outbox:lock"
OUTBOX_PATTERN: Final = "game:{*}:outbox"

_APPLIED = Script.joined("outbox_applied")
_SETTLE = Script.joined("outbox_settle")
_RENEW = Script.joined("renew_lock")
_RELEASE = Script.joined("release_lock")


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    """One entry of a game's outbox: its stream id, the entry (JSON, made by
    `records.entries`), the game's history then (one change a line) and its state as
    dealt (sealed)."""

    stream_id: bytes
    entry: bytes
    history: list[str]
    dealt: bytes


def _now_us() -> int:
    """The score of an announcement: microseconds since the epoch, a whole number, so
    that Redis writes it back exactly as it was given (`settle` compares the two)."""
    return time.time_ns() // 1000


def _game_of(key: bytes) -> str:
    return key.decode()[len("game:{") : -len("}:outbox")]


class OutboxStore:
    def __init__(self, redis: Redis | RedisCluster, timeout_seconds: float) -> None:
        """Each call but the sweep's walk of the keyspace under a deadline of
        `timeout_seconds` (`failures.within`): a frozen Redis fails the drain's round,
        which starts again, instead of holding the drain."""
        self.redis = redis
        self._timeout = timeout_seconds
        self._applied = redis.register_script(_APPLIED.text)
        self._settle = redis.register_script(_SETTLE.text)
        self._renew = redis.register_script(_RENEW.text)
        self._release = redis.register_script(_RELEASE.text)

    async def _within(self, call: Awaitable[T]) -> T:
        return await within(call, self._timeout)

    async def announce(self, game_id: str) -> None:
        """Names the game among those whose outbox waits (after its script wrote an
        entry)."""
        await self._within(self.redis.zadd(PENDING_KEY, {game_id: _now_us()}))

    async def waiting(self, limit: int) -> list[tuple[str, float]]:
        """The games whose outbox waits, longest waiting first, with their scores."""
        found: Any = await self._within(
            self.redis.zrange(PENDING_KEY, 0, limit - 1, withscores=True)
        )
        return [(name.decode(), float(score)) for name, score in found]

    async def entries(self, game_id: str, count: int) -> list[OutboxEntry]:
        """The game's oldest entries, in the order they were written."""
        raw: Any = await self._within(self.redis.xrange(outbox_key(game_id), count=count))
        return [
            OutboxEntry(
                stream_id,
                fields[b"entry"],
                [line for line in fields.get(b"history", b"").decode().split("\n") if line],
                fields.get(b"dealt", b""),
            )
            for stream_id, fields in raw
        ]

    async def applied(self, game_id: str, stream_ids: list[bytes]) -> int:
        """Deletes the entries applied; the entries left."""
        applied = self._applied(keys=[outbox_key(game_id)], args=stream_ids)
        left: int = await self._within(applied)
        return left

    async def settle(self, game_id: str, score: float) -> bool:
        """Forgets the game unless an entry was announced since `score` was read."""
        settled = self._settle(keys=[PENDING_KEY], args=[game_id, str(int(score))])
        return bool(await self._within(settled))

    async def sweep(self) -> int:
        """Announces every outbox found in Redis that is not waiting already (a game
        whose announcement was lost); how many."""
        found = 0
        async for key in self.redis.scan_iter(match=OUTBOX_PATTERN, count=1000, _type="stream"):
            announced = self.redis.zadd(PENDING_KEY, {_game_of(key): _now_us()}, nx=True)
            added: Any = await self._within(announced)
            found += int(added)
        return found

    async def backlog(self) -> tuple[int, float | None]:
        """How many games wait, and since when the longest has (seconds since the epoch)."""
        count: Any = await self._within(self.redis.zcard(PENDING_KEY))
        oldest: Any = await self._within(self.redis.zrange(PENDING_KEY, 0, 0, withscores=True))
        return int(count), (float(oldest[0][1]) / 1e6 if oldest else None)

    async def take_lock(self, token: str, ttl_ms: int) -> bool:
        """One gateway process drains at a time: the lock, if nobody holds it."""
        return bool(await self._within(self.redis.set(LOCK_KEY, token, nx=True, px=ttl_ms)))

    async def renew_lock(self, token: str, ttl_ms: int) -> bool:
        return bool(await self._within(self._renew(keys=[LOCK_KEY], args=[token, ttl_ms])))

    async def release_lock(self, token: str) -> None:
        """Lets another process drain at once (this one stops)."""
        await self._within(self._release(keys=[LOCK_KEY], args=[token]))
