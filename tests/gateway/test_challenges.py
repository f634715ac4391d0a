"""Challenges, against real PostgreSQL, Redis and the engine: a one-use code deals a
game's deal to another player with its number hidden; the code is refused when reused,
expired, mistyped or the challenger's own; both records show once both games are over."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from tests.gateway.helpers import GameHandle, Gateway, assert_problem
from tests.gateway.players import (
    Session,
    bisley_win,
    drained,
    new_game,
    new_player,
    one_move_in,
    play,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def offer(gateway: Gateway, game: GameHandle) -> dict[str, Any]:
    response = await gateway.http.post(f"/v1/games/{game.id}/challenges", headers=game.auth())
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def take(gateway: Gateway, player: Session, code: str) -> Any:
    return await gateway.http.post(f"/v1/challenges/{code}/games", headers=player.auth())


async def taken(gateway: Gateway, player: Session, code: str) -> GameHandle:
    response = await take(gateway, player, code)
    assert response.status_code == 201, response.text
    data = response.json()
    assert response.headers["location"] == f"/v1/games/{data['id']}"
    return GameHandle(data["id"], player.access, response.headers["etag"], data)


async def shown(gateway: Gateway, code: str) -> dict[str, Any]:
    response = await gateway.http.get(f"/v1/challenges/{code}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_a_challenge_deals_the_same_deal_hidden_and_once(records_gateway: Gateway) -> None:
    deal, _ = bisley_win()
    challenger = await new_player(records_gateway, "Ada")
    friend = await new_player(records_gateway, "Bea")
    other = await new_player(records_gateway)
    game = await new_game(records_gateway, challenger, deal=deal)
    assert game.created["deal"] == str(deal)  # the challenger chose it, and sees it
    offered = await offer(records_gateway, game)
    code = offered["code"]
    assert offered["variant"] == "bisley" and offered["take"] == f"/v1/challenges/{code}/games"
    assert_problem(await take(records_gateway, challenger, code), 409, "own-challenge")

    friends = await taken(records_gateway, friend, code)
    assert friends.created["piles"] == game.created["piles"]
    assert friends.created["deal"] is None  # the friend does not see the number
    assert friends.created["record"]["category"] == "practice"

    assert_problem(await take(records_gateway, other, code), 409, "challenge-taken")
    assert_problem(await take(records_gateway, friend, code), 409, "challenge-taken")
    # the friend's game is the friend's alone
    peek = await records_gateway.http.get(f"/v1/games/{friends.id}", headers=other.auth())
    assert_problem(peek, 403, "bad-token")


async def test_both_records_show_once_both_games_are_over(records_gateway: Gateway) -> None:
    deal, line = bisley_win()
    challenger = await new_player(records_gateway, "Cy")
    friend = await new_player(records_gateway, "Di")
    game = await new_game(records_gateway, challenger, deal=deal)
    code = (await offer(records_gateway, game))["code"]
    # typed as a person may type it: lower case, a space for the dash
    friends = await taken(records_gateway, friend, code.lower().replace("-", " "))

    won = await play(records_gateway, game, line)
    assert won["status"] == "won"
    await drained(records_gateway)
    waiting = await shown(records_gateway, code)
    assert waiting["open"] is False
    assert waiting["challenger"]["finished"] is True and waiting["taker"]["finished"] is False
    assert waiting["challenger"]["record"] is None  # nothing to compare until both are over
    assert waiting["taker"]["player"]["display_name"] == "Di"

    theirs = await play(records_gateway, friends, line[: len(line) // 2])
    undone = await records_gateway.http.post(f"/v1/games/{friends.id}/undo", headers=friends.auth())
    assert undone.status_code == 200, undone.text
    friends.follow(undone)
    theirs = await play(records_gateway, friends, line[len(line) // 2 - 1 :])
    assert theirs["status"] == "won" and theirs["deal"] == str(deal)  # shown at the end
    await drained(records_gateway)
    both = await shown(records_gateway, code)
    mine, yours = both["challenger"]["record"], both["taker"]["record"]
    assert both["challenger"]["game"] == game.id and both["taker"]["game"] == friends.id
    assert mine["outcome"] == yours["outcome"] == "won"
    assert mine["clean"] is True and yours["clean"] is False  # the friend undid a move
    assert yours["moves"] == len(line) + 1 and yours["undos"] == 1
    assert both["challenger"]["player"]["display_name"] == "Cy"


async def test_a_hidden_deal_is_offered_once_its_game_is_over(records_gateway: Gateway) -> None:
    challenger = await new_player(records_gateway)
    friend = await new_player(records_gateway)
    game, _ = await one_move_in(records_gateway, challenger)  # a random deal, still in play
    assert game.created["deal"] is None  # its number hidden
    moved = await records_gateway.view(game)
    # in play, the friend's game would show the number at its end, and the friend could
    # pass it back to the challenger
    early = await records_gateway.http.post(f"/v1/games/{game.id}/challenges", headers=game.auth())
    assert_problem(early, 409, "not-challengeable")
    resigned = await records_gateway.http.post(f"/v1/games/{game.id}/resign", headers=game.auth())
    assert resigned.status_code == 200, resigned.text
    friends = await taken(records_gateway, friend, (await offer(records_gateway, game))["code"])
    assert friends.created["piles"] == game.created["piles"] != moved["piles"]
    assert friends.created["deal"] is None  # the friend starts from the deal, number hidden


async def test_expired_and_mistyped_codes_deal_nothing(
    records_gateway: Gateway, database_url: str
) -> None:
    challenger = await new_player(records_gateway)
    friend = await new_player(records_gateway)
    game = await new_game(records_gateway, challenger, deal=77)
    code = (await offer(records_gateway, game))["code"]
    assert_problem(await take(records_gateway, friend, "ZZZZ-ZZZZ"), 404, "bad-challenge-code")
    assert_problem(await take(records_gateway, friend, "not a code"), 404, "bad-challenge-code")
    assert_problem(
        await records_gateway.http.get("/v1/challenges/ZZZZ-ZZZZ"), 404, "bad-challenge-code"
    )
    now_s = records_gateway.app.state.services.games.clock() / 1000  # the gateway's clock
    async with await psycopg.AsyncConnection.connect(database_url) as connection:
        await connection.execute(
            "UPDATE challenges SET expires_at = to_timestamp(%s) WHERE game_id = %s",
            (now_s - 1, game.id),
        )
    assert_problem(await take(records_gateway, friend, code), 404, "bad-challenge-code")
    assert (await shown(records_gateway, code))["open"] is False
    assert (await records_gateway.http.get("/v1/players/me/games", headers=friend.auth())).json()[
        "games"
    ] == []


async def test_who_can_offer_a_challenge(records_gateway: Gateway) -> None:
    challenger = await new_player(records_gateway)
    stranger = await new_player(records_gateway)
    game = await new_game(records_gateway, challenger, deal=5)
    path = f"/v1/games/{game.id}/challenges"
    assert_problem(await records_gateway.http.post(path), 401, "missing-token")
    assert_problem(await records_gateway.http.post(path, headers=stranger.auth()), 403, "bad-token")
    anonymous = await records_gateway.http.post("/v1/games", json={"variant": "bisley"})
    token = anonymous.json()["token"]
    refused = await records_gateway.http.post(
        f"/v1/games/{anonymous.json()['id']}/challenges",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert_problem(refused, 403, "bad-token")
    no_taker = await records_gateway.http.post("/v1/challenges/ABCD-EFGH/games")
    assert_problem(no_taker, 401, "missing-token")


async def test_offering_and_trying_codes_are_rate_limited(
    records_gateway: Gateway, redis: Any
) -> None:
    player = await new_player(records_gateway)
    game = await new_game(records_gateway, player, deal=3)
    path = f"/v1/games/{game.id}/challenges"
    offers = [
        (await records_gateway.http.post(path, headers=game.auth())).status_code for _ in range(21)
    ]
    assert offers == [201] * 20 + [429]
    try:
        tries = [
            (await records_gateway.http.get(f"/v1/challenges/ZZZZ-{n:04d}")).status_code
            for n in range(40)
        ]
    finally:  # the other tests' tries come from the same address
        async for key in redis.scan_iter(match="rate:{challenge-code:*"):
            await redis.delete(key)
    assert 429 in tries
    assert tries[: tries.index(429)] == [404] * tries.index(429)
