"""Replays and share links: the table after any number of moves equals the view the
game answered then (from Redis, and from PostgreSQL once Redis no longer keeps the
game); a share token reads the game as its player sees it and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.gateway.helpers import GameHandle, Gateway, assert_problem
from tests.gateway.players import bisley_win, drained, new_game, new_player, play

pytestmark = pytest.mark.asyncio(loop_scope="session")

TABLE = ("variant", "options", "status", "piles", "counters", "legal_moves", "outlook")


def table(body: dict[str, Any]) -> dict[str, Any]:
    return {field: body[field] for field in TABLE}


async def step(gateway: Gateway, game: GameHandle, route: str) -> dict[str, Any]:
    response = await gateway.http.post(f"/v1/games/{game.id}/{route}", headers=game.auth())
    assert response.status_code == 200, response.text
    game.follow(response)
    body: dict[str, Any] = response.json()
    return body


async def replay(gateway: Gateway, game_id: str, token: str, position: int) -> Any:
    return await gateway.http.get(
        f"/v1/games/{game_id}/replay?position={position}",
        headers={"Authorization": f"Bearer {token}"},
    )


async def played_with_views(gateway: Gateway, game: GameHandle) -> list[dict[str, Any]]:
    """A game with moves, an undo, a restart and more moves; the table after each move
    of its final history, as the game answered it."""
    views = [table(game.created)]
    first = await play(gateway, game, [game.created["legal_moves"][0]])
    views.append(table(first))
    second = await play(gateway, game, [first["legal_moves"][0]])
    await step(gateway, game, "undo")  # the second move leaves the history
    again = await play(gateway, game, [first["legal_moves"][-1]])
    views.append(table(again))
    restarted = await step(gateway, game, "restart")
    views.append(table(restarted))
    after = restarted
    for _ in range(3):
        after = await play(gateway, game, [after["legal_moves"][0]])
        views.append(table(after))
    assert second["piles"] != again["piles"] or first["legal_moves"][0] == first["legal_moves"][-1]
    return views


async def test_every_position_replays_to_the_view_the_game_answered(
    records_gateway: Gateway,
) -> None:
    game = await records_gateway.create("la-belle-lucie", deal=7)
    views = await played_with_views(records_gateway, game)
    for position, expected in enumerate(views):
        response = await replay(records_gateway, game.id, game.token, position)
        assert response.status_code == 200, response.text
        body = response.json()
        assert table(body) == expected, position
        assert (body["position"], body["length"]) == (position, len(views) - 1)
    assert (await replay(records_gateway, game.id, game.token, 2)).json()["last_move"]
    assert (await replay(records_gateway, game.id, game.token, 3)).json()["last_move"] == "restart"
    assert_problem(
        await replay(records_gateway, game.id, game.token, len(views)), 400, "invalid-position"
    )


async def test_a_players_finished_game_replays_from_postgresql(
    records_gateway: Gateway, redis: Any
) -> None:
    player = await new_player(records_gateway)
    deal, moves = bisley_win()
    game = await new_game(records_gateway, player, "bisley", deal=deal)
    views = [table(game.created)]
    for notation in moves:
        views.append(table(await play(records_gateway, game, [notation])))
    await drained(records_gateway)
    async for key in redis.scan_iter(match=f"game:{{{game.id}}}:*"):
        await redis.delete(key)  # as if it had expired
    assert_problem(
        await records_gateway.http.get(f"/v1/games/{game.id}", headers=player.auth()),
        404,
        "unknown-game",
    )
    for position in (0, 1, len(moves) // 2, len(moves)):
        response = await replay(records_gateway, game.id, player.access, position)
        assert response.status_code == 200, response.text
        assert table(response.json()) == views[position], position
    stranger = await new_player(records_gateway)
    assert_problem(await replay(records_gateway, game.id, stranger.access, 0), 403, "bad-token")


async def test_a_share_token_reads_the_game_and_changes_nothing(
    records_gateway: Gateway,
) -> None:
    player = await new_player(records_gateway)
    game = await new_game(records_gateway, player, "usk", deal=6)
    await play(records_gateway, game, [game.created["legal_moves"][0]])
    shared = await records_gateway.http.post(f"/v1/games/{game.id}/shares", headers=player.auth())
    assert shared.status_code == 200, shared.text
    token = shared.json()["token"]
    again = await records_gateway.http.post(f"/v1/games/{game.id}/shares", headers=player.auth())
    assert again.json()["token"] == token
    watcher = {"Authorization": f"Bearer {token}"}
    path = f"/v1/games/{game.id}"
    view = await records_gateway.http.get(path, headers=watcher)
    own = await records_gateway.http.get(path, headers=player.auth())
    assert view.status_code == 200 and view.json() == own.json()
    for route in ("/legal-moves", "/history", "/replay?position=1"):
        assert (await records_gateway.http.get(path + route, headers=watcher)).status_code == 200
    ticket = await records_gateway.http.post(f"{path}/stream-tickets", headers=watcher)
    assert ticket.status_code == 201
    refused = [
        await records_gateway.http.post(
            f"{path}/moves", json={"move": own.json()["legal_moves"][0]}, headers=watcher
        ),
        await records_gateway.http.post(f"{path}/undo", headers=watcher),
        await records_gateway.http.post(f"{path}/restart", headers=watcher),
        await records_gateway.http.post(f"{path}/resign", headers=watcher),
        await records_gateway.http.post(f"{path}/autoplay", headers=watcher),
        await records_gateway.http.post(f"{path}/shares", headers=watcher),
        await records_gateway.http.get(f"{path}/hint", headers=watcher),
        await records_gateway.http.patch(path, json={"autoplay": True}, headers=watcher),
        await records_gateway.http.delete(path, headers=watcher),
    ]
    for response in refused:
        assert_problem(response, 403, "bad-token")
    after = await records_gateway.http.get(path, headers=player.auth())
    assert after.json()["version"] == own.json()["version"]
    assert after.json()["record"]["hints"] == 0


async def test_a_share_token_opens_its_own_game_only(records_gateway: Gateway) -> None:
    one = await records_gateway.create("bisley", deal=1)
    other = await records_gateway.create("bisley", deal=2)
    token = (
        await records_gateway.http.post(f"/v1/games/{one.id}/shares", headers=one.auth())
    ).json()["token"]
    for forged in (token, token[:-2] + ("AA" if not token.endswith("AA") else "BB"), "sh.x"):
        response = await records_gateway.http.get(
            f"/v1/games/{other.id}", headers={"Authorization": f"Bearer {forged}"}
        )
        assert_problem(response, 403, "bad-token")
