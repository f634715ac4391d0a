"""The drain: games' outbox entries carried from Redis into PostgreSQL, each exactly
once, and players' games left in play checked for abandonment.

Every gateway process runs `OutboxDrain.run`; a Redis lock lets one of them work at a
time (another takes over within LOCK_MS when it dies). A round:

1. the announced games (storage.outbox), longest waiting first; for each, its
   entries in order, each applied to PostgreSQL in a transaction of its own
   (`repository.apply_entry`, idempotent), the leaderboards it changes written from
   PostgreSQL's values (`leaderboards.after_end`, idempotent too), then deleted from
   Redis, and the game forgotten once nothing new was announced for it;
2. every OUTBOX_SWEEP_SECONDS (300 by default), outboxes nobody announced (a gateway
   killed between a game's script and its announcement) are announced;
3. every ABANDON_CHECK_SECONDS, players' games in play whose last change is older than
   ABANDON_AFTER_SECONDS are ended as abandoned (through `abandon`, which writes the
   game's outbox entry like any end), and the others are looked at again when they
   would be due.

An entry of a deleted player's game (the player's row a tombstone, or gone) is applied
to nothing: the game is deleted from Redis instead (`records.deletion`), and the
deletions cut short are finished at each sweep.

PostgreSQL down: nothing is deleted from Redis, the round ends, the next one tries
again; entries wait in Redis meanwhile (their streams have no time to live). A crash
anywhere leaves either the entry in Redis (applied again later: idempotent) or
nothing to do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from patience_gateway.records import deletion, repository
from patience_gateway.records.deletion import AccountDeletion
from patience_gateway.records.entries import Entry
from patience_gateway.records.leaderboards import Leaderboards
from patience_gateway.storage.database import Database, DatabaseUnavailable
from patience_gateway.storage.failures import STORAGE_DOWN
from patience_gateway.storage.outbox import OutboxStore

log = logging.getLogger("patience_gateway")

# Short, so that the records wait little for another process when the one draining is
# killed: the drain renews it before each game (`drain`), and a round that finds it
# lost stops there.
LOCK_MS: Final = 3_000
GAMES_PER_ROUND: Final = 200
ENTRIES_PER_GAME: Final = 50
SWEEP_SECONDS: Final = 300.0
ABANDON_CHECK_SECONDS: Final = 30.0


class AbandonResult:
    """What `abandon` found: the game ended now, or it is to be looked at again at
    `check_at` (it changed since), or Redis no longer has it."""

    ENDED = "ended"
    LATER = "later"
    GONE = "gone"


@dataclass(frozen=True, slots=True)
class AbandonCheck:
    outcome: str
    check_at: datetime | None = None


# game id -> what was done with it; supplied by the games layer (games.ending)
# (game id, the moment of the check in milliseconds since the epoch)
Abandon = Callable[[str, int], Awaitable[AbandonCheck]]


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass
class DrainSettings:
    abandon_after: timedelta
    idle_seconds: float = 0.2
    # how often outboxes nobody announced are looked for (Settings.outbox_sweep_seconds)
    sweep_seconds: float = SWEEP_SECONDS
    # when the abandonment checks are due (milliseconds since the epoch)
    clock: Callable[[], int] = _now_ms


# (the entry's kind, its age in seconds): told as each entry reaches PostgreSQL
Arrival = Callable[[str, float], None]


def age_of(stream_id: bytes, now: float) -> float:
    """Seconds since Redis wrote the outbox entry `stream_id` (a stream id begins with
    Redis's clock then, in milliseconds): the age of a record as it arrives in
    PostgreSQL, from the change it reports."""
    written_ms = int(stream_id.split(b"-", 1)[0])
    return max(0.0, now - written_ms / 1000)


class OutboxDrain:
    def __init__(
        self,
        outbox: OutboxStore,
        database: Database,
        abandon: Abandon,
        settings: DrainSettings,
        schema_ready: Callable[[], Awaitable[None]],
        leaderboards: Leaderboards | None = None,
        on_arrival: Arrival | None = None,
        deletions: AccountDeletion | None = None,
    ) -> None:
        self.leaderboards = leaderboards
        self.on_arrival = on_arrival
        self.deletions = deletions
        self.outbox = outbox
        self.database = database
        self.abandon = abandon
        self.settings = settings
        self.schema_ready = schema_ready
        self.token = secrets.token_hex(8)
        self._next_sweep = 0.0
        self._next_abandon_check = 0.0
        self.applied = 0  # entries this process applied (for its metrics)

    async def run(self) -> None:
        """Drains for as long as the gateway runs (cancel it to stop: the lock is given
        up, so another process takes over at once)."""
        try:
            await self._rounds()
        finally:
            with contextlib.suppress(Exception):
                await asyncio.shield(self.outbox.release_lock(self.token))

    async def _rounds(self) -> None:
        while True:
            try:
                worked = await self.round()
            except asyncio.CancelledError:
                raise
            except (DatabaseUnavailable, *STORAGE_DOWN) as error:  # type: ignore[misc]
                log.warning("records are waiting: %s", error)
                worked = False
            except Exception:
                log.exception("the outbox drain failed; it starts again")
                worked = False
            if not worked:
                await asyncio.sleep(self.settings.idle_seconds)

    async def round(self) -> bool:
        """One round, if this process holds the lock; whether it found work."""
        if not await self._hold_lock():
            return False
        await self.schema_ready()
        worked = await self.drain(keep_lock=True)
        now = time.monotonic()
        if now >= self._next_sweep:
            self._next_sweep = now + self.settings.sweep_seconds
            found = await self.outbox.sweep()
            if found:
                log.warning("found %d outbox(es) nobody announced; draining them", found)
                worked = True
            worked = await self.finish_deletions() or worked
        if now >= self._next_abandon_check:
            self._next_abandon_check = now + ABANDON_CHECK_SECONDS
            worked = await self.check_abandoned() or worked
        return worked

    async def _hold_lock(self) -> bool:
        if await self.outbox.renew_lock(self.token, LOCK_MS):
            return True
        return await self.outbox.take_lock(self.token, LOCK_MS)

    async def drain(self, *, keep_lock: bool = False) -> bool:
        """Applies the waiting games' entries; whether there were any. `keep_lock`: the
        lock renewed before each game, and the round ended if another process has it."""
        waiting = await self.outbox.waiting(GAMES_PER_ROUND)
        for game_id, score in waiting:
            if keep_lock and not await self._hold_lock():
                break
            await self.drain_game(game_id, score)
        return bool(waiting)

    async def drain_game(self, game_id: str, score: float) -> None:
        while True:
            entries = await self.outbox.entries(game_id, ENTRIES_PER_GAME)
            if not entries:
                break
            for item in entries:
                entry = Entry.decode(item.entry)
                async with self.database.transaction() as connection:
                    gone = await deletion.is_gone(connection, entry.facts.player_id)
                    if not gone:
                        await repository.apply_entry(
                            connection, entry, item.history, item.dealt, self.settings.abandon_after
                        )
                if gone:
                    if self.deletions is not None:
                        await self.deletions.forget_game(game_id)
                elif self.leaderboards is not None:  # again if need be: absolute values
                    await self.leaderboards.after_end(entry)
                self.applied += 1
                if self.on_arrival is not None:
                    self.on_arrival(entry.kind, age_of(item.stream_id, time.time()))
            left = await self.outbox.applied(game_id, [item.stream_id for item in entries])
            if not left:
                break
        await self.outbox.settle(game_id, score)

    async def finish_deletions(self) -> bool:
        """Finishes the players' deletions cut short (a crash or an outage between
        their steps, and no DELETE sent again); whether there were any."""
        if self.deletions is None:
            return False
        unfinished = await self.deletions.unfinished()
        for player_id in unfinished:
            log.warning("finishing the deletion of player %s", player_id)
            await self.deletions.finish(player_id)
        return bool(unfinished)

    async def check_abandoned(self) -> bool:
        """Ends the players' games left too long; whether any was due."""
        # One reading for the whole round: which games are due and whether each still
        # is are judged at the same moment.
        now_ms = self.settings.clock()
        now = datetime.fromtimestamp(now_ms / 1000, UTC)
        async with self.database.transaction() as connection:
            due = await repository.games_to_check(connection, now, GAMES_PER_ROUND)
        for game_id in due:
            found = await self.abandon(game_id, now_ms)
            async with self.database.transaction() as connection:
                if found.outcome == AbandonResult.GONE:
                    await repository.record_lost(connection, game_id, now)
                elif found.outcome == AbandonResult.LATER and found.check_at is not None:
                    await repository.check_later(connection, game_id, found.check_at)
                else:  # ended: its entry is on its way; look again if it is slow to come
                    await repository.check_later(
                        connection, game_id, now + timedelta(seconds=SWEEP_SECONDS)
                    )
        return bool(due)
