"""A player's account deleted and exported, against real PostgreSQL, Redis and the
engine: nothing of the player left in either store after a deletion (but the mark
docs/api.md names), every token refused, the boards left at once; the export one JSON
document of everything kept. Display names and the smaller refusals of the player
routes."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import orjson
import pytest
from patience_gateway.records import days, deletion
from patience_gateway.records.export import PAGE
from patience_gateway.records.leaderboards import daily_name
from patience_gateway.settings import Settings
from patience_gateway.storage.boards import board_key

from tests.gateway.accounts import leftovers
from tests.gateway.helpers import GameHandle, Gateway, assert_problem, running_gateway
from tests.gateway.players import (
    Session,
    bisley_win,
    drained,
    new_game,
    new_player,
    play,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


def real_clock() -> int:
    return time.time_ns() // 1_000_000


@pytest.fixture(scope="module")
async def accounts_gateway(records_settings: Settings) -> AsyncIterator[Gateway]:
    """A gateway on the real clock with today's Bisley deal prepared (a daily attempt
    puts its player on the day's board)."""
    settings = replace(records_settings, daily_variants=("bisley",))
    async with running_gateway(settings, clock=real_clock) as gateway:
        await gateway.app.state.services.daily.prepare(days.today())
        yield gateway


@pytest.fixture
async def redis_client(accounts_gateway: Gateway) -> Any:
    return accounts_gateway.app.state.services.redis


async def daily_attempt(gateway: Gateway, player: Session) -> GameHandle:
    """The day's Bisley, one move, resigned: the player is on the day's board."""
    started = await gateway.http.post("/v1/daily/bisley/games", headers=player.auth())
    assert started.status_code == 201, started.text
    data = started.json()
    game = GameHandle(data["id"], player.access, started.headers["etag"], data)
    await play(gateway, game, [data["legal_moves"][0]])
    resigned = await gateway.http.post(f"/v1/games/{game.id}/resign", headers=player.auth())
    assert resigned.status_code == 200, resigned.text
    return game


async def a_full_account(gateway: Gateway, name: str) -> tuple[Session, list[str]]:
    """A player with a name, a live link code, a won game, a game in play
    and a place on the day's board; the ids of its games."""
    player = await new_player(gateway, name)
    code = await gateway.http.post("/v1/players/me/link-codes", headers=player.auth())
    assert code.status_code == 201  # left live
    deal, moves = bisley_win()
    won = await new_game(gateway, player, "bisley", deal=deal)
    assert (await play(gateway, won, moves))["status"] == "won"
    playing = await new_game(gateway, player, "usk", deal=7)
    daily = await daily_attempt(gateway, player)
    await drained(gateway)
    return player, [won.id, playing.id, daily.id]


async def test_a_deleted_player_leaves_nothing_behind_and_every_token_is_refused(
    accounts_gateway: Gateway, database_url: str, redis_client: Any
) -> None:
    gateway = accounts_gateway
    player, games = await a_full_account(gateway, f"Gone {time.time_ns() % 10**6}")
    board = daily_name("bisley", days.today().isoformat())
    assert await redis_client.zscore(board_key(board), player.player_id) is not None
    other = await new_player(gateway)
    other_game = await new_game(gateway, other, "bisley", deal=3)

    deleted = await gateway.http.delete("/v1/players/me", headers=player.auth())
    assert deleted.status_code == 204, deleted.text
    # off the board at once, and the game in play is gone
    assert await redis_client.zscore(board_key(board), player.player_id) is None
    gone = await gateway.http.get(f"/v1/games/{games[1]}", headers=player.auth())
    assert gone.status_code in (401, 404), gone.text

    for method, path in (
        ("GET", "/v1/players/me"),
        ("GET", "/v1/players/me/games"),
        ("GET", "/v1/players/me/stats"),
        ("GET", "/v1/players/me/export"),
        ("POST", "/v1/players/me/link-codes"),
    ):
        refused = await gateway.http.request(method, path, headers=player.auth())
        assert_problem(refused, 401, "invalid-token")
        assert refused.headers["www-authenticate"].startswith('Bearer realm="patience"')
    created = await gateway.http.post(
        "/v1/games", json={"variant": "bisley"}, headers=player.auth()
    )
    assert_problem(created, 401, "invalid-token")
    anonymous = await gateway.create("bisley")
    claimed = await gateway.http.post(
        f"/v1/games/{anonymous.id}/claim", json={"token": anonymous.token}, headers=player.auth()
    )
    assert_problem(claimed, 401, "invalid-token")
    for taken in ("/v1/challenges/ABCD-EFGH/games", "/v1/daily/bisley/games"):
        assert_problem(await gateway.http.post(taken, headers=player.auth()), 401, "invalid-token")
    refreshed = await gateway.http.post(
        "/v1/sessions/refresh", json={"refresh_token": player.refresh}
    )
    assert_problem(refreshed, 401, "bad-refresh-token")

    again = await gateway.http.delete("/v1/players/me", headers=player.auth())
    assert again.status_code == 204  # idempotent
    await drained(gateway)
    assert await leftovers(gateway, database_url, redis_client, player.player_id, games) == []
    # the other player is untouched
    assert (await gateway.http.get("/v1/players/me", headers=other.auth())).status_code == 200
    assert (await gateway.view(other_game))["id"] == other_game.id


async def test_a_game_whose_beginning_reaches_the_records_after_the_deletion_is_dropped(
    accounts_gateway: Gateway, database_url: str, redis_client: Any
) -> None:
    """A game created just before the deletion, its outbox not drained yet: the drain
    applies none of its entries and deletes the game."""
    gateway = accounts_gateway
    player = await new_player(gateway)
    drain = gateway.app.state.services.drain
    await drained(gateway)
    game = await new_game(gateway, player, "bisley", deal=11)  # its entry waits
    # the deletion's first step only, as if the gateway died right after it
    async with gateway.app.state.services.database.transaction() as connection:
        assert await deletion.mark(connection, player.player_id, datetime.now(UTC))
    await drain.drain()
    assert (await gateway.http.get(f"/v1/games/{game.id}", headers=player.auth())).status_code in (
        401,
        404,
    )
    assert await drain.finish_deletions()
    await drained(gateway)
    assert await leftovers(gateway, database_url, redis_client, player.player_id, [game.id]) == []


async def test_the_export_is_one_document_of_everything_kept(accounts_gateway: Gateway) -> None:
    gateway = accounts_gateway
    player, games = await a_full_account(gateway, f"Export {time.time_ns() % 10**6}")
    response = await gateway.http.get("/v1/players/me/export", headers=player.auth())
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    assert "attachment" in response.headers["content-disposition"]
    document = orjson.loads(response.content)
    assert document["format"] == "patience-export/1"
    assert document["player"]["id"] == player.player_id
    assert document["player"]["display_name"].startswith("Export")
    assert document["identities"] == []
    assert {game["id"] for game in document["games"]} == set(games)
    by_id = {game["id"]: game for game in document["games"]}
    _, moves = bisley_win()
    assert by_id[games[0]]["record"]["outcome"] == "won"
    assert len(by_id[games[0]]["history"]) >= len(moves)
    assert by_id[games[1]]["record"]["outcome"] is None  # in play: read from Redis
    assert len(by_id[games[2]]["history"]) >= 1
    figures = {(s["variant"], s["category"]): s for s in document["statistics"]}
    assert figures[("bisley", "practice")]["won"] == 1
    board = daily_name("bisley", days.today().isoformat())
    assert [place["board"] for place in document["boards"]] == [board]
    assert document["boards"][0]["rank"] >= 1


async def test_an_export_of_many_games_comes_in_pages(accounts_gateway: Gateway) -> None:
    """More games than a page: every one of them, once, newest first."""
    gateway = accounts_gateway
    player = await new_player(gateway)
    made = [(await new_game(gateway, player, "bisley", deal=n)).id for n in range(PAGE + 5)]
    await drained(gateway)
    async with gateway.http.stream("GET", "/v1/players/me/export", headers=player.auth()) as answer:
        assert answer.status_code == 200
        parts = [part async for part in answer.aiter_raw()]
    document = orjson.loads(b"".join(parts))
    assert [game["id"] for game in document["games"]] == list(reversed(made))


# ---------------------------------------------------------------------- display names


@pytest.mark.parametrize("blank", ["\u3164", "\u2800", "\u3164 \u2800", "\uffa0", " \u115f "])
async def test_a_name_that_shows_nothing_is_refused(accounts_gateway: Gateway, blank: str) -> None:
    answer = await accounts_gateway.http.post("/v1/players", json={"display_name": blank})
    assert_problem(answer, 422, "invalid-display-name")


async def test_emoji_sequences_are_names_and_names_are_unique_by_case_and_width(
    accounts_gateway: Gateway,
) -> None:
    gateway = accounts_gateway
    suffix = str(time.time_ns() % 10**8)
    coder = await new_player(gateway, "\U0001f469\u200d\U0001f4bb" + suffix)
    assert coder.body["player"]["display_name"] == "\U0001f469\u200d\U0001f4bb" + suffix
    walker = await new_player(gateway, "Walker" + suffix)
    wide = "".join(chr(ord(c) + 0xFEE0) for c in "Walker" + suffix)  # full-width forms
    for clash in ("walker" + suffix, "WALKER" + suffix, wide):
        assert_problem(
            await gateway.http.post("/v1/players", json={"display_name": clash}),
            409,
            "display-name-taken",
        )
        other = await new_player(gateway)
        renamed = await gateway.http.patch(
            "/v1/players/me", json={"display_name": clash}, headers=other.auth()
        )
        assert_problem(renamed, 409, "display-name-taken")
    # the holder may change its own name's case; a deleted player's name is free again
    same = await gateway.http.patch(
        "/v1/players/me", json={"display_name": "WALKER" + suffix}, headers=walker.auth()
    )
    assert same.status_code == 200, same.text
    assert (await gateway.http.delete("/v1/players/me", headers=walker.auth())).status_code == 204
    assert (await new_player(gateway, wide)).body["player"]["display_name"] == "Walker" + suffix


async def test_a_joiner_outside_an_emoji_sequence_is_refused(accounts_gateway: Gateway) -> None:
    answer = await accounts_gateway.http.post("/v1/players", json={"display_name": "a\u200db"})
    assert_problem(answer, 422, "invalid-display-name")


# ---------------------------------------------------------------------- small refusals


async def test_every_401_says_bearer_and_its_error(accounts_gateway: Gateway) -> None:
    gateway = accounts_gateway
    game = await gateway.create("bisley")
    answers = [
        # a move takes the speed path, its refusals answered by the app's handlers
        await gateway.http.post(
            f"/v1/games/{game.id}/moves",
            json={"move": game.created["legal_moves"][0]},
            headers={"Authorization": "Bearer a.b.c"},
        ),
        await gateway.http.get(f"/v1/games/{game.id}/events"),  # no stream ticket
        await gateway.http.get("/v1/players/me"),
        await gateway.http.get("/v1/players/me", headers={"Authorization": "Bearer a.b.c"}),
        await gateway.http.post("/v1/sessions/refresh", json={"refresh_token": "nope"}),
    ]
    for answer in answers:
        assert answer.status_code == 401
        challenge = answer.headers["www-authenticate"]
        assert challenge.startswith("Bearer ")
        assert 'error="invalid_token"' in challenge


@pytest.mark.parametrize("length", [0, 43, 257, 1200])
async def test_a_claim_with_a_wrong_token_of_any_length_is_bad_token(
    accounts_gateway: Gateway, length: int
) -> None:
    gateway = accounts_gateway
    player = await new_player(gateway)
    game = await gateway.create("bisley")
    token = ("eyJ" + "x" * length)[:length]
    claimed = await gateway.http.post(
        f"/v1/games/{game.id}/claim", json={"token": token}, headers=player.auth()
    )
    assert_problem(claimed, 403, "bad-token")


async def test_a_client_made_from_the_document_may_leave_the_new_players_body_out(
    accounts_gateway: Gateway,
) -> None:
    operation = accounts_gateway.app.openapi()["paths"]["/v1/players"]["post"]
    body = operation["requestBody"]
    assert not body.get("required", False)
    schema = body["content"]["application/json"]["schema"]
    assert schema["$ref"] == "#/components/schemas/NewPlayer"  # not "or null"
    for sent in ({}, {"content": b"{}", "headers": {"Content-Type": "application/json"}}):
        answer = await accounts_gateway.http.post("/v1/players", **sent)
        assert answer.status_code == 201, answer.text
        assert answer.json()["player"]["display_name"] is None
