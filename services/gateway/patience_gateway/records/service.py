"""What the records' routes read: a player's games (GET /v1/players/me/games) and
statistics (GET /v1/players/me/stats), from PostgreSQL.

A game in play is listed from PostgreSQL (its row is written when it begins) with its
record read fresh from Redis, where it changes with every move; a finished game from
PostgreSQL alone. A game reaches the list once its beginning has been drained from its
outbox (moments, or once PostgreSQL is back).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final
from urllib.parse import quote

import orjson

from patience_gateway.problems import ProblemError
from patience_gateway.records import repository
from patience_gateway.records.answers import figures_json, summary_json
from patience_gateway.records.deletion import AccountDeletion
from patience_gateway.records.export import PlayerExport
from patience_gateway.records.record import GameRecord
from patience_gateway.records.shapes import GameList, StatisticsShape
from patience_gateway.storage.database import Database, DatabaseUnavailable
from patience_gateway.storage.store import GameStore

MAX_PAGE: Final = 100
PLAYING: Final = "playing"
FINISHED: Final = "finished"


def encode_cursor(created: datetime, game_id: str) -> str:
    raw = orjson.dumps([created.isoformat(), game_id])
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created, game_id = orjson.loads(raw)
        return datetime.fromisoformat(created), str(game_id)
    except (binascii.Error, ValueError, TypeError):
        raise ProblemError("invalid-cursor", "the cursor is not one this list gave") from None


@dataclass
class Records:
    """The records routes' dependencies: one per app (`Services.records`)."""

    database: Database | None
    store: GameStore
    schema_ready: Callable[[], Awaitable[None]]
    abandon_after_seconds: int

    def _database(self) -> Database:
        if self.database is None:
            raise DatabaseUnavailable("this gateway has no PostgreSQL (DATABASE_URL)")
        return self.database

    async def games(
        self,
        player_id: str,
        *,
        state: str | None,
        variant: str | None,
        cursor: str | None,
        limit: int,
        path: str,
    ) -> bytes:
        database = self._database()
        before = decode_cursor(cursor) if cursor else None
        finished = None if state is None else state == FINISHED
        await self.schema_ready()
        async with database.transaction() as connection:
            rows = await repository.games_of(
                connection,
                player_id,
                finished=finished,
                variant=variant,
                before=before,
                limit=limit + 1,
            )
        page, more = rows[:limit], len(rows) > limit
        fresh = [await self._fresh_record(row) for row in page]
        body: GameList = {
            "games": [
                summary_json(row, player_id, record)
                for row, record in zip(page, fresh, strict=True)
            ],
            "next": _next_page(path, page, state, variant, limit) if more else None,
        }
        return orjson.dumps(body)

    async def _fresh_record(self, row: repository.GameRow) -> GameRecord | None:
        """A game in play: its record as Redis has it now (None when Redis has the game
        no more, or it is finished)."""
        if row.finished:
            return None
        loaded = await self.store.peek(row.game_id)
        if loaded is None:
            return None
        meta = loaded.meta
        return GameRecord.read(meta.record, meta.hints, meta.created)

    async def delete_player(self, player_id: str) -> None:
        """Deletes the player and everything of theirs (`records.deletion`), or finishes
        a deletion cut short."""
        database = self._database()
        await self.schema_ready()
        await AccountDeletion(database, self.store).delete(player_id)

    async def export(self, player_id: str, head: dict[str, Any]) -> AsyncIterator[bytes]:
        """The player's data as one JSON document, in parts (`records.export`)."""
        database = self._database()
        await self.schema_ready()
        return await PlayerExport(database, self.store).start(player_id, head)

    async def statistics(self, player_id: str) -> bytes:
        database = self._database()
        await self.schema_ready()
        async with database.transaction() as connection:
            rows = await repository.statistics_of(connection, player_id)
        body: StatisticsShape = {
            "player": player_id,
            "abandon_after_seconds": self.abandon_after_seconds,
            "statistics": [figures_json(row) for row in rows],
        }
        return orjson.dumps(body)


def _next_page(
    path: str, page: list[repository.GameRow], state: str | None, variant: str | None, limit: int
) -> str:
    last = page[-1]
    created = repository.moment(last.record.created_ms)
    assert created is not None
    query = [f"limit={limit}", f"cursor={encode_cursor(created, last.game_id)}"]
    if state is not None:
        query.append(f"state={state}")
    if variant is not None:
        query.append(f"variant={quote(variant, safe='')}")
    return f"{path}?{'&'.join(query)}"
