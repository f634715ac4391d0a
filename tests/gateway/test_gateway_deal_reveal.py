"""Undo after the end of a random deal. The end (won or stuck) shows the deal's number,
and with it the player knows the rest of the game (a new game of that number predicts
every stock card and redeal). Taking the end back is allowed, but the game stays an
open one from then on: the view keeps the number and says `replayed`, so that a score,
a streak or a leaderboard can tell."""

from __future__ import annotations

import json
from typing import Any

import pytest
from patience_gateway.games import streams as game_streams

from tests.gateway.helpers import GameHandle, Gateway

pytestmark = pytest.mark.both_stores  # the scripts changed: a Redis server and a cluster


async def play_to_the_end(gateway: Gateway, game: GameHandle) -> list[dict[str, Any]]:
    """Plays the first legal move until the game is over (Bisley ends that way within
    a few dozen moves); returns the views, the deal's first."""
    views = [await gateway.view(game)]
    while views[-1]["status"] == "playing":
        assert len(views) < 200, "the game did not end"
        response = await gateway.move(game, views[-1]["legal_moves"][0])
        assert response.status_code == 200, response.text
        views.append(response.json())
    return views


async def random_game(gateway: Gateway) -> GameHandle:
    game = await gateway.create("bisley")
    while game.created["status"] != "playing":  # over at the deal: nothing to undo
        game = await gateway.create("bisley")
    return game


async def random_game_played_to_the_end(
    gateway: Gateway,
) -> tuple[GameHandle, list[dict[str, Any]]]:
    """A random game played to its end in two moves or more (about one Bisley deal in
    400 is stuck after its first legal move: undo twice would find it at its deal)."""
    while True:
        game = await random_game(gateway)
        assert (game.created["deal"], game.created["replayed"]) == (None, False)
        views = await play_to_the_end(gateway, game)
        if len(views) > 2:
            return game, views


async def test_undo_after_a_random_deal_ends_keeps_it_open_and_marked(gateway: Gateway) -> None:
    game, views = await random_game_played_to_the_end(gateway)
    end = views[-1]
    deal = end["deal"]
    assert deal is not None and not end["replayed"]
    assert (await gateway.history(game))["deal"] == deal
    # Finding: undo made the game playable again with the number hidden and nothing
    # telling that it had been seen.
    undone = await gateway.undo(game)
    assert undone.status_code == 200, undone.text
    view = undone.json()
    assert (view["status"], view["deal"], view["replayed"]) == ("playing", deal, True)
    assert view["piles"] == views[-2]["piles"]
    for read in (await gateway.view(game), await gateway.history(game)):
        assert (read["deal"], read["replayed"]) == (deal, True)
    # It stays so whatever comes next: more undo, redo back to the end, new moves.
    for step in (gateway.undo, gateway.redo, gateway.undo):
        response = await step(game)
        assert response.status_code == 200, response.text
        assert (response.json()["deal"], response.json()["replayed"]) == (deal, True)
    moved = await gateway.move(game, response.json()["legal_moves"][-1])
    assert moved.status_code == 200, moved.text
    assert (moved.json()["deal"], moved.json()["replayed"]) == (deal, True)
    autoplayed = await gateway.http.post(f"/v1/games/{game.id}/autoplay", headers=game.auth())
    assert autoplayed.status_code == 200, autoplayed.text
    game.follow(autoplayed)  # a new version when it played a safe move
    assert (autoplayed.json()["deal"], autoplayed.json()["replayed"]) == (deal, True)
    # and the view an event stream sends when it catches up
    games = gateway.app.state.services.games
    start = await game_streams.reopen(games, game.id)
    assert start is not None
    streamed = await game_streams.view_body(games, game.id, start.version, start.state)
    assert streamed is not None and json.loads(streamed) == await gateway.view(game)
    assert (json.loads(streamed)["deal"], json.loads(streamed)["replayed"]) == (deal, True)
    finished = await play_to_the_end(gateway, game)
    assert (finished[-1]["deal"], finished[-1]["replayed"]) == (deal, True)


async def test_a_random_deal_undone_before_its_end_stays_hidden(gateway: Gateway) -> None:
    moved = None
    while moved is None or moved.json()["status"] != "playing":  # not over at once
        game = await random_game(gateway)
        moved = await gateway.move(game, game.created["legal_moves"][0])
        assert moved.status_code == 200
    undone = await gateway.undo(game)
    assert (undone.json()["deal"], undone.json()["replayed"]) == (None, False)
    history = await gateway.history(game)
    assert (history["deal"], history["replayed"]) == (None, False)


async def test_a_chosen_deal_is_never_marked(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=1234)
    views = await play_to_the_end(gateway, game)
    assert views[-1]["deal"] == "1234"
    undone = await gateway.undo(game)
    assert (undone.json()["deal"], undone.json()["replayed"]) == ("1234", False)
    assert (await gateway.history(game))["replayed"] is False
