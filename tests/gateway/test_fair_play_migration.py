"""Revision 0004 on a database that already holds finished games (written as the
service wrote them before it): every game is kept, and the statistics and the boards'
figures are counted again under the boards' present rules."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from patience_gateway.records import leaderboards
from patience_gateway.records.leaderboards import week_of
from patience_gateway.storage.schema import upgrade

pytestmark = pytest.mark.asyncio(loop_scope="session")

START = datetime(2026, 11, 2, 9, tzinfo=UTC)  # a Monday


def game(
    n: int,
    player: str,
    outcome: str,
    *,
    category: str = "random",
    clean: bool | None = None,
    moves: int = 40,
    autoplays: int = 0,
    history: list[str] | None = None,
) -> dict[str, Any]:
    finished = START + timedelta(minutes=n)
    return {
        "id": f"{player}-{n}",
        "player": player,
        "category": category,
        "created": finished - timedelta(minutes=1),
        "finished": finished,
        "outcome": outcome,
        "clean": clean if outcome == "won" else None,
        "moves": moves,
        "autoplays": autoplays,
        "history": history,
    }


async def test_revision_0004_keeps_every_game_and_counts_them_again(
    database_of_its_own: str,
) -> None:
    url = database_of_its_own
    await asyncio.to_thread(upgrade, url, "0003")
    games = [
        # ada: a clean win, a random deal deleted before a move (uncounted before), a
        # clean win, a win with a hint, a clean win
        game(1, "ada", "won", clean=True),
        game(2, "ada", "abandoned", moves=0),
        game(3, "ada", "won", clean=True),
        game(4, "ada", "won", clean=False),
        game(5, "ada", "won", clean=True),
        # bob: a practice game left without a move (uncounted, then and now), and a
        # clean win with autoplay: 3 changes in its history, 6 cards moved
        game(6, "bob", "abandoned", category="practice", moves=0),
        game(
            7,
            "bob",
            "won",
            clean=True,
            moves=3,
            autoplays=2,
            history=["t1-f1,t2-f1", "t3-t4", "restart", "t4-f2,t5-f2,t6-f2"],
        ),
    ]
    async with await psycopg.AsyncConnection.connect(url) as connection:
        for player in ("ada", "bob"):
            await connection.execute("INSERT INTO players (id) VALUES (%s)", (player,))
        for g in games:
            await connection.execute(
                "INSERT INTO games (id, player_id, variant, options, category, created_at, "
                "last_change_at, finished_at, outcome, clean, winnable, moves, autoplays, "
                "history) VALUES (%(id)s, %(player)s, 'bisley', '[]', %(category)s, "
                "%(created)s, %(finished)s, %(finished)s, %(outcome)s, %(clean)s, false, "
                "%(moves)s, %(autoplays)s, %(history)s)",
                g,
            )
        # the figures as counted before: ada's deal deleted before a move left out
        await connection.execute(
            "INSERT INTO statistics (player_id, variant, category, played, won, lost, "
            "resigned, abandoned, clean_wins, current_streak, best_streak, last_game_id) "
            "VALUES ('ada', 'bisley', 'random', 4, 4, 0, 0, 0, 3, 4, 4, 'ada-5')"
        )
        await connection.commit()
    await asyncio.to_thread(upgrade, url)
    async with await psycopg.AsyncConnection.connect(url) as connection:
        kept = await (await connection.execute("SELECT count(*) FROM games")).fetchone()
        assert kept == (len(games),)
        rows = await (
            await connection.execute(
                "SELECT player_id, category, played, won, abandoned, clean_wins, "
                "current_streak, best_streak, fewest_moves FROM statistics "
                "ORDER BY player_id, category"
            )
        ).fetchall()
        assert rows == [
            ("ada", "random", 5, 4, 1, 3, 3, 3, 40),
            ("bob", "random", 1, 1, 0, 1, 1, 1, 6),
        ]
        wins = await leaderboards._all_wins(connection, "bisley", None)
        weekly = await leaderboards._all_wins(connection, "bisley", week_of(START.date()))
        streaks = await leaderboards._all_streaks(connection, "bisley")
        tables = await (
            await connection.execute(
                "SELECT count(*) FROM board_exclusions UNION ALL "
                "SELECT count(*) FROM moderation_log"
            )
        ).fetchall()
    assert wins == weekly == {"ada": 3.0, "bob": 1.0}  # clean wins only
    assert streaks == {"ada": 1.0, "bob": 1.0}  # the deleted deal and the hinted win break runs
    assert tables == [(0,), (0,)]
