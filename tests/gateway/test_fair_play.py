"""Climbing the boards with one account, through the public API, against a real gateway
(Redis, PostgreSQL, the engine): each way docs/fair-play.md names, played, and found
closed. Wins of ranked deals are made with the line a trusted Solve of the game's
sealed state finds (what a program watching the screen could find)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import psycopg
import pytest
from patience_contract.client import EngineClient
from patience_gateway.records import days
from patience_gateway.settings import Settings
from solitaire.v1 import engine_pb2, game_pb2

from tests.gateway.engines import EngineThread
from tests.gateway.helpers import GameHandle, Gateway, assert_problem, running_gateway
from tests.gateway.players import Session, drained, my_statistics, new_player, play
from tests.gateway.test_gateway_answer_schemas import documented_answer

pytestmark = pytest.mark.asyncio(loop_scope="session")

DAILY_VARIANT = "bisley"
OPERATOR_KEY = "operator-" + "k" * 40


class OffsetClock:
    """The real clock (a day's deal is hidden until the real day is over), which a test
    moves ahead to make one player slower than another, whatever the machine's speed."""

    def __init__(self) -> None:
        self.offset_ms = 0

    def __call__(self) -> int:
        return time.time_ns() // 1_000_000 + self.offset_ms


@pytest.fixture(scope="module")
async def fair(records_settings: Settings) -> AsyncIterator[Gateway]:
    """A gateway with today's deal of one variant prepared and an operator key."""
    settings = replace(records_settings, daily_variants=(DAILY_VARIANT,), operator_key=OPERATOR_KEY)
    async with running_gateway(settings, clock=OffsetClock()) as gateway:
        await gateway.app.state.services.daily.prepare(days.today())
        yield gateway


def clock_of(gateway: Gateway) -> OffsetClock:
    clock = gateway.app.state.services.games.clock
    assert isinstance(clock, OffsetClock)
    return clock


async def deal(gateway: Gateway, player: Session, **body: Any) -> GameHandle:
    response = await gateway.http.post(
        "/v1/games", json={"variant": "bisley", **body}, headers=player.auth()
    )
    assert response.status_code == 201, response.text
    data = response.json()
    return GameHandle(data["id"], player.access, response.headers["etag"], data)


async def start_daily(gateway: Gateway, player: Session) -> GameHandle:
    response = await gateway.http.post(f"/v1/daily/{DAILY_VARIANT}/games", headers=player.auth())
    assert response.status_code == 201, response.text
    data = response.json()
    return GameHandle(data["id"], player.access, response.headers["etag"], data)


async def line_of(gateway: Gateway, engine: EngineThread, game: GameHandle) -> list[str]:
    """A winning line from the game's current position (a trusted Solve of its sealed
    state, as Redis keeps it)."""
    loaded = await gateway.app.state.services.games.store.load(game.id)
    assert loaded is not None
    async with EngineClient(engine.target) as client:
        solved = await client.solve(
            game_pb2.SealedState.FromString(loaded.state), max_milliseconds=20_000
        )
    assert solved.verdict == engine_pb2.VERDICT_WON
    return [move.notation for move in solved.line]


async def win(gateway: Gateway, engine: EngineThread, game: GameHandle) -> dict[str, Any]:
    won = await play(gateway, game, await line_of(gateway, engine, game))
    assert won["record"]["outcome"] == "won", won["record"]
    return won


async def board(gateway: Gateway, path: str, player: Session | None = None) -> dict[str, Any]:
    headers = player.auth() if player is not None else {}
    response = await gateway.http.get(path, headers=headers)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


async def view(gateway: Gateway, game: GameHandle) -> dict[str, Any]:
    response = await gateway.http.get(f"/v1/games/{game.id}", headers=game.auth())
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


# ---------------------------------------------------------------- 1. rehearsing the day's deal


async def test_the_days_deal_cannot_be_rehearsed_beside_its_first_attempt(fair: Gateway) -> None:
    player = await new_player(fair)
    first = await start_daily(fair, player)
    assert first.created["record"]["category"] == "daily"
    # a practice copy while the first attempt is open: refused, the attempt named
    again = await fair.http.post(f"/v1/daily/{DAILY_VARIANT}/games", headers=player.auth())
    problem = assert_problem(again, 409, "daily-attempt-open")
    assert first.id in problem["detail"]
    assert again.headers["location"] == f"/v1/games/{first.id}"
    # once the first attempt has ended, the deal may be played again, as practice
    resigned = await fair.http.post(f"/v1/games/{first.id}/resign", headers=player.auth())
    assert resigned.status_code == 200, resigned.text
    practice = await start_daily(fair, player)
    assert practice.created["record"]["category"] == "practice"


# ---------------------------------------------------------------- 2. deal-scumming


async def test_a_ranked_deal_passed_on_counts_as_played_and_ends_a_streak(
    fair: Gateway, engine: EngineThread
) -> None:
    player = await new_player(fair)
    await win(fair, engine, await deal(fair, player, winnable=True))
    # a deal looked at (a hint asked) and deleted before a move
    passed = await deal(fair, player, winnable=True)
    hint = await fair.http.get(f"/v1/games/{passed.id}/hint", headers=player.auth())
    assert hint.status_code == 200, hint.text
    deleted = await fair.http.delete(f"/v1/games/{passed.id}", headers=player.auth())
    assert deleted.status_code == 204, deleted.text
    await win(fair, engine, await deal(fair, player, winnable=True))
    figures = await won_lost_won(fair, player)
    assert figures["current_streak"] == 1


async def won_lost_won(fair: Gateway, player: Session) -> dict[str, Any]:
    """The player's winnable Bisley figures once drained, held to three deals played,
    two won and one abandoned between them: a best streak of 1, on the streaks board
    too."""
    await drained(fair)
    figures: dict[str, Any] = (await my_statistics(fair, player))["bisley/winnable"]
    assert (figures["played"], figures["won"], figures["abandoned"]) == (3, 2, 1)
    assert figures["best_streak"] == 1
    streaks = await board(fair, "/v1/leaderboards/streaks/bisley?top=1&around=0", player)
    assert streaks["me"]["score"] == 1
    return figures


# ---------------------------------------------------------------- 3. streak parking


async def test_a_parked_ranked_game_ends_when_the_next_one_is_dealt(
    fair: Gateway, engine: EngineThread
) -> None:
    player = await new_player(fair)
    await win(fair, engine, await deal(fair, player, winnable=True))
    parked = await deal(fair, player, winnable=True)
    await play(fair, parked, [parked.created["legal_moves"][0]])
    # the next deal of the category and variant ends the parked game as abandoned
    following = await deal(fair, player, winnable=True)
    left = await view(fair, parked)
    assert left["record"]["outcome"] == "abandoned" and left["legal_moves"] == []
    await win(fair, engine, following)
    # a random deal of another variant, and a practice deal, end nothing
    other = await deal(fair, player, variant="usk")
    await deal(fair, player, deal=7)
    assert (await view(fair, other))["record"]["outcome"] is None
    await won_lost_won(fair, player)


# ---------------------------------------------------------------- 4. following the hints


async def test_wins_with_help_stay_off_the_wins_and_streaks_boards(
    fair: Gateway, engine: EngineThread
) -> None:
    player = await new_player(fair)
    hinted = await deal(fair, player, winnable=True)
    hint = await fair.http.get(f"/v1/games/{hinted.id}/hint", headers=player.auth())
    assert hint.status_code == 200, hint.text
    await win(fair, engine, hinted)
    undone = await deal(fair, player, winnable=True)
    await play(fair, undone, [undone.created["legal_moves"][0]])
    assert (await fair.undo(undone)).status_code == 200
    await win(fair, engine, undone)
    await drained(fair)
    figures = (await my_statistics(fair, player))["bisley/winnable"]
    assert (figures["won"], figures["clean_wins"], figures["best_streak"]) == (2, 0, 2)
    wins = await board(fair, "/v1/leaderboards/wins/bisley?top=1&around=0", player)
    streaks = await board(fair, "/v1/leaderboards/streaks/bisley?top=1&around=0", player)
    assert wins["me"] is None and streaks["me"] is None
    await win(fair, engine, await deal(fair, player, winnable=True))  # a clean win
    await drained(fair)
    wins = await board(fair, "/v1/leaderboards/wins/bisley?top=1&around=0", player)
    week = await board(fair, "/v1/leaderboards/wins/bisley?period=week&top=1&around=0", player)
    streaks = await board(fair, "/v1/leaderboards/streaks/bisley?top=1&around=0", player)
    assert wins["me"]["score"] == week["me"]["score"] == streaks["me"]["score"] == 1


# ---------------------------------------------------------------- 5 and 6. the day's board


async def daily_line(fair: Gateway, engine: EngineThread, database_url: str) -> list[str]:
    async with await psycopg.AsyncConnection.connect(database_url) as connection:
        row = await (
            await connection.execute(
                "SELECT dealt FROM daily_deals WHERE day = %s AND variant = %s",
                (days.today(), DAILY_VARIANT),
            )
        ).fetchone()
    assert row is not None
    async with EngineClient(engine.target) as client:
        solved = await client.solve(
            game_pb2.SealedState.FromString(bytes(row[0])), max_milliseconds=20_000
        )
    assert solved.verdict == engine_pb2.VERDICT_WON
    return [move.notation for move in solved.line]


async def daily_rows(fair: Gateway, *players: Session) -> list[dict[str, Any]]:
    await drained(fair)
    found = await board(fair, f"/v1/leaderboards/daily/{DAILY_VARIANT}?top=100")
    rows = {row["player"]: row for row in found["top"]}
    return [rows[player.player_id] for player in players]


async def test_the_days_board_counts_the_cards_autoplay_moved(
    fair: Gateway, engine: EngineThread, database_url: str
) -> None:
    line = await daily_line(fair, engine, database_url)
    by_hand, with_autoplay = await new_player(fair), await new_player(fair)
    await play(fair, await start_daily(fair, by_hand), line)
    game = await start_daily(fair, with_autoplay)
    switched = await fair.autoplay_on(game)
    assert switched.status_code == 200, switched.text
    game.follow(switched)
    made, moved = 0, 0
    while (await view(fair, game))["status"] == "playing":
        # a line from where the game stands, played while it holds: a card autoplay
        # moved meanwhile may leave a move of it illegal, and the line is found again
        for notation in await line_of(fair, engine, game):
            if notation not in (await view(fair, game))["legal_moves"]:
                break
            answer = await play(fair, game, [notation])
            made, moved = made + 1, moved + 1 + len(answer["autoplayed"])
            if answer["status"] != "playing":
                break
    assert (await view(fair, game))["record"]["outcome"] == "won"
    assert made < moved  # autoplay moved some of the cards
    hand, auto = await daily_rows(fair, by_hand, with_autoplay)
    assert hand["moves"] == len(line)
    assert auto["moves"] == moved  # every card moved counts, not the player's moves


async def test_the_same_result_shares_its_rank_however_fast(
    fair: Gateway, engine: EngineThread, database_url: str
) -> None:
    line = await daily_line(fair, engine, database_url)
    quick, slow = await new_player(fair), await new_player(fair)
    await play(fair, await start_daily(fair, quick), line)
    clock = clock_of(fair)
    game = await start_daily(fair, slow)
    try:
        for notation in line:
            clock.offset_ms += 10_000  # ten seconds a move more than the quick player
            await play(fair, game, [notation])
    finally:
        clock.offset_ms = 0
    first, second = await daily_rows(fair, quick, slow)
    assert first["moves"] == second["moves"] == len(line)
    assert first["active_seconds"] < second["active_seconds"]  # shown, not ranked
    assert first["rank"] == second["rank"]


# ---------------------------------------------------------------- moderation


async def standing(
    fair: Gateway, player_id: str, token: str, **body: Any
) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}"}
    path = f"/v1/leaderboards/players/{player_id}"
    if body:
        response = await fair.http.put(path, json=body, headers=headers)
    else:
        response = await fair.http.get(path, headers=headers)
    return response.status_code, response.json()


async def test_an_operator_keeps_a_player_off_every_board_and_puts_them_back(
    fair: Gateway, engine: EngineThread, database_url: str
) -> None:
    cheat = await new_player(fair)
    await win(fair, engine, await deal(fair, cheat, winnable=True))
    await play(fair, await start_daily(fair, cheat), await daily_line(fair, engine, database_url))
    await drained(fair)
    boards = [
        "/v1/leaderboards/wins/bisley?top=1&around=0",
        "/v1/leaderboards/wins/bisley?period=week&top=1&around=0",
        "/v1/leaderboards/streaks/bisley?top=1&around=0",
        f"/v1/leaderboards/daily/{DAILY_VARIANT}?top=1&around=0",
    ]
    assert all([(await board(fair, path, cheat))["me"] is not None for path in boards])
    # a player's token (the player's own, or another's) opens nothing here
    change = {"on_boards": False, "operator": "ops-ana", "reason": "a solver's lines"}
    for token in (cheat.access, (await new_player(fair)).access, OPERATOR_KEY[:-1]):
        status, problem = await standing(fair, cheat.player_id, token, **change)
        assert (status, problem["code"]) == (403, "not-operator")
        status, problem = await standing(fair, cheat.player_id, token)
        assert (status, problem["code"]) == (403, "not-operator")
    status, off = await standing(fair, cheat.player_id, OPERATOR_KEY, **change)
    assert status == 200 and off["on_boards"] is False
    assert [(a["action"], a["operator"], a["reason"]) for a in off["audit"]] == [
        ("exclude", "ops-ana", "a solver's lines")
    ]
    assert all([(await board(fair, path, cheat))["me"] is None for path in boards])
    # a game ended meanwhile puts the player on no board either
    await win(fair, engine, await deal(fair, cheat, winnable=True))
    await drained(fair)
    assert all([(await board(fair, path, cheat))["me"] is None for path in boards])
    back = {"on_boards": True, "operator": "ops-ben", "reason": "appeal upheld"}
    status, on = await standing(fair, cheat.player_id, OPERATOR_KEY, **back)
    assert status == 200 and on["on_boards"] is True
    assert [a["action"] for a in on["audit"]] == ["restore", "exclude"]
    wins = await board(fair, boards[0], cheat)
    assert wins["me"]["score"] == 3  # the day's deal won cleanly is a ranked clean win too
    assert all([(await board(fair, path, cheat))["me"] is not None for path in boards])
    status, problem = await standing(fair, "no-such-player", OPERATOR_KEY, **back)
    assert (status, problem["code"]) == (404, "unknown-player")


# ---------------------------------------------------------------- the answers' shapes


async def test_the_daily_and_board_operations_refuse_a_query_they_do_not_take(
    fair: Gateway,
) -> None:
    for path in (
        "/v1/daily?verbose=1",
        "/v1/leaderboards/wins/bisley?topp=5",
        "/v1/leaderboards/streaks/bisley?period=week",
        f"/v1/leaderboards/daily/{DAILY_VARIANT}?days=2",
    ):
        assert_problem(await fair.http.get(path), 400, "unknown-parameter")
    assert (
        await fair.http.get("/v1/leaderboards/wins/bisley?period=week&top=3")
    ).status_code == 200


async def test_the_daily_and_board_answers_hold_to_their_schemas(
    fair: Gateway, engine: EngineThread
) -> None:
    """Each answer of the daily and board operations (with and without a player, on a
    board and off it) validated against the schema the OpenAPI document gives it."""
    player, stranger = await new_player(fair), await new_player(fair)
    await win(fair, engine, await deal(fair, player, winnable=True))
    await drained(fair)
    answers = [
        ("get", await fair.http.get("/v1/daily")),
        ("get", await fair.http.get("/v1/daily", headers=player.auth())),
        (
            "post",
            await fair.http.post(f"/v1/daily/{DAILY_VARIANT}/games", headers=player.auth()),
        ),
        ("post", await fair.http.post(f"/v1/daily/{DAILY_VARIANT}/games", headers=player.auth())),
    ]
    for path in (
        f"/v1/leaderboards/daily/{DAILY_VARIANT}",
        "/v1/leaderboards/wins/bisley",
        "/v1/leaderboards/wins/bisley?period=week",
        "/v1/leaderboards/streaks/bisley",
    ):
        for who in (player, stranger):
            answers.append(("get", await fair.http.get(path, headers=who.auth())))
        answers.append(("get", await fair.http.get(path)))
    statuses = sorted({response.status_code for _, response in answers})
    assert statuses == [200, 201, 409]
    document = fair.app.openapi()
    wrong = [
        error
        for method, response in answers
        for error in documented_answer(document, method, response)
    ]
    assert wrong == []
