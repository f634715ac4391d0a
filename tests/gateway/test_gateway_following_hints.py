"""Following hints over REST, as a player pressing Hint and playing its move again and
again: every game whose first hint is `winning` is won, with one search, and no game
comes back to a position already played; a game given up has no hint; a search process
that dies under a hint answers 503 with Retry-After, never 500. Against the real engine
and Redis.

The engine of these tests gives a hint 5 s (ENGINE_HINT_MILLISECONDS) where the
service gives it 0.8 s: each hint then searches the positions of its budget, the same
search however loaded the machine is (its search processes run at the lowest priority,
and starve while other work takes both cores)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import patience
import pytest
from patience.solver.hints import LINE_STEPS
from patience_gateway.settings import Settings

from tests.gateway.documented import models
from tests.gateway.engines import EngineThread
from tests.gateway.helpers import GameHandle, Gateway, assert_problem, running_gateway


@pytest.fixture(scope="module")
async def hinting(settings: Settings) -> AsyncIterator[Gateway]:
    """A gateway whose engine gives each hint time for its whole budget of positions."""
    engine = EngineThread(hint_milliseconds=5_000).start()
    try:
        async with running_gateway(replace(settings, engine_addr=engine.target)) as gateway:
            yield gateway
    finally:
        engine.stop()


async def hint_of(gateway: Gateway, game: GameHandle) -> dict[str, Any]:
    response = await gateway.http.get(f"/v1/games/{game.id}/hint", headers=game.auth())
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    models.Hint.model_validate(body)
    return body


def table_of(view: dict[str, Any]) -> str:
    """The position as the player sees it: every pile."""
    return json.dumps(view["piles"], sort_keys=True)


async def follow(
    gateway: Gateway, game: GameHandle, view: dict[str, Any], limit: int = 5000
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Plays the hint's move until the hint names none: the last view and the hints.
    Fails on a position that comes back."""
    seen = {table_of(view)}
    hints: list[dict[str, Any]] = []
    for _ in range(limit):
        given = await hint_of(gateway, game)
        hints.append(given)
        if given["move"] is None:
            return view, hints
        moved = await gateway.move(game, given["move"]["notation"])
        assert moved.status_code == 200, moved.text
        view = moved.json()
        table = table_of(view)
        assert table not in seen, f"a position came back after {len(hints)} hints"
        seen.add(table)
    raise AssertionError(f"no end after {limit} hints")


# Open games whose first hint is proven to win well within the hint's time; Bisley's
# deal 1 went round in circles (t2-t4, t4-t2, ...) when each hint was searched afresh.
PROVEN = [("bisley", 1), ("cody", 3), ("little-billee", 1), ("usk", 8), ("the-fifteen", 8)]


@pytest.mark.parametrize(("variant", "deal"), PROVEN)
async def test_following_hints_wins_an_open_game(hinting: Gateway, variant: str, deal: int) -> None:
    gateway = hinting
    game = await gateway.create(variant, deal=deal)
    view, hints = await follow(gateway, game, game.created)
    assert hints[0]["kind"] == "winning"
    assert (view["status"], hints[-1]["kind"]) == ("won", "none")
    assert {h["kind"] for h in hints[:-1]} == {"winning"}
    # one search (one for each part of a line longer than LINE_STEPS moves: The
    # Fifteen); every other hint is the next move of its line
    assert hints[0]["positions"] > 0
    assert sum(h["positions"] > 0 for h in hints) <= 1 + (len(hints) - 1) // LINE_STEPS


async def test_following_hints_with_autoplay_on_wins(hinting: Gateway) -> None:
    gateway = hinting
    game = await gateway.create("cody", deal=3)
    switched = await gateway.autoplay_on(game)
    assert switched.status_code == 200, switched.text
    game.follow(switched)
    view, hints = await follow(gateway, game, game.created)
    assert view["status"] == "won"
    assert sum(h["positions"] > 0 for h in hints) == 1


# Games that hide cards: La Belle Lucie's shuffles, Napoleon at St Helena's stock (dealt
# down to twelve cards first, so that the test takes seconds).
@pytest.mark.parametrize(
    ("variant", "deal", "stock"),
    [("la-belle-lucie", 1, 0), ("house-on-the-hill", 1, 0), ("napoleon-at-st-helena", 7, 12)],
)
async def test_following_hints_where_cards_are_hidden_never_comes_back(
    gateway: Gateway, variant: str, deal: int, stock: int
) -> None:
    game = await gateway.create(variant, deal=deal)
    view = game.created
    for _ in range(max(patience.get_variant(variant).new_game(deal).stock_size - stock, 0)):
        moved = await gateway.move(game, "deal")
        assert moved.status_code == 200, moved.text
        view = moved.json()
    view, hints = await follow(gateway, game, view)
    assert hints[-1]["kind"] in ("none", "lost")
    assert view["status"] in ("won", "stuck") or hints[-1]["kind"] == "lost"


async def test_a_hint_after_an_undo_onto_the_line_continues_it(hinting: Gateway) -> None:
    gateway = hinting
    game = await gateway.create("bisley", deal=1)
    first = await hint_of(gateway, game)
    await gateway.move(game, first["move"]["notation"])
    second = await hint_of(gateway, game)
    assert second["positions"] == 0
    assert (await gateway.undo(game)).status_code == 200
    again = await hint_of(gateway, game)
    assert (again["move"], again["positions"]) == (first["move"], 0)


async def test_a_game_given_up_has_no_hint(records_gateway: Gateway) -> None:
    game = await records_gateway.create("bisley", deal=14)
    response = await records_gateway.http.post(
        f"/v1/games/{game.id}/resign", headers={**game.auth(), "If-Match": game.etag}
    )
    assert response.status_code == 200, response.text
    assert game.created["legal_moves"]  # the table would still allow moves
    given = await hint_of(records_gateway, game)
    assert (given["kind"], given["move"], given["verdict"], given["positions"]) == (
        "none",
        None,
        "unknown",
        0,
    )


# --------------------------------------------------------------------------- faults


async def test_a_hint_whose_search_process_dies_is_503_with_retry_after(
    settings: Settings,
) -> None:
    """kill -9 of the search process under a hint, and of the one that took the search
    again: the engine answers SEARCH_FAILED, the gateway 503 solver-busy with
    Retry-After. The next hint is answered."""
    engine = EngineThread().start()
    try:
        async with running_gateway(replace(settings, engine_addr=engine.target)) as gateway:
            pool = engine.searches
            game = await gateway.create("napoleon-at-st-helena", deal=5)
            request = asyncio.create_task(
                gateway.http.get(f"/v1/games/{game.id}/hint", headers=game.auth())
            )
            victim = 0
            for _ in range(2):
                victim = await _running_search(pool, victim)
                os.kill(victim, signal.SIGKILL)
            response = await request
            problem = assert_problem(response, 503, "solver-busy")
            assert response.headers["retry-after"].isdigit()
            assert "internal" not in problem["detail"]
            # a search process is there again, and the hint answered
            assert (await hint_of(gateway, game))["move"] is not None
    finally:
        engine.stop()


async def _running_search(pool: Any, not_this: int) -> int:
    """The process id of the search process running a search, once one other than
    `not_this` runs."""
    for _ in range(1000):
        ids = pool.process_ids
        if pool.running and ids and ids[0] != not_this:
            return int(ids[0])
        await asyncio.sleep(0.01)
    raise AssertionError("no search ran")
