"""Leaderboards computed by the service only, from finished games (docs/api.md,
"Leaderboards"); a client never sends a score.

Boards, each a Redis sorted set (`storage.boards`) kept from PostgreSQL's records:

- `daily:<variant>:<day>`: the first attempts at a day's deal, ranked by a clean win,
  then a win, then the rest; then fewest moves; then least active time;
- `wins:<variant>:all` and `wins:<variant>:<ISO week>`: games won in the ranked
  categories (random, winnable and daily deals: never a deal the player could choose);
- `streaks:<variant>`: the best streak of wins in a ranked category.

The drain (`records.outbox`) writes a player's scores after each game's end reached
PostgreSQL, as absolute values read back from it, so writing them twice changes nothing;
a board Redis lost is rebuilt whole from PostgreSQL when it is next read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final

from psycopg import AsyncConnection

from patience_gateway.records.entries import ENDED, Entry
from patience_gateway.records.record import DAILY, RANKED, WON
from patience_gateway.storage.boards import Boards, Ranked
from patience_gateway.storage.database import Database

DAILY_BOARD: Final = "daily"
WINS_BOARD: Final = "wins"
STREAKS_BOARD: Final = "streaks"
ALL_TIME: Final = "all"

# A daily board's score, lower first: the kind of result, then the moves, then the
# active time, packed in one number exact in a double (53 bits). A game not won is
# ranked below every win, tied with every other game not won: how few moves a loss took
# says nothing of how well it was played (a resignation after one move would lead).
_CLEAN_WIN, _WIN, _NOT_WON = 0, 1, 2
_MOVES_LIMIT: Final = 1 << 20
_TIME_LIMIT_MS: Final = 1 << 30


def daily_score(outcome: str | None, clean: bool, moves: int, active_ms: int) -> float:
    if outcome != WON:
        return float(_NOT_WON * _MOVES_LIMIT * _TIME_LIMIT_MS)
    kind = _CLEAN_WIN if clean else _WIN
    packed = (kind * _MOVES_LIMIT + min(moves, _MOVES_LIMIT - 1)) * _TIME_LIMIT_MS
    return float(packed + min(active_ms, _TIME_LIMIT_MS - 1))


def daily_result(score: float) -> dict[str, Any]:
    """What a daily board's score says, unpacked."""
    packed = int(score)
    active_ms = packed % _TIME_LIMIT_MS
    moves = (packed // _TIME_LIMIT_MS) % _MOVES_LIMIT
    kind = packed // _TIME_LIMIT_MS // _MOVES_LIMIT
    won = kind != _NOT_WON
    return {
        "won": won,
        "clean": kind == _CLEAN_WIN,
        "moves": moves if won else None,
        "active_seconds": active_ms / 1000 if won else None,
    }


def week_of(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def week_bounds(week: str) -> tuple[datetime, datetime]:
    monday = datetime.strptime(week + "-1", "%G-W%V-%u").replace(tzinfo=UTC)
    return monday, monday + timedelta(days=7)


def daily_name(variant: str, day: str) -> str:
    return f"{DAILY_BOARD}:{variant}:{day}"


def wins_name(variant: str, period: str) -> str:
    return f"{WINS_BOARD}:{variant}:{period}"


def streaks_name(variant: str) -> str:
    return f"{STREAKS_BOARD}:{variant}"


def high_first(name: str) -> bool:
    return not name.startswith(DAILY_BOARD + ":")


@dataclass
class Leaderboards:
    boards: Boards
    database: Database

    # ------------------------------------------------------------------ writing

    async def after_end(self, entry: Entry) -> None:
        """The boards a game's end changes, written from what PostgreSQL now holds (run
        after the end reached it; again if need be: the values are absolute)."""
        facts, record = entry.facts, entry.record
        if entry.kind != ENDED or facts.category not in RANKED or record.finished_ms is None:
            return
        finished = datetime.fromtimestamp(record.finished_ms / 1000, UTC)
        week = week_of(finished.date())
        async with self.database.transaction() as connection:
            wins = await _wins(connection, facts.player_id, facts.variant, None)
            weekly = await _wins(connection, facts.player_id, facts.variant, week)
            streak = await _best_streak(connection, facts.player_id, facts.variant)
            daily = (
                await _daily_score(connection, facts.player_id, facts.variant, facts.daily)
                if facts.category == DAILY and facts.daily
                else None
            )
        player = facts.player_id
        if wins:
            await self.boards.set_score(wins_name(facts.variant, ALL_TIME), player, wins)
        if weekly:
            await self.boards.set_score(wins_name(facts.variant, week), player, weekly)
        if streak:
            await self.boards.set_score(streaks_name(facts.variant), player, streak)
        if daily is not None and facts.daily:
            await self.boards.set_score(daily_name(facts.variant, facts.daily), player, daily)

    # ------------------------------------------------------------------ rebuilding

    async def ensure(self, name: str) -> None:
        """Rebuilds the board from PostgreSQL if Redis does not have it."""
        if await self.boards.built(name):
            return
        kind, variant, *period = name.split(":")
        async with self.database.transaction() as connection:
            if kind == DAILY_BOARD:
                scores = await _all_daily_scores(connection, variant, period[0])
            elif kind == WINS_BOARD:
                scores = await _all_wins(
                    connection, variant, None if period[0] == ALL_TIME else period[0]
                )
            else:
                scores = await _all_streaks(connection, variant)
        await self.boards.rebuild(name, scores, high_first=high_first(name))

    # ------------------------------------------------------------------ reading

    async def read(
        self, name: str, *, top: int, around: int, player_id: str | None
    ) -> dict[str, Any]:
        await self.ensure(name)
        first = high_first(name)
        leaders = await self.boards.page(name, 0, top, high_first=first)
        mine: list[Ranked] = []
        me: Ranked | None = None
        if player_id is not None:
            where = await self.boards.position(name, player_id, high_first=first)
            if where is not None:
                start = max(where - around, 0)
                mine = await self.boards.page(name, start, 2 * around + 1, high_first=first)
                me = next((r for r in mine if r.player_id == player_id), None)
        names = await self._names({r.player_id for r in leaders + mine})
        daily = name.startswith(DAILY_BOARD + ":")

        def row(ranked: Ranked) -> dict[str, Any]:
            entry: dict[str, Any] = {
                "rank": ranked.rank,
                "player": ranked.player_id,
                "display_name": names.get(ranked.player_id),
            }
            if daily:
                entry.update(daily_result(ranked.score))
            else:
                entry["score"] = int(ranked.score)
            return entry

        return {
            "board": name,
            "size": await self.boards.size(name),
            "top": [row(r) for r in leaders],
            "me": row(me) if me is not None else None,
            "around": [row(r) for r in mine],
        }

    async def _names(self, players: set[str]) -> dict[str, str | None]:
        if not players:
            return {}
        async with self.database.transaction() as connection:
            rows = await (
                await connection.execute(
                    "SELECT id, display_name FROM players WHERE id = ANY(%s)", (list(players),)
                )
            ).fetchall()
        return {str(row[0]): row[1] for row in rows}


_RANKED_SQL: Final = "category = ANY(%s)"


async def _wins(connection: AsyncConnection, player_id: str, variant: str, week: str | None) -> int:
    scores = await _all_wins(connection, variant, week, player_id)
    return int(scores.get(player_id, 0))


async def _all_wins(
    connection: AsyncConnection, variant: str, week: str | None, player_id: str | None = None
) -> dict[str, float]:
    where = [f"variant = %s AND {_RANKED_SQL} AND outcome = 'won'"]
    params: list[object] = [variant, list(RANKED)]
    if week is not None:
        start, end = week_bounds(week)
        where.append("finished_at >= %s AND finished_at < %s")
        params += [start, end]
    if player_id is not None:
        where.append("player_id = %s")
        params.append(player_id)
    rows = await (
        await connection.execute(
            f"SELECT player_id, count(*) FROM games WHERE {' AND '.join(where)} GROUP BY player_id",
            params,
        )
    ).fetchall()
    return {str(row[0]): float(row[1]) for row in rows}


async def _best_streak(connection: AsyncConnection, player_id: str, variant: str) -> int:
    scores = await _all_streaks(connection, variant, player_id)
    return int(scores.get(player_id, 0))


async def _all_streaks(
    connection: AsyncConnection, variant: str, player_id: str | None = None
) -> dict[str, float]:
    where, params = f"variant = %s AND {_RANKED_SQL}", [variant, list(RANKED)]
    if player_id is not None:
        where += " AND player_id = %s"
        params.append(player_id)
    rows = await (
        await connection.execute(
            f"SELECT player_id, max(best_streak) FROM statistics WHERE {where} "
            "GROUP BY player_id HAVING max(best_streak) > 0",
            params,
        )
    ).fetchall()
    return {str(row[0]): float(row[1]) for row in rows}


async def _daily_score(
    connection: AsyncConnection, player_id: str, variant: str, day: str
) -> float | None:
    scores = await _all_daily_scores(connection, variant, day, player_id)
    return scores.get(player_id)


async def _all_daily_scores(
    connection: AsyncConnection, variant: str, day: str, player_id: str | None = None
) -> dict[str, float]:
    """The finished first attempts at the day's deal."""
    where, params = "a.day = %s AND a.variant = %s", [date.fromisoformat(day), variant]
    if player_id is not None:
        where += " AND a.player_id = %s"
        params.append(player_id)
    rows = await (
        await connection.execute(
            "SELECT a.player_id, g.outcome, coalesce(g.clean, false), g.moves, g.active_ms "
            "FROM daily_attempts a JOIN games g ON g.id = a.game_id "
            f"WHERE {where} AND g.finished_at IS NOT NULL AND g.moves > 0",
            params,
        )
    ).fetchall()
    return {str(row[0]): daily_score(row[1], bool(row[2]), row[3], row[4]) for row in rows}
