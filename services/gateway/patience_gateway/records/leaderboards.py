"""Leaderboards computed by the service only, from finished games (docs/api.md,
"Leaderboards"); a client never sends a score.

Boards, each a Redis sorted set (`storage.boards`) kept from PostgreSQL's records:

- `daily:<variant>:<day>`: the first attempts at a day's deal, ranked by a clean win,
  then a win, then the rest; then fewest moves (every card moved, autoplay's too).
  Identical results share their rank: active time is shown, never ranked, so a
  program's speed does not put it before a person who played the same line;
- `wins:<variant>:all` and `wins:<variant>:<ISO week>`: clean wins in the ranked
  categories (random, winnable and daily deals: never a deal the player could
  choose); a win with undo, redo, restart or hint counts in the player's statistics,
  not here;
- `streaks:<variant>`: the longest run of clean wins in a ranked category, in the
  order its games ended; any other end (a loss, an abandoned or deleted game, a win
  with help) ends a run.

A player an operator keeps off the boards (`records.moderation`) is on none of them:
every query below leaves out the players of `board_exclusions`.

The drain (`records.outbox`) writes a player's scores after each game's end reached
PostgreSQL, as absolute values read back from it, so writing them twice changes nothing;
a board Redis lost is rebuilt whole from PostgreSQL when it is next read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Final

from psycopg import AsyncConnection

from patience_gateway.records.board_shapes import (
    BoardRow,
    BoardShape,
    DailyBoardRow,
    DailyBoardShape,
    DailyResult,
)
from patience_gateway.records.entries import ENDED, Entry
from patience_gateway.records.record import DAILY, RANKED, WON
from patience_gateway.storage.boards import Boards, Ranked
from patience_gateway.storage.database import Database

DAILY_BOARD: Final = "daily"
WINS_BOARD: Final = "wins"
STREAKS_BOARD: Final = "streaks"
ALL_TIME: Final = "all"

# A daily board's score, lower first: the kind of result, then the moves, packed in one
# whole number. A game not won is ranked below every win, tied with every other game
# not won: how few moves a loss took says nothing of how well it was played (a
# resignation after one move would lead). Time is not in the score: two players who
# made the same result share its rank, whoever was quicker.
_CLEAN_WIN, _WIN, _NOT_WON = 0, 1, 2
_MOVES_LIMIT: Final = 1 << 20


def daily_score(outcome: str | None, clean: bool, moves: int) -> float:
    if outcome != WON:
        return float(_NOT_WON * _MOVES_LIMIT)
    kind = _CLEAN_WIN if clean else _WIN
    return float(kind * _MOVES_LIMIT + min(moves, _MOVES_LIMIT - 1))


def daily_result(score: float, active_ms: int | None) -> DailyResult:
    """What a daily board's score says, unpacked, with the attempt's active time."""
    packed = int(score)
    moves = packed % _MOVES_LIMIT
    kind = packed // _MOVES_LIMIT
    won = kind != _NOT_WON
    return {
        "won": won,
        "clean": kind == _CLEAN_WIN,
        "moves": moves if won else None,
        "active_seconds": active_ms / 1000 if won and active_ms is not None else None,
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
        daily = facts.daily if facts.category == DAILY else None
        await self._write(facts.player_id, facts.variant, week_of(finished.date()), daily)

    async def _write(self, player: str, variant: str, week: str | None, day: str | None) -> None:
        """The player's scores on the variant's boards (the all-time wins, the streaks,
        the `week`'s wins, the `day`'s board), as PostgreSQL has them."""
        async with self.database.transaction() as connection:
            wins = await _wins(connection, player, variant, None)
            weekly = await _wins(connection, player, variant, week) if week else 0
            streak = await _best_streak(connection, player, variant)
            daily = await _daily_score(connection, player, variant, day) if day else None
        if wins:
            await self.boards.set_score(wins_name(variant, ALL_TIME), player, wins)
        if weekly and week:
            await self.boards.set_score(wins_name(variant, week), player, weekly)
        if streak:
            await self.boards.set_score(streaks_name(variant), player, streak)
        if daily is not None and day:
            score, active_ms = daily
            await self.boards.set_score(daily_name(variant, day), player, score, active_ms)

    # ------------------------------------------------------------------ one player

    async def take_off(self, player_id: str, names: list[str]) -> None:
        """Takes the player off these boards (kept off them in PostgreSQL first: the
        drain then writes them on none)."""
        for name in names:
            await self.boards.remove(name, player_id)

    async def put_back(self, player_id: str, names: list[str]) -> None:
        """Writes the player's scores on these boards again, from PostgreSQL."""
        for name in names:
            async with self.database.transaction() as connection:
                scores, times = await _scores_of(connection, name, player_id)
            if player_id in scores:
                await self.boards.set_score(
                    name, player_id, scores[player_id], times.get(player_id)
                )

    # ------------------------------------------------------------------ rebuilding

    async def ensure(self, name: str) -> None:
        """Rebuilds the board from PostgreSQL if Redis does not have it."""
        if await self.boards.built(name):
            return
        async with self.database.transaction() as connection:
            scores, times = await _scores_of(connection, name)
        await self.boards.rebuild(name, scores, high_first=high_first(name), times=times)

    # ------------------------------------------------------------------ reading

    async def read(
        self, name: str, *, top: int, around: int, player_id: str | None
    ) -> BoardShape | DailyBoardShape:
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
        shown = list(dict.fromkeys(r.player_id for r in leaders + mine))
        names = await self._names(set(shown))
        size = await self.boards.size(name)
        if name.startswith(DAILY_BOARD + ":"):
            times = await self.boards.times(name, shown)

            def daily_row(ranked: Ranked) -> DailyBoardRow:
                return {
                    "rank": ranked.rank,
                    "player": ranked.player_id,
                    "display_name": names.get(ranked.player_id),
                    **daily_result(ranked.score, times.get(ranked.player_id)),
                }

            return {
                "board": name,
                "size": size,
                "top": [daily_row(r) for r in leaders],
                "me": daily_row(me) if me is not None else None,
                "around": [daily_row(r) for r in mine],
            }

        def row(ranked: Ranked) -> BoardRow:
            return {
                "rank": ranked.rank,
                "player": ranked.player_id,
                "display_name": names.get(ranked.player_id),
                "score": int(ranked.score),
            }

        return {
            "board": name,
            "size": size,
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


# The games the boards count: ranked, finished, of a player not kept off the boards.
_COUNTED_SQL: Final = (
    "category = ANY(%s) AND finished_at IS NOT NULL "
    "AND NOT EXISTS (SELECT 1 FROM board_exclusions x WHERE x.player_id = games.player_id)"
)


async def _scores_of(
    connection: AsyncConnection, name: str, player_id: str | None = None
) -> tuple[dict[str, float], dict[str, int]]:
    """The board's scores as PostgreSQL has them (of one player, or all), and on a day's
    board each attempt's active time."""
    kind, variant, *period = name.split(":")
    if kind == DAILY_BOARD:
        found = await _all_daily_scores(connection, variant, period[0], player_id)
        scores = {player: score for player, (score, _) in found.items()}
        return scores, {player: active for player, (_, active) in found.items()}
    if kind == WINS_BOARD:
        week = None if period[0] == ALL_TIME else period[0]
        return await _all_wins(connection, variant, week, player_id), {}
    return await _all_streaks(connection, variant, player_id), {}


async def _wins(connection: AsyncConnection, player_id: str, variant: str, week: str | None) -> int:
    scores = await _all_wins(connection, variant, week, player_id)
    return int(scores.get(player_id, 0))


async def _all_wins(
    connection: AsyncConnection, variant: str, week: str | None, player_id: str | None = None
) -> dict[str, float]:
    where = [f"variant = %s AND {_COUNTED_SQL} AND outcome = 'won' AND clean"]
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
    """The longest run of clean wins of each player, in one ranked category at a time,
    in the order the games ended (as the statistics order them): each game that is
    not a clean win starts a new run, numbered by how many such games came before."""
    where, params = f"variant = %s AND {_COUNTED_SQL}", [variant, list(RANKED)]
    if player_id is not None:
        where += " AND player_id = %s"
        params.append(player_id)
    rows = await (
        await connection.execute(
            "SELECT player_id, max(run) FROM ("
            " SELECT player_id, count(*) AS run FROM ("
            "  SELECT player_id, category, clean_win, sum(CASE WHEN clean_win THEN 0 ELSE 1 END)"
            "   OVER (PARTITION BY player_id, category ORDER BY finished_at, id) AS broken"
            "  FROM (SELECT player_id, category, finished_at, id,"
            "   coalesce(outcome = 'won' AND clean, false) AS clean_win"
            f"   FROM games WHERE {where}) AS ended"
            " ) AS numbered WHERE clean_win GROUP BY player_id, category, broken"
            ") AS runs GROUP BY player_id",
            params,
        )
    ).fetchall()
    return {str(row[0]): float(row[1]) for row in rows}


async def _daily_score(
    connection: AsyncConnection, player_id: str, variant: str, day: str
) -> tuple[float, int] | None:
    scores = await _all_daily_scores(connection, variant, day, player_id)
    return scores.get(player_id)


async def _all_daily_scores(
    connection: AsyncConnection, variant: str, day: str, player_id: str | None = None
) -> dict[str, tuple[float, int]]:
    """The finished first attempts at the day's deal, each with its active time. An
    attempt counts from its deal: one deleted or abandoned before a move is on the
    board, below every win."""
    where, params = "a.day = %s AND a.variant = %s", [date.fromisoformat(day), variant]
    if player_id is not None:
        where += " AND a.player_id = %s"
        params.append(player_id)
    rows = await (
        await connection.execute(
            "SELECT a.player_id, g.outcome, coalesce(g.clean, false), g.moves, g.active_ms "
            "FROM daily_attempts a JOIN games g ON g.id = a.game_id "
            f"WHERE {where} AND g.finished_at IS NOT NULL AND NOT EXISTS "
            "(SELECT 1 FROM board_exclusions x WHERE x.player_id = a.player_id)",
            params,
        )
    ).fetchall()
    return {str(row[0]): (daily_score(row[1], bool(row[2]), row[3]), int(row[4])) for row in rows}
