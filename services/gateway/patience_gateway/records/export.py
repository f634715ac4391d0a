"""A player's data as one JSON document (GET /v1/players/me/export; docs/api.md,
"Exporting a player's data"), streamed: the player, its outside identities, its
statistics and its places on the boards first, then its games, a page at a time, each
with its record and its moves.

A page is read in a transaction of its own, and written out before the next is read:
a player with thousands of games holds no connection, and no worker, for the whole
document, and the gateway keeps one page in memory. What is read before the first
byte (the player, the statistics, the places) answers a problem as any route does;
a failure after it (PostgreSQL lost mid-document) cuts the document short, which a
JSON reader sees as incomplete.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

import orjson

from patience_gateway.records import repository
from patience_gateway.records.answers import figures_json, summary_json
from patience_gateway.records.leaderboards import high_first
from patience_gateway.records.player_boards import boards_of
from patience_gateway.records.record import GameRecord
from patience_gateway.storage.boards import Boards
from patience_gateway.storage.database import Database
from patience_gateway.storage.store import GameStore

EXPORT_FORMAT: Final = "patience-export/1"
PAGE: Final = 200


@dataclass
class PlayerExport:
    database: Database
    store: GameStore

    async def start(self, player_id: str, head: dict[str, Any]) -> AsyncIterator[bytes]:
        """The document's parts, in order; what comes before the games is read now (so
        that an outage is answered as a problem), the games as the parts are taken."""
        async with self.database.transaction() as connection:
            statistics = await repository.statistics_of(connection, player_id)
            boards = await boards_of(connection, player_id)
        places = await self._places(player_id, boards)
        opening = {
            "format": EXPORT_FORMAT,
            "exported": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            **head,
            "statistics": [figures_json(row) for row in statistics],
            "boards": places,
        }
        first = orjson.dumps(opening)[:-1] + b',"games":['
        return self._parts(player_id, first)

    async def _parts(self, player_id: str, first: bytes) -> AsyncIterator[bytes]:
        yield first
        before: tuple[datetime, str] | None = None
        separator = b""
        while True:
            async with self.database.transaction() as connection:
                rows = await repository.games_of(
                    connection, player_id, finished=None, variant=None, before=before, limit=PAGE
                )
                histories = await _histories(connection, [row.game_id for row in rows])
            if not rows:
                break
            chunk = bytearray()
            for row in rows:
                game = await self._game(row, player_id, histories.get(row.game_id))
                chunk += separator + orjson.dumps(game)
                separator = b","
            yield bytes(chunk)
            last = rows[-1]
            created = repository.moment(last.record.created_ms)
            assert created is not None
            before = (created, last.game_id)
            if len(rows) < PAGE:
                break
        yield b"]}"

    async def _game(
        self, row: repository.GameRow, player_id: str, history: list[str] | None
    ) -> dict[str, Any]:
        record: GameRecord | None = None
        if not row.finished:  # in play: its record and moves as Redis has them now
            kept = await self.store.load_history(row.game_id)
            if kept is not None:
                meta = kept.meta
                record = GameRecord.read(meta.record, meta.hints, meta.created)
                history = kept.steps
        game: dict[str, Any] = dict(summary_json(row, player_id, record))
        game["history"] = history or []
        return game

    async def _places(self, player_id: str, boards: list[str]) -> list[dict[str, Any]]:
        """Where the player stands on each board Redis holds the player on."""
        kept = Boards(self.store.redis)
        places: list[dict[str, Any]] = []
        for name in boards:
            first = high_first(name)
            where = await kept.position(name, player_id, high_first=first)
            if where is None:
                continue
            ranked = await kept.page(name, where, 1, high_first=first)
            if not ranked:
                continue
            # a day's board scores lower first (docs/api.md, Leaderboards)
            places.append({"board": name, "rank": ranked[0].rank, "score": ranked[0].score})
        return places


async def _histories(connection: Any, game_ids: list[str]) -> dict[str, list[str]]:
    """The moves PostgreSQL keeps of these games (those that finished)."""
    if not game_ids:
        return {}
    rows = await (
        await connection.execute(
            "SELECT id, history FROM games WHERE id = ANY(%s) AND history IS NOT NULL",
            (game_ids,),
        )
    ).fetchall()
    return {str(row[0]): list(row[1]) for row in rows}
