"""Whole games through REST: every variant from its deal to WON (the winning move
lists of tests/rules/golden/wins.json), then undo back to the deal and redo to the
end again."""

from __future__ import annotations

from typing import Any

import pytest
from patience_contract.client import EngineClient
from patience_gateway.games.service import ENGINE_BATCH_LIMIT

from tests.gateway.engines import EngineThread
from tests.gateway.helpers import (
    WINS_FILE,
    Gateway,
    Win,
    assert_problem,
    load_wins,
    view_without_identity,
)

pytestmark = pytest.mark.both_stores  # a single Redis server and a Redis Cluster

VARIANTS = (
    "cody",
    "little-billee",
    "usk",
    "la-belle-lucie",
    "house-in-the-wood",
    "house-on-the-hill",
    "napoleon-at-st-helena",
    "the-fifteen",
    "bisley",
)


def _win(variant: str) -> Win:
    if not WINS_FILE.exists():
        pytest.skip(f"{WINS_FILE} is absent")
    wins = {win.variant: win for win in load_wins()}
    if variant not in wins:
        pytest.fail(f"{WINS_FILE.name} has no winning game of {variant}")
    return wins[variant]


@pytest.mark.parametrize("variant", VARIANTS)
async def test_win_then_undo_to_the_deal_and_redo_to_the_end(
    gateway: Gateway, engine: EngineThread, variant: str
) -> None:
    win = _win(variant)
    game = await gateway.create(variant, deal=win.deal, options=win.options)
    dealt = view_without_identity(game.created)
    assert dealt["deal"] == str(win.deal)

    final: dict[str, Any] = {}
    for index, notation in enumerate(win.moves):
        response = await gateway.move(game, notation)
        assert response.status_code == 200, (index, notation, response.text)
        final = response.json()
        assert final["version"] == index + 2
    assert final["status"] == "won"
    assert final["counters"]["foundation_cards"] == final["counters"]["total_cards"]
    assert final["legal_moves"] == []
    assert view_without_identity(await gateway.view(game)) == view_without_identity(final)

    history = await gateway.history(game)
    assert history["moves"] == list(win.moves) and history["position"] == len(win.moves)
    assert history["deal"] == str(win.deal) and history["variant"] == variant
    # the history is enough to replay the game from its deal
    async with EngineClient(engine.target) as client:
        replay = await client.new_game(
            variant, deal=history["deal"], options=history["options"], moves=history["moves"]
        )
    assert replay.view.status == 2  # WON

    undone: dict[str, Any] = {}
    for _ in win.moves:
        response = await gateway.undo(game)
        assert response.status_code == 200, response.text
        undone = response.json()
    assert view_without_identity(undone) == dealt
    assert_problem(await gateway.undo(game), 409, "nothing-to-undo")
    history = await gateway.history(game)
    assert history["moves"] == list(win.moves) and history["position"] == 0

    redone: dict[str, Any] = {}
    for notation in win.moves:
        response = await gateway.redo(game)
        assert response.status_code == 200, response.text
        redone = response.json()
        assert redone["move"]["notation"] == notation
    assert view_without_identity(redone) == view_without_identity(final)
    assert_problem(await gateway.redo(game), 409, "nothing-to-redo")
    assert redone["version"] == 1 + 3 * len(win.moves)


async def test_a_new_move_after_undo_drops_the_redo_list(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=41)
    first, second = game.created["legal_moves"][:2]
    assert (await gateway.move(game, first)).status_code == 200
    assert (await gateway.undo(game)).status_code == 200
    assert (await gateway.move(game, second)).status_code == 200
    history = await gateway.history(game)
    assert (history["moves"], history["position"]) == ([second], 1)
    assert_problem(await gateway.redo(game), 409, "nothing-to-redo")


async def test_a_random_deal_stays_hidden_while_playing(gateway: Gateway) -> None:
    game = await gateway.create("bisley")
    while game.created["status"] != "playing":  # a random deal stuck from the start is over
        game = await gateway.create("bisley")
    assert game.created["deal"] is None
    assert (await gateway.view(game))["deal"] is None
    assert (await gateway.history(game))["deal"] is None
    chosen = await gateway.create("bisley", deal=5)
    assert (await gateway.history(chosen))["deal"] == "5"


async def test_undo_of_a_history_longer_than_one_engine_batch(gateway: Gateway) -> None:
    service = gateway.app.state.services.games
    game = await gateway.create("bisley", deal=42)
    views = [game.created]
    for turn in range(7):
        response = await gateway.move(game, views[-1]["legal_moves"][turn % 2])
        assert response.status_code == 200, response.text
        views.append(response.json())
    service.replay_batch = 2  # the replay of six moves takes three engine calls
    try:
        undone = await gateway.undo(game)
    finally:
        service.replay_batch = ENGINE_BATCH_LIMIT
    assert undone.status_code == 200, undone.text
    assert view_without_identity(undone.json()) == view_without_identity(views[-2])
