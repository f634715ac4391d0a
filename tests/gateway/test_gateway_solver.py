"""The solver's routes: the hint, autoplay (on its own and after each move), the game's
settings, and the view's outlook, against the real engine and Redis.

Bisley deals with known answers from the solver (docs/solver.md): deal 0 is won (seven
safe moves at the deal), deal 9 is proven lost at the deal (its safe moves do not save
it), deal 5 has no safe move at the deal.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import grpc
import httpx
import pytest
import redis.asyncio as aioredis
from patience_contract.client import EngineError
from patience_gateway.games.engine_errors import search_problem
from patience_gateway.storage.events import EventHub, GameEvent
from patience_gateway.storage.keys import events_key
from redis.asyncio.cluster import RedisCluster

from tests.gateway.documented import models
from tests.gateway.helpers import GameHandle, Gateway, assert_problem, view_without_identity

pytestmark = pytest.mark.both_stores  # a single Redis server and a Redis Cluster

WON_DEAL, LOST_DEAL, NO_SAFE_MOVE_DEAL = 0, 9, 5


async def _hint(gateway: Gateway, game: GameHandle) -> httpx.Response:
    return await gateway.http.get(f"/v1/games/{game.id}/hint", headers=game.auth())


async def _autoplay(
    gateway: Gateway, game: GameHandle, *, if_match: str | None = None, key: str | None = None
) -> httpx.Response:
    headers = game.auth()
    if if_match is not None:
        headers["If-Match"] = if_match
    if key is not None:
        headers["Idempotency-Key"] = key
    response = await gateway.http.post(f"/v1/games/{game.id}/autoplay", headers=headers)
    game.follow(response)
    return response


async def _patch(
    gateway: Gateway,
    game: GameHandle,
    body: object,
    *,
    if_match: str | None = None,
    content_type: str = "application/merge-patch+json",
) -> httpx.Response:
    headers = {**game.auth(), "Content-Type": content_type}
    if if_match is not None:
        headers["If-Match"] = if_match
    content = httpx.Request("PATCH", "/", json=body).content
    response = await gateway.http.patch(f"/v1/games/{game.id}", content=content, headers=headers)
    game.follow(response)
    return response


def _ok(response: httpx.Response, model: type[Any]) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    model.model_validate(body)
    assert response.headers["etag"] == f'"{body["version"]}"'
    return body


# --------------------------------------------------------------------------- hint


async def test_a_hint_on_a_won_deal_is_a_winning_legal_move(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=WON_DEAL)
    hint = _ok(await _hint(gateway, game), models.Hint)
    assert (hint["id"], hint["version"]) == (game.id, 1)
    assert (hint["kind"], hint["verdict"]) == ("winning", "won")
    assert hint["move"]["notation"] in game.created["legal_moves"]
    assert hint["positions"] >= 1 and hint["milliseconds"] >= 0
    # the move's fields are the ones the move route takes
    fields = {k: hint["move"][k] for k in ("kind", "source", "target", "count", "columns")}
    response = await gateway.http.post(
        f"/v1/games/{game.id}/moves", json=fields, headers=game.auth()
    )
    assert response.status_code == 200, response.text
    assert response.json()["move"] == hint["move"]
    # a hint changes nothing
    assert (await gateway.view(game))["version"] == 2


async def test_a_lost_hint_is_remembered_until_the_game_changes(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=LOST_DEAL)
    assert game.created["outlook"] == "open"  # the engine alone does not know
    hint = _ok(await _hint(gateway, game), models.Hint)
    assert (hint["kind"], hint["verdict"], hint["move"]) == ("lost", "lost", None)
    view = await gateway.view(game)
    assert (view["version"], view["outlook"]) == (1, "lost")
    # a move makes a new version: the proof was for the old one
    moved = await gateway.move(game, game.created["legal_moves"][0])
    assert moved.json()["outlook"] == "open"
    assert (await gateway.view(game))["outlook"] == "open"
    assert (await gateway.undo(game)).json()["outlook"] == "open"
    assert (await gateway.view(game))["outlook"] == "open"
    # proven again at this version, and kept by a settings change (same position)
    assert _ok(await _hint(gateway, game), models.Hint)["kind"] == "lost"
    patched = _ok(await _patch(gateway, game, {"autoplay": True}), models.Game)
    assert patched["outlook"] == "lost"
    assert (await gateway.view(game))["outlook"] == "lost"
    # autoplay that plays its safe moves makes a new version, not proven; once that is
    # proven too, autoplay with nothing left to play answers the same version, lost
    played = _ok(await _autoplay(gateway, game), models.AutoplayResult)
    after = patched["version"] + 1
    assert (played["version"], played["outlook"], played["autoplay"]) == (after, "open", True)
    assert played["moves"]
    assert _ok(await _hint(gateway, game), models.Hint)["kind"] == "lost"
    again = _ok(await _autoplay(gateway, game), models.AutoplayResult)
    assert (again["version"], again["outlook"], again["moves"]) == (after, "lost", [])
    assert again["autoplay"] is True


async def test_a_new_game_is_open(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=WON_DEAL)
    assert game.created["outlook"] == "open"
    assert game.created["autoplay"] is False


# --------------------------------------------------------------------------- autoplay


async def test_autoplay_is_one_change_undone_and_redone_whole(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=WON_DEAL)
    played = _ok(await _autoplay(gateway, game, if_match=game.etag), models.AutoplayResult)
    moves = [move["notation"] for move in played["moves"]]
    assert len(moves) >= 2 and played["version"] == 2
    assert [e["target"] for e in played["events"]] == [m["target"] for m in played["moves"]]
    assert all(move.split("-")[1].startswith("f") for move in moves)
    history = await gateway.history(game)
    assert (history["moves"], history["position"]) == (moves, len(moves))
    view = await gateway.view(game)
    assert view_without_identity(view) == view_without_identity(played)

    undone = await gateway.undo(game)
    assert view_without_identity(undone.json()) == view_without_identity(game.created)
    assert (await gateway.history(game))["position"] == 0
    redone = await gateway.redo(game)
    assert redone.status_code == 200, redone.text
    assert view_without_identity(redone.json()) == view_without_identity(played)
    assert [redone.json()["move"]["notation"]] + [
        m["notation"] for m in redone.json()["autoplayed"]
    ] == moves
    assert redone.json()["events"] == played["events"]


async def test_autoplay_with_nothing_to_play_answers_the_game_unchanged(
    gateway: Gateway,
) -> None:
    game = await gateway.create("bisley", deal=NO_SAFE_MOVE_DEAL)
    response = await _autoplay(gateway, game, if_match='"1"', key="nothing-to-play")
    body = _ok(response, models.AutoplayResult)
    assert (body["version"], body["moves"], body["events"]) == (1, [], [])
    assert view_without_identity(body) == view_without_identity(game.created)
    history = await gateway.history(game)
    assert (history["version"], history["moves"]) == (1, [])


async def test_autoplay_honours_if_match_and_idempotency_key(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=WON_DEAL)
    stale = await _autoplay(gateway, game, if_match='"7"')
    assert_problem(stale, 412, "stale-version")
    assert stale.headers["etag"] == '"1"'
    first = await _autoplay(gateway, game, key="autoplay-once")
    again = await _autoplay(gateway, game, key="autoplay-once")
    assert first.status_code == again.status_code == 200
    assert again.headers["idempotent-replayed"] == "true"
    assert (again.content, again.headers["etag"]) == (first.content, first.headers["etag"])
    assert (await gateway.history(game))["version"] == 2
    # the same key for another request is refused
    reused = await gateway.http.post(
        f"/v1/games/{game.id}/undo", headers={**game.auth(), "Idempotency-Key": "autoplay-once"}
    )
    assert_problem(reused, 422, "idempotency-key-reused")


# --------------------------------------------------------------------------- the setting


async def test_a_game_created_with_autoplay_plays_the_safe_moves_after_each_move(
    gateway: Gateway,
) -> None:
    response = await gateway.http.post(
        "/v1/games", json={"variant": "bisley", "deal": WON_DEAL, "autoplay": True}
    )
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["autoplay"] is True
    game = GameHandle(created["id"], created["token"], response.headers["etag"], created)
    move = next(m for m in created["legal_moves"] if "-f" not in m)
    moved = await gateway.move(game, move)
    body = _ok(moved, models.MoveResult)
    autoplayed = [m["notation"] for m in body["autoplayed"]]
    assert body["move"]["notation"] == move and autoplayed
    assert len(body["events"]) == 1 + len(autoplayed)  # the move's card first
    assert body["events"][0]["source"] == body["move"]["source"]
    assert (await gateway.history(game))["moves"] == [move, *autoplayed]
    assert body["autoplay"] is True
    # one change: one undo takes the move and its safe moves back, a redo plays it again
    undone = await gateway.undo(game)
    assert view_without_identity(undone.json()) == view_without_identity(created)
    redone = await gateway.redo(game)
    assert redone.status_code == 200, redone.text
    assert view_without_identity(redone.json()) == view_without_identity(body)
    assert redone.json()["autoplay"] is True


async def test_patch_switches_autoplay_on_and_off(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=WON_DEAL)
    on = _ok(await _patch(gateway, game, {"autoplay": True}, if_match='"1"'), models.Game)
    assert (on["autoplay"], on["version"]) == (True, 2)
    assert view_without_identity({**on, "autoplay": False}) == view_without_identity(game.created)
    assert (await gateway.view(game))["autoplay"] is True
    assert (await gateway.history(game))["moves"] == []  # no change to the position
    # a field left out stays; null resets it (JSON merge patch); plain JSON is taken too
    same = _ok(await _patch(gateway, game, {}), models.Game)
    assert (same["autoplay"], same["version"]) == (True, 3)
    off = _ok(
        await _patch(gateway, game, {"autoplay": None}, content_type="application/json"),
        models.Game,
    )
    assert off["autoplay"] is False
    move = next(m for m in game.created["legal_moves"] if "-f" not in m)
    assert (await gateway.move(game, move)).json()["autoplayed"] == []


async def test_patch_rejections(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=WON_DEAL)
    assert_problem(
        await _patch(gateway, game, {"autoplay": True}, if_match='"5"'), 412, "stale-version"
    )
    for body in ({"autoplay": "yes"}, {"autoplay": 1}, {"colour": "red"}, [True]):
        assert_problem(await _patch(gateway, game, body), 422, "malformed-body")
    assert (await gateway.view(game))["version"] == 1


async def test_autoplay_and_settings_are_published_to_the_games_streams(
    gateway: Gateway, redis: aioredis.Redis | RedisCluster
) -> None:
    game = await gateway.create("bisley", deal=WON_DEAL)
    hub: EventHub = gateway.app.state.services.events
    async with hub.listen(game.id) as listener:  # a stream is open: its changes are kept
        played = _ok(await _autoplay(gateway, game), models.AutoplayResult)
        await _autoplay(gateway, game)  # nothing to play: nothing published
        patched = _ok(await _patch(gateway, game, {"autoplay": True}), models.Game)
        async with asyncio.timeout(10):
            heard = [await listener.get(), await listener.get()]
    entries = [GameEvent.decode(e) for e in await redis.lrange(events_key(game.id), 0, -1)]
    assert [(e.kind, e.version) for e in entries] == [("autoplay", 2), ("settings", 3)]
    assert heard == entries
    assert json.loads(entries[0].body) == played
    assert json.loads(entries[1].body) == patched


def test_a_full_search_queue_is_solver_busy() -> None:
    busy = EngineError(grpc.StatusCode.RESOURCE_EXHAUSTED, "SOLVER_BUSY", "queue full")
    problem = search_problem(busy, retry_after=3)
    assert (problem.kind.code, problem.status) == ("solver-busy", 503)
    assert problem.headers == {"Retry-After": "3"}
    refused = EngineError(grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_STATE", "bad")
    assert search_problem(refused, retry_after=3).kind.code == "internal"
