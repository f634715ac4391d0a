"""Players' games and statistics in PostgreSQL (tables `games` and `statistics`, see
storage/migrations): what the outbox's entries do to them, and what the player's
list and statistics read.

Applying an entry is idempotent, so that an entry applied twice (a drain that died
after PostgreSQL committed and before Redis forgot the entry, two gateways draining at
once) counts once: `started` inserts the game's row unless it is there; `ended`
completes the row only while it is not complete, and counts the statistics only when
it did, in the same transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from patience_gateway.records import statistics
from patience_gateway.records.entries import ENDED, STARTED, Entry
from patience_gateway.records.record import ABANDONED, RANKED, GameRecord
from patience_gateway.records.statistics import Figures, Finished


def moment(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC)


def millis(when: datetime | None) -> int | None:
    return None if when is None else round(when.timestamp() * 1000)


async def apply_entry(
    connection: AsyncConnection,
    entry: Entry,
    history: Sequence[str],
    dealt: bytes,
    abandon_after: timedelta,
) -> bool:
    """Applies one outbox entry in the caller's transaction; False when it had been
    applied already (nothing changed)."""
    if entry.kind == STARTED:
        return await _started(connection, entry, abandon_after)
    if entry.kind == ENDED:
        return await _ended(connection, entry, history, dealt)
    raise ValueError(f"an outbox entry of an unknown kind: {entry.kind!r}")


_COLUMNS = (
    "id, player_id, variant, options, category, deal, created_at, first_move_at, "
    "last_change_at, finished_at, outcome, clean, winnable, replayed, claimed, active_ms, "
    "moves, undos, redos, hints, autoplays, restarts, redeals, deals, daily"
)


def _row(entry: Entry) -> tuple[object, ...]:
    facts, record = entry.facts, entry.record
    return (
        facts.game_id,
        facts.player_id,
        facts.variant,
        Jsonb(facts.options),
        facts.category,
        facts.deal,
        moment(record.created_ms),
        moment(record.first_move_ms),
        moment(record.last_change_ms),
        moment(record.finished_ms),
        record.outcome,
        record.clean,
        record.winnable,
        facts.replayed,
        facts.claimed,
        record.active_ms,
        record.moves,
        record.undos,
        record.redos,
        record.hints,
        record.autoplays,
        record.restarts,
        record.redeals,
        record.deals,
        date.fromisoformat(facts.daily) if facts.daily else None,
    )


async def _started(connection: AsyncConnection, entry: Entry, abandon_after: timedelta) -> bool:
    check_after = moment(entry.record.last_change_ms + int(abandon_after.total_seconds() * 1000))
    cursor = await connection.execute(
        f"INSERT INTO games ({_COLUMNS}, check_after) VALUES "
        f"({', '.join(['%s'] * 26)}) ON CONFLICT (id) DO NOTHING",
        (*_row(entry), check_after),
    )
    return cursor.rowcount == 1


async def _ended(
    connection: AsyncConnection, entry: Entry, history: Sequence[str], dealt: bytes
) -> bool:
    names = _COLUMNS.split(", ")
    # a claimed game stays claimed: its end's entry does not know of the claim
    updates = ", ".join(f"{name} = EXCLUDED.{name}" for name in names[1:] if name != "claimed")
    cursor = await connection.execute(
        f"INSERT INTO games ({_COLUMNS}, history, deal_state) VALUES "
        f"({', '.join(['%s'] * 27)}) ON CONFLICT (id) DO UPDATE SET {updates}, "
        "history = EXCLUDED.history, deal_state = EXCLUDED.deal_state, check_after = NULL "
        "WHERE games.finished_at IS NULL",
        (*_row(entry), list(history), dealt or None),
    )
    if cursor.rowcount != 1:
        return False
    await count(
        connection,
        entry.facts.player_id,
        entry.facts.variant,
        entry.facts.category,
        finished_of(entry.facts.game_id, entry.record, entry.facts.category),
    )
    return True


def finished_of(game_id: str, record: GameRecord, category: str) -> Finished:
    assert record.finished_ms is not None and record.outcome is not None
    when = moment(record.finished_ms)
    assert when is not None
    return Finished(
        game_id,
        when,
        record.outcome,
        bool(record.clean),
        record.active_ms,
        record.moves,
        category in RANKED,
    )


async def count(
    connection: AsyncConnection, player_id: str, variant: str, category: str, game: Finished
) -> None:
    """Counts one finished game (whose row is complete) in its statistics: folded in
    when it ends after every game counted so far, else the figures are counted again
    from the rows (a game whose end reached PostgreSQL late)."""
    if not game.counts:  # practice abandoned without a move: nothing was played
        return
    key = (player_id, variant, category)
    await connection.execute(
        "INSERT INTO statistics (player_id, variant, category, played, won, lost, resigned, "
        "abandoned, clean_wins, current_streak, best_streak, last_game_id) "
        "VALUES (%s, %s, %s, 0, 0, 0, 0, 0, 0, 0, 0, '') ON CONFLICT DO NOTHING",
        key,
    )
    figures = await _figures(connection, key, lock=True)
    if figures.comes_after(game):
        figures = statistics.add(figures, game)
    else:
        figures = statistics.recount(await finished_games(connection, *key))
    await connection.execute(
        "UPDATE statistics SET played = %s, won = %s, lost = %s, resigned = %s, "
        "abandoned = %s, clean_wins = %s, current_streak = %s, best_streak = %s, "
        "best_time_ms = %s, fewest_moves = %s, last_finished_at = %s, last_game_id = %s "
        "WHERE player_id = %s AND variant = %s AND category = %s",
        (
            figures.played,
            figures.won,
            figures.lost,
            figures.resigned,
            figures.abandoned,
            figures.clean_wins,
            figures.current_streak,
            figures.best_streak,
            figures.best_time_ms,
            figures.fewest_moves,
            figures.last_finished_at,
            figures.last_game_id,
            *key,
        ),
    )


_FIGURES = (
    "played, won, lost, resigned, abandoned, clean_wins, current_streak, best_streak, "
    "best_time_ms, fewest_moves, last_finished_at, last_game_id"
)


async def _figures(
    connection: AsyncConnection, key: tuple[str, str, str], *, lock: bool = False
) -> Figures:
    row = await (
        await connection.execute(
            f"SELECT {_FIGURES} FROM statistics WHERE player_id = %s AND variant = %s "
            f"AND category = %s{' FOR UPDATE' if lock else ''}",
            key,
        )
    ).fetchone()
    return Figures() if row is None else Figures(*row)


async def finished_games(
    connection: AsyncConnection, player_id: str, variant: str, category: str
) -> list[Finished]:
    """Every finished game of the player's in this variant and category, from the rows."""
    rows = await (
        await connection.execute(
            "SELECT id, finished_at, outcome, coalesce(clean, false), active_ms, moves "
            "FROM games WHERE player_id = %s AND variant = %s AND category = %s "
            "AND finished_at IS NOT NULL",
            (player_id, variant, category),
        )
    ).fetchall()
    ranked = category in RANKED
    return [Finished(row[0], row[1], row[2], row[3], row[4], row[5], ranked) for row in rows]


@dataclass(frozen=True, slots=True)
class StatisticsRow:
    variant: str
    category: str
    figures: Figures


async def statistics_of(connection: AsyncConnection, player_id: str) -> list[StatisticsRow]:
    rows = await (
        await connection.execute(
            f"SELECT variant, category, {_FIGURES} FROM statistics WHERE player_id = %s "
            "ORDER BY variant, category",
            (player_id,),
        )
    ).fetchall()
    return [StatisticsRow(row[0], row[1], Figures(*row[2:])) for row in rows]


@dataclass(frozen=True, slots=True)
class GameRow:
    """A player's game as PostgreSQL knows it."""

    game_id: str
    variant: str
    options: list[str]
    category: str
    deal: str | None
    claimed: bool
    replayed: bool
    record: GameRecord
    daily: str = ""

    @property
    def finished(self) -> bool:
        return self.record.finished


_GAME_ROW = (
    "id, variant, options, category, deal, claimed, replayed, created_at, last_change_at, "
    "first_move_at, finished_at, active_ms, moves, undos, redos, autoplays, restarts, "
    "redeals, deals, outcome, winnable, hints, daily"
)


def _game_row(row: Sequence[object]) -> GameRow:
    values: Any = row
    (game_id, variant, options, category, deal, claimed, replayed) = values[:7]
    created, last, first, finished = values[7:11]
    active, moves, undos, redos, autoplays, restarts, redeals, deals = values[11:19]
    outcome, winnable, hints, daily = values[19:]
    created_ms = millis(created)
    assert created_ms is not None
    record = GameRecord(
        created_ms=created_ms,
        last_change_ms=millis(last) or created_ms,
        first_move_ms=millis(first),
        finished_ms=millis(finished),
        active_ms=active,
        moves=moves,
        undos=undos,
        redos=redos,
        autoplays=autoplays,
        restarts=restarts,
        redeals=redeals,
        deals=deals,
        outcome=outcome,
        winnable=bool(winnable),
        hints=int(hints),
    )
    return GameRow(
        str(game_id),
        str(variant),
        list(options),
        str(category),
        deal,
        bool(claimed),
        bool(replayed),
        record,
        daily.isoformat() if daily else "",
    )


async def games_of(
    connection: AsyncConnection,
    player_id: str,
    *,
    finished: bool | None,
    variant: str | None,
    before: tuple[datetime, str] | None,
    limit: int,
) -> list[GameRow]:
    """The player's games, newest first: `finished` True / False / None (all), of one
    `variant` or all, created before the cursor `before` (created, id), at most
    `limit`."""
    where = ["player_id = %s"]
    params: list[object] = [player_id]
    if finished is not None:
        where.append("finished_at IS NOT NULL" if finished else "finished_at IS NULL")
    if variant is not None:
        where.append("variant = %s")
        params.append(variant)
    if before is not None:
        where.append("(created_at, id) < (%s, %s)")
        params += list(before)
    rows = await (
        await connection.execute(
            f"SELECT {_GAME_ROW} FROM games WHERE {' AND '.join(where)} "
            "ORDER BY created_at DESC, id DESC LIMIT %s",
            (*params, limit),
        )
    ).fetchall()
    return [_game_row(row) for row in rows]


async def game_of(connection: AsyncConnection, game_id: str) -> tuple[str, GameRow] | None:
    """A game PostgreSQL keeps, with its player."""
    row = await (
        await connection.execute(
            f"SELECT {_GAME_ROW}, player_id FROM games WHERE id = %s", (game_id,)
        )
    ).fetchone()
    return None if row is None else (str(row[-1]), _game_row(row[:-1]))


async def games_to_check(connection: AsyncConnection, now: datetime, limit: int) -> list[str]:
    """Games in play whose abandonment check is due, the longest due first."""
    rows = await (
        await connection.execute(
            "SELECT id FROM games WHERE finished_at IS NULL AND check_after <= %s "
            "ORDER BY check_after LIMIT %s",
            (now, limit),
        )
    ).fetchall()
    return [str(row[0]) for row in rows]


async def check_later(connection: AsyncConnection, game_id: str, when: datetime) -> None:
    await connection.execute(
        "UPDATE games SET check_after = %s WHERE id = %s AND finished_at IS NULL",
        (when, game_id),
    )


async def record_lost(connection: AsyncConnection, game_id: str, now: datetime) -> None:
    """A game in play that Redis no longer has (expired while PostgreSQL was away, or
    lost with Redis's data): closed as abandoned with what PostgreSQL knew of it. Its
    moves are unknown (0): a practice game does not count in the statistics, a ranked
    one counts as played from its deal, as every ranked game does."""
    row = await (
        await connection.execute(
            "UPDATE games SET finished_at = %s, outcome = %s, check_after = NULL "
            "WHERE id = %s AND finished_at IS NULL RETURNING player_id, variant, category",
            (now, ABANDONED, game_id),
        )
    ).fetchone()
    if row is not None and row[2] in RANKED:
        lost = Finished(game_id, now, ABANDONED, False, 0, 0, ranked=True)
        await count(connection, str(row[0]), str(row[1]), str(row[2]), lost)


@dataclass(frozen=True, slots=True)
class Replayable:
    """What a replay needs of a player's finished game that Redis no longer keeps."""

    row: GameRow
    player_id: str
    history: list[str]
    dealt: bytes


async def replayable(connection: AsyncConnection, game_id: str) -> Replayable | None:
    """A player's finished game with its history and its state as dealt, if kept."""
    found = await (
        await connection.execute(
            f"SELECT {_GAME_ROW}, player_id, history, deal_state FROM games "
            "WHERE id = %s AND finished_at IS NOT NULL AND deal_state IS NOT NULL",
            (game_id,),
        )
    ).fetchone()
    if found is None:
        return None
    *columns, player_id, history, dealt = found
    return Replayable(_game_row(columns), str(player_id), list(history or []), bytes(dealt))
