"""Daily deals and leaderboards, against real PostgreSQL, Redis and the engine: one deal
per variant and day, the same on every gateway and after a restart; its number hidden
everywhere until the day is over; first attempts only on the day's board; boards
computed by the service, with ties, around-me, and rebuilt when Redis loses them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from patience_contract.client import EngineClient
from patience_gateway.records import days
from patience_gateway.records.leaderboards import (
    daily_name,
    daily_result,
    daily_score,
    week_of,
    wins_name,
)
from patience_gateway.settings import Settings
from patience_gateway.storage.boards import Boards, board_key
from redis import exceptions as redis_errors
from solitaire.v1 import engine_pb2, game_pb2

from tests.gateway.engines import EngineThread
from tests.gateway.helpers import GameHandle, Gateway, assert_problem, running_gateway
from tests.gateway.players import Session, drained, new_player, play

pytestmark = pytest.mark.asyncio(loop_scope="session")

VARIANTS = ("bisley", "usk")


def real_clock() -> int:
    return time.time_ns() // 1_000_000


@pytest.fixture(scope="module")
def daily_settings(records_settings: Settings) -> Settings:
    return replace(records_settings, daily_variants=VARIANTS)


@pytest.fixture(scope="module")
async def daily_gateway(daily_settings: Settings) -> AsyncIterator[Gateway]:
    """A gateway on the real clock (a day's deal is hidden until the real day is over)
    with today's deals of two variants prepared."""
    async with running_gateway(daily_settings, clock=real_clock) as gateway:
        await gateway.app.state.services.daily.prepare(days.today())
        yield gateway


async def today_deals(database_url: str) -> dict[str, str]:
    async with await psycopg.AsyncConnection.connect(database_url) as connection:
        rows = await (
            await connection.execute(
                "SELECT variant, deal FROM daily_deals WHERE day = %s", (days.today(),)
            )
        ).fetchall()
    return {str(row[0]): str(row[1]) for row in rows}


async def start(gateway: Gateway, player: Session, variant: str) -> GameHandle:
    response = await gateway.http.post(f"/v1/daily/{variant}/games", headers=player.auth())
    assert response.status_code == 201, response.text
    data = response.json()
    return GameHandle(data["id"], player.access, response.headers["etag"], data)


async def winning_line(engine: EngineThread, game: GameHandle, database_url: str) -> list[str]:
    """The moves that win the day's deal (a trusted Solve of the state as dealt)."""
    async with await psycopg.AsyncConnection.connect(database_url) as connection:
        row = await (
            await connection.execute(
                "SELECT dealt FROM daily_deals WHERE day = %s AND variant = %s",
                (days.today(), game.created["variant"]),
            )
        ).fetchone()
    assert row is not None
    async with EngineClient(engine.target) as client:
        solved = await client.solve(
            game_pb2.SealedState.FromString(bytes(row[0])), max_milliseconds=20_000
        )
    assert solved.verdict == engine_pb2.VERDICT_WON
    return [move.notation for move in solved.line]


async def test_the_days_deals_are_the_same_everywhere_and_after_a_restart(
    daily_gateway: Gateway, daily_settings: Settings, database_url: str
) -> None:
    kept = await today_deals(database_url)
    assert set(kept) >= set(VARIANTS)
    async with running_gateway(daily_settings, clock=real_clock) as other:
        again = await asyncio.gather(
            other.app.state.services.daily.prepare(days.today()),
            daily_gateway.app.state.services.daily.prepare(days.today()),
        )
    assert {v: d.deal for v, d in again[0].items()} == {v: d.deal for v, d in again[1].items()}
    assert await today_deals(database_url) == kept
    player, friend = await new_player(daily_gateway), await new_player(daily_gateway)
    mine, theirs = (
        await start(daily_gateway, player, "usk"),
        await start(daily_gateway, friend, "usk"),
    )
    assert mine.created["piles"] == theirs.created["piles"]
    # tomorrow's deal is prepared ahead
    await daily_gateway.app.state.services.daily.prepare(days.today() + timedelta(days=1))


async def test_a_days_deal_is_the_players_first_attempt_then_practice(
    daily_gateway: Gateway,
) -> None:
    player = await new_player(daily_gateway)
    first = await start(daily_gateway, player, "bisley")
    record = first.created["record"]
    assert record["daily"] == days.today().isoformat() and record["category"] == "daily"
    assert first.created["deal"] is None and record["winnable"] is True
    # the first attempt ended, a later start is practice (while it is open: refused,
    # tests/gateway/test_fair_play.py)
    await daily_gateway.http.post(f"/v1/games/{first.id}/resign", headers=player.auth())
    second = await start(daily_gateway, player, "bisley")
    assert second.created["record"]["category"] == "practice"
    today = (await daily_gateway.http.get("/v1/daily", headers=player.auth())).json()
    attempts = {d["variant"]: d["attempt"] for d in today["deals"]}
    assert attempts["bisley"] == first.id and attempts["usk"] is None
    assert 0 < today["ends_in_seconds"] <= 86400
    nobody = (await daily_gateway.http.get("/v1/daily")).json()
    assert {d["attempt"] for d in nobody["deals"]} == {None}


async def test_starting_a_daily_deal_needs_a_player_and_a_known_variant(
    daily_gateway: Gateway,
) -> None:
    assert_problem(await daily_gateway.http.post("/v1/daily/bisley/games"), 401, "missing-token")
    player = await new_player(daily_gateway)
    unknown = await daily_gateway.http.post("/v1/daily/chess/games", headers=player.auth())
    assert_problem(unknown, 404, "unknown-variant")


async def test_starting_daily_deals_is_rate_limited_and_none_is_offered_as_a_challenge(
    daily_gateway: Gateway,
) -> None:
    player = await new_player(daily_gateway)
    game = await start(daily_gateway, player, "usk")
    offered = await daily_gateway.http.post(
        f"/v1/games/{game.id}/challenges", headers=player.auth()
    )
    assert_problem(offered, 409, "not-challengeable")
    await daily_gateway.http.delete(f"/v1/games/{game.id}", headers=player.auth())
    statuses = [
        (await daily_gateway.http.post("/v1/daily/usk/games", headers=player.auth())).status_code
        for _ in range(10)
    ]
    assert statuses == [201] * 9 + [429]  # 10 starts in 10 minutes, the first one included


async def test_a_start_that_redis_refuses_keeps_the_first_attempt(
    daily_gateway: Gateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    player = await new_player(daily_gateway)
    store = daily_gateway.app.state.services.games.store

    async def refused(*args: Any, **kwargs: Any) -> Any:
        raise redis_errors.ConnectionError("Redis went away")

    with monkeypatch.context() as patched:
        patched.setattr(store, "create", refused)
        failed = await daily_gateway.http.post("/v1/daily/usk/games", headers=player.auth())
        assert_problem(failed, 503, "storage-unavailable")
    game = await start(daily_gateway, player, "usk")
    assert game.created["record"]["category"] == "daily"


async def test_the_days_number_shows_nowhere_before_the_day_is_over(
    daily_gateway: Gateway, engine: EngineThread, database_url: str, caplog: Any
) -> None:
    """A day's play, won, read every way a player can read it: its number is in no
    answer, event and log line."""
    number = (await today_deals(database_url))["bisley"]
    player = await new_player(daily_gateway)
    game = await start(daily_gateway, player, "bisley")
    seen: list[str] = [str(game.created)]
    path = f"/v1/games/{game.id}"
    ticket = (await daily_gateway.http.post(f"{path}/stream-tickets", headers=player.auth())).json()
    line = await winning_line(engine, game, database_url)
    for notation in line:
        moved = await daily_gateway.move(game, notation)
        assert moved.status_code == 200, moved.text
        seen.append(moved.text)
    assert moved.json()["status"] == "won" and moved.json()["deal"] is None
    await drained(daily_gateway)
    reads = [
        path,
        f"{path}/history",
        f"{path}/legal-moves",
        f"{path}/hint",
        f"{path}/result",
        f"{path}/replay?position={len(line)}",
        "/v1/players/me/games",
        "/v1/players/me/stats",
        "/v1/daily",
        "/v1/leaderboards/daily/bisley",
    ]
    for read in reads:
        answer = await daily_gateway.http.get(read, headers=player.auth())
        seen.append(answer.text)
    undone = await daily_gateway.http.post(f"{path}/undo", headers=player.auth())
    restarted = await daily_gateway.http.post(f"{path}/restart", headers=player.auth())
    seen += [undone.text, restarted.text]
    events = await daily_gateway.app.state.services.games.store.open_stream(game.id, None)
    seen += [entry.body.decode() for entry in events.recent]
    # once Redis no longer keeps it, the game is replayed from PostgreSQL: hidden there too
    shared = await daily_gateway.http.post(f"{path}/shares", headers=player.auth())
    share = {"Authorization": f"Bearer {shared.json()['token']}"}
    deleted = await daily_gateway.http.delete(path, headers=player.auth())
    assert deleted.status_code == 204, deleted.text
    await drained(daily_gateway)
    for position in (0, len(line)):
        for headers in (player.auth(), share):
            kept = await daily_gateway.http.get(
                f"{path}/replay?position={position}", headers=headers
            )
            assert kept.status_code == 200, kept.text
            assert kept.json()["record"]["daily"] == days.today().isoformat()
            seen.append(kept.text)
    seen += [record.getMessage() for record in caplog.records]
    assert ticket["ticket"]
    leaks = [text for text in seen if number in text]
    assert leaks == []


async def test_yesterdays_numbers_are_published(daily_gateway: Gateway, database_url: str) -> None:
    yesterday = days.today() - timedelta(days=1)
    async with await psycopg.AsyncConnection.connect(database_url) as connection:
        dealt = await (
            await connection.execute(
                "SELECT dealt FROM daily_deals WHERE day = %s AND variant = 'bisley'",
                (days.today(),),
            )
        ).fetchone()
        assert dealt is not None
        await connection.execute(
            "INSERT INTO daily_deals (day, variant, deal, dealt) VALUES (%s, 'bisley', '4242', %s) "
            "ON CONFLICT DO NOTHING",
            (yesterday, dealt[0]),
        )
    body = (await daily_gateway.http.get("/v1/daily")).json()
    assert body["yesterday"]["day"] == yesterday.isoformat()
    assert {"variant": "bisley", "deal": "4242"} in body["yesterday"]["deals"]


# ---------------------------------------------------------------- leaderboards


async def test_a_daily_score_orders_clean_wins_then_wins_then_moves_and_ties_the_rest() -> None:
    clean = daily_score("won", True, 80)
    assert clean < daily_score("won", True, 81)  # fewer moves first
    assert clean < daily_score("won", False, 10) < daily_score("stuck", False, 1)
    # every game not won ties, below every win: a quick resignation does not lead them
    lost = {
        daily_score(outcome, False, moves)
        for outcome, moves in (
            ("stuck", 80),
            ("resigned", 1),
            ("proven-lost", 30),
            ("abandoned", 0),
        )
    }
    assert len(lost) == 1 and daily_score("won", False, 999_999) < lost.pop()
    assert daily_result(daily_score("resigned", False, 1), 5_000)["moves"] is None
    # time is shown beside a win, not packed in its score: the same result ties
    shown = daily_result(daily_score("won", True, 80), 90_000)
    assert (shown["moves"], shown["active_seconds"], shown["clean"]) == (80, 90.0, True)


async def test_a_rebuild_keeps_a_score_written_while_postgresql_was_read(redis: Any) -> None:
    """A rebuild writes what PostgreSQL held when it was read; the drain may have written
    a newer score meanwhile: the better one stays (a score only ever gets better)."""
    boards = Boards(redis)
    wins, day = wins_name("cody", "race-test"), daily_name("cody", "1999-01-01")
    for name in (wins, day):
        await redis.delete(board_key(name))
    await boards.set_score(wins, "p1", 6)  # the drain, after the read
    await boards.rebuild(wins, {"p1": 5, "p2": 1}, high_first=True)
    assert await redis.zscore(board_key(wins), "p1") == 6
    assert await redis.zscore(board_key(wins), "p2") == 1
    await boards.set_score(day, "p1", 10.0)  # lower is better on a day's board
    await boards.rebuild(day, {"p1": 20.0}, high_first=False)
    assert await redis.zscore(board_key(day), "p1") == 10.0


async def test_boards_are_of_known_variants_and_recent_days(records_gateway: Gateway) -> None:
    http = records_gateway.http
    for path in ("wins/chess", "streaks/chess", "daily/chess"):
        assert_problem(await http.get(f"/v1/leaderboards/{path}"), 404, "unknown-variant")
    future = (days.today() + timedelta(days=1)).isoformat()
    long_ago = (days.today() - timedelta(days=400)).isoformat()
    for day in (future, long_ago):
        refused = await http.get(f"/v1/leaderboards/daily/usk?day={day}")
        assert_problem(refused, 400, "invalid-day")


async def test_the_wins_and_streak_boards_with_ties_around_me_and_a_rebuild(
    gateway_of_its_own_database: Gateway, database_of_its_own: str
) -> None:
    """Boards from finished games written straight into PostgreSQL's records, as the
    drain leaves them; ties share a rank; Redis loses the boards and they come back."""
    records_gateway, database_url = gateway_of_its_own_database, database_of_its_own
    redis = records_gateway.app.state.services.redis
    variant = "cody"
    players = [await new_player(records_gateway, f"p{n}") for n in range(6)]
    wins = [5, 3, 3, 2, 0, 1]
    await records_gateway.app.state.services.players.schema_ready()
    async with await psycopg.AsyncConnection.connect(database_url) as connection:
        for player, count in zip(players, wins, strict=True):
            for n in range(count):
                await connection.execute(
                    "INSERT INTO games (id, player_id, variant, options, category, created_at, "
                    "last_change_at, finished_at, outcome, clean, winnable, moves) VALUES "
                    "(%s, %s, %s, '[]', 'random', now(), now(), now(), 'won', true, false, 50)",
                    (f"{player.player_id}-{n}", player.player_id, variant),
                )
            await connection.execute(
                "INSERT INTO statistics (player_id, variant, category, played, won, lost, "
                "resigned, abandoned, clean_wins, current_streak, best_streak, last_game_id) "
                "VALUES (%s, %s, 'random', %s, %s, 0, 0, 0, %s, %s, %s, '')",
                (player.player_id, variant, count, count, count, count, count),
            )
    me = players[2]

    async def board(path: str) -> dict[str, Any]:
        response = await records_gateway.http.get(path, headers=me.auth())
        assert response.status_code == 200, response.text
        data: dict[str, Any] = response.json()
        return data

    async def read_all() -> list[dict[str, Any]]:
        return [
            await board(f"/v1/leaderboards/wins/{variant}?top=3&around=1"),
            await board(f"/v1/leaderboards/wins/{variant}?period=week&top=3"),
            await board(f"/v1/leaderboards/streaks/{variant}?top=10"),
        ]

    for key in await redis.keys(f"board:v2:{{*{variant}*"):
        await redis.delete(key)  # boards other runs of this worker left
    first = await read_all()
    alltime = first[0]
    assert alltime["size"] == 5  # a player without a win is on no board
    assert [(r["rank"], r["score"]) for r in alltime["top"]] == [(1, 5), (2, 3), (2, 3)]
    assert alltime["me"]["rank"] == 2 and alltime["me"]["display_name"] == "p2"
    around = [r["display_name"] for r in alltime["around"]]
    assert "p2" in around and len(around) == 3  # itself and one on either side
    assert first[1]["board"] == f"wins:{variant}:{week_of(days.today())}"
    streaks = first[2]
    assert [r["score"] for r in streaks["top"]] == [5, 3, 3, 2, 1]
    for key in await redis.keys(f"board:v2:{{*{variant}*"):
        await redis.delete(key)  # Redis lost them
    assert await read_all() == first


async def test_the_daily_board_counts_first_attempts_only(
    daily_gateway: Gateway, engine: EngineThread, database_url: str
) -> None:
    winner, slower, quitter = [await new_player(daily_gateway, n) for n in ("w", "s", "q")]
    line: list[str] = []
    for player in (winner, slower):
        game = await start(daily_gateway, player, "usk")
        line = line or await winning_line(engine, game, database_url)
        if player is slower:
            await daily_gateway.http.get(f"/v1/games/{game.id}/hint", headers=player.auth())
        await play(daily_gateway, game, line)
    quit_game = await start(daily_gateway, quitter, "usk")
    await play(daily_gateway, quit_game, [quit_game.created["legal_moves"][0]])
    await daily_gateway.http.post(f"/v1/games/{quit_game.id}/resign", headers=quitter.auth())
    again = await start(daily_gateway, quitter, "usk")  # a second try: practice
    await play(daily_gateway, again, line)
    await drained(daily_gateway)
    response = await daily_gateway.http.get(
        "/v1/leaderboards/daily/usk?top=10", headers=quitter.auth()
    )
    board = response.json()
    names = [r["display_name"] for r in board["top"] if r["display_name"] in ("w", "s", "q")]
    assert names == ["w", "s", "q"]
    mine = board["me"]
    assert mine["won"] is False and mine["display_name"] == "q"
    top = next(r for r in board["top"] if r["display_name"] == "w")
    assert top["clean"] is True and top["moves"] == len(line)
    assert_problem(
        await daily_gateway.http.get("/v1/leaderboards/daily/usk?day=yesterday"), 400, "invalid-day"
    )
