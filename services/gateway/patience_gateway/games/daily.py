"""Daily deals: for each variant and UTC day, one deal, the same for every player, drawn
among deals the solver proved winnable, its number hidden until the day is over (then
published: GET /v1/daily names yesterday's). docs/api.md, "Daily deals".

The day's deals are kept in PostgreSQL, prepared ahead (today's and tomorrow's) by the
gateway process that holds a Redis lock: a random number is drawn, the engine deals it
with the number hidden (NewGame hide_deal) and searches it; the first proven one is
kept, and a second gateway that proved another for the same day and variant finds the
first one kept (the table's key). So every process and replica deals the same, and a
restart changes nothing. The searches run in the process's spare time (`spare_time`),
or regardless once a day's preparing has waited PATIENCE_SECONDS for it.

A player starts today's deal of a variant with POST /v1/daily/{variant}/games: a player's
game from the state as dealt. Its first attempt that day (`daily_attempts`) counts as
`daily` in the statistics and on the day's leaderboard; a later attempt at the same deal
is practice (the player has seen it), and is dealt only once the first attempt has
ended (`409 daily-attempt-open` before): a practice copy played beside the first
attempt would let the player try lines there and then play the one that wins in the
attempt that counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Final

import orjson
from patience_contract.client import EngineError
from solitaire.v1 import engine_pb2

from patience_gateway.games.answers import Reply
from patience_gateway.games.create import start_dealt
from patience_gateway.games.service import Games
from patience_gateway.games.tokens import new_game_id
from patience_gateway.problems import ProblemError
from patience_gateway.records import daily_repository, days
from patience_gateway.records.board_shapes import DailyShape
from patience_gateway.records.daily_repository import DailyDeal
from patience_gateway.records.record import DAILY, PRACTICE, GameRecord
from patience_gateway.storage.database import Database, DatabaseUnavailable
from patience_gateway.storage.failures import STORAGE_DOWN
from patience_gateway.storage.rates import Rate

log = logging.getLogger("patience_gateway")

# A random deal number: in the range the engine draws its own random deals from.
LOW: Final = 10**16
HIGH: Final = 10**20
LOCK_KEY: Final = b"patience:daily:lock"
LOCK_MS: Final = 60_000
PAUSE_SECONDS: Final = 30.0
# How long a day's preparing waits for spare time before its searches run regardless.
PATIENCE_SECONDS: Final = 120.0
# what makes the preparing wait for the next round: a dependency away for a while
WAITS: Final[tuple[type[Exception], ...]] = (DatabaseUnavailable, EngineError, *STORAGE_DOWN)
# per player: the first attempt counts; later ones are practice, and need not be many
STARTS: Final = Rate("daily-start", 10, 600)


@dataclass(frozen=True, slots=True)
class DailySettings:
    # the variants with a daily deal (DAILY_VARIANTS); empty: every variant the engine has
    variants: tuple[str, ...]
    # each deal's search, as a winnable deal's (WINNABLE_SOLVE_*)
    solve_milliseconds: int
    solve_positions: int


class DailyDeals:
    def __init__(
        self,
        games: Games,
        database: Database | None,
        schema_ready: Callable[[], Awaitable[None]],
        settings: DailySettings,
    ) -> None:
        self.games = games
        self.database = database
        self.schema_ready = schema_ready
        self.settings = settings
        self.token = secrets.token_hex(8)
        self._variants: tuple[str, ...] = settings.variants

    async def variants(self) -> tuple[str, ...]:
        """The variants with a daily deal, as configured, else as the engine lists them."""
        if not self._variants:
            listed = await self.games.ask(self.games.engine.list_variants())
            self._variants = tuple(variant.id for variant in listed)
        return self._variants

    def _database(self) -> Database:
        if self.database is None:
            raise DatabaseUnavailable("this gateway has no PostgreSQL (DATABASE_URL)")
        return self.database

    # ------------------------------------------------------------------ preparing

    async def run(self) -> None:
        """Keeps today's and tomorrow's deals prepared, while this process holds the
        lock (cancel it to stop)."""
        redis = self.games.store.redis
        try:
            while True:
                try:
                    held = await redis.set(LOCK_KEY, self.token, nx=True, px=LOCK_MS)
                    held = held or await redis.get(LOCK_KEY) == self.token.encode()
                    if held:
                        await redis.pexpire(LOCK_KEY, LOCK_MS)
                        today = days.today(self.games.clock())
                        await self.prepare(today)
                        await self.prepare(today + timedelta(days=1))
                except asyncio.CancelledError:
                    raise
                except WAITS as error:
                    log.warning("daily deals wait: %s", error)
                except Exception:
                    log.exception("preparing the daily deals failed; trying again")
                await asyncio.sleep(PAUSE_SECONDS)
        finally:
            with contextlib.suppress(Exception):
                if await redis.get(LOCK_KEY) == self.token.encode():
                    await redis.delete(LOCK_KEY)

    async def prepare(self, day: date) -> dict[str, DailyDeal]:
        """The day's deal of every variant, proving the missing ones now."""
        await self.schema_ready()
        async with self._database().transaction() as connection:
            kept = await daily_repository.deals_of(connection, day)
        regardless_after = time.monotonic() + PATIENCE_SECONDS
        for variant in await self.variants():
            if variant not in kept:
                kept[variant] = await self._prove(day, variant, regardless_after)
        return kept

    async def _prove(self, day: date, variant: str, regardless_after: float) -> DailyDeal:
        engine = self.games.engine
        budget = self.settings.solve_milliseconds
        while True:
            number = str(secrets.randbelow(HIGH - LOW) + LOW)
            dealt = await engine.new_game(variant, deal=number, hide_deal=True)
            search = functools.partial(
                engine.solve,
                dealt.state,
                max_positions=self.settings.solve_positions,
                max_milliseconds=budget,
                timeout=budget / 1000 + engine.timeout,
            )
            solved = await self.games.spare.run(search, regardless_after)
            if solved.verdict == engine_pb2.VERDICT_WON:
                deal = DailyDeal(day, variant, number, dealt.state.SerializeToString())
                async with self._database().transaction() as connection:
                    return await daily_repository.keep(connection, deal)

    # ------------------------------------------------------------------ the day

    async def today(self, player_id: str | None) -> bytes:
        """Today's deals (variants, the time left, the player's attempts) and
        yesterday's, whose numbers are public now."""
        now = self.games.clock()
        today = days.today(now)
        yesterday = today - timedelta(days=1)
        await self.schema_ready()
        async with self._database().transaction() as connection:
            deals = await daily_repository.deals_of(connection, today)
            past = await daily_repository.deals_of(connection, yesterday)
            attempts = (
                await daily_repository.attempts_of(connection, player_id, today)
                if player_id is not None
                else {}
            )
        body: DailyShape = {
            "day": today.isoformat(),
            "ends_in_seconds": max(days.end_ms(today) - now, 0) // 1000,
            "deals": [
                {
                    "variant": variant,
                    "ready": variant in deals,
                    "attempt": attempts.get(variant),
                    "start": f"/v1/daily/{variant}/games",
                }
                for variant in await self.variants()
            ],
            "yesterday": {
                "day": yesterday.isoformat(),
                "deals": [
                    {"variant": deal.variant, "deal": deal.deal}
                    for deal in sorted(past.values(), key=lambda d: d.variant)
                ],
            },
        }
        return orjson.dumps(body)

    async def _open(self, game_id: str) -> bool:
        """Whether the game is still being played (Redis keeps it, its record open)."""
        loaded = await self.games.store.peek(game_id)
        if loaded is None:
            return False
        meta = loaded.meta
        return not GameRecord.read(meta.record, meta.hints, meta.created).finished

    async def start(self, player_id: str, variant: str) -> tuple[str, Reply]:
        """A new game of today's deal of `variant` for the player."""
        if variant not in await self.variants():
            raise ProblemError("unknown-variant", f"no daily deal of {variant!r}")
        if self.games.players is not None:
            await self.games.players.refuse_deleted(player_id)
            await self.games.players.limit(STARTS, player_id)
        now = self.games.clock()
        today = days.today(now)
        await self.schema_ready()
        async with self._database().transaction() as connection:
            deal = await daily_repository.deal_of(connection, today, variant)
        if deal is None:
            raise ProblemError(
                "no-winnable-deal",
                f"today's deal of {variant} is still being prepared",
                headers={"Retry-After": str(self.games.retry_after)},
            )
        game_id = new_game_id()
        # The attempt is recorded in the transaction that spans the game's creation: if
        # the game cannot be made, the player keeps a first attempt.
        async with self._database().transaction() as connection:
            started = datetime.fromtimestamp(now / 1000, UTC)
            first = await daily_repository.first_attempt(
                connection, today, variant, player_id, game_id, started
            )
            if first != game_id and await self._open(first):
                raise ProblemError(
                    "daily-attempt-open",
                    f"the first attempt at today's {variant} deal ({first}) is still "
                    "open: finish, resign or delete it before playing the deal again",
                    headers={"Location": f"/v1/games/{first}"},
                )
            category = DAILY if first == game_id else PRACTICE
            record = GameRecord.new(now, winnable=True)
            return await start_dealt(
                self.games,
                deal.dealt,
                player_id,
                category,
                record,
                game_id=game_id,
                daily=today.isoformat(),
            )
