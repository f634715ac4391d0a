"""Racing writers and retried requests: versions, compare-and-set, idempotency keys."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import redis.asyncio as aioredis
from patience_gateway.storage.keys import game_keys

from tests.gateway.helpers import GameHandle, Gateway, assert_problem
from tests.gateway.races import before_the_store, gated

pytestmark = pytest.mark.both_stores  # a single Redis server and a Redis Cluster


async def _post_move(
    gateway: Gateway, game: GameHandle, notation: str, **headers: str
) -> httpx.Response:
    return await gateway.http.post(
        f"/v1/games/{game.id}/moves", json={"move": notation}, headers={**game.auth(), **headers}
    )


def _two_moves(game: GameHandle) -> tuple[str, str]:
    legal = game.created["legal_moves"]
    assert len(legal) >= 2, legal
    return legal[0], legal[1]


async def test_two_writers_with_one_version_exactly_one_wins(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=21)
    first, second = _two_moves(game)
    with gated(gateway):
        a, b = await asyncio.gather(
            _post_move(gateway, game, first, **{"If-Match": '"1"'}),
            _post_move(gateway, game, second, **{"If-Match": '"1"'}),
        )
    winner, loser = (a, b) if a.status_code == 200 else (b, a)
    assert winner.status_code == 200, (a.text, b.text)
    assert_problem(loser, 412, "stale-version")
    assert loser.headers["etag"] == '"2"' == winner.headers["etag"]
    history = await gateway.history(game)
    assert history["version"] == 2
    assert history["moves"] == [winner.json()["move"]["notation"]]


async def test_lost_race_without_if_match_is_409(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=22)
    first, second = _two_moves(game)
    with gated(gateway):
        a, b = await asyncio.gather(
            _post_move(gateway, game, first), _post_move(gateway, game, second)
        )
    statuses = sorted([a.status_code, b.status_code])
    assert statuses == [200, 409], (a.text, b.text)
    assert_problem(a if a.status_code == 409 else b, 409, "concurrent-update")
    assert len((await gateway.history(game))["moves"]) == 1


async def test_unforced_race_still_has_one_winner(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=23)
    first, second = _two_moves(game)
    responses = await asyncio.gather(
        *(_post_move(gateway, game, move, **{"If-Match": '"1"'}) for move in (first, second) * 3)
    )
    assert sorted(r.status_code for r in responses) == [200, 412, 412, 412, 412, 412]
    assert len((await gateway.history(game))["moves"]) == 1


async def test_retry_with_the_same_key_gets_the_first_answer(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=24)
    first, _ = _two_moves(game)
    one = await _post_move(gateway, game, first, **{"Idempotency-Key": "k-1"})
    two = await _post_move(gateway, game, first, **{"Idempotency-Key": "k-1"})
    assert one.status_code == two.status_code == 200
    assert one.content == two.content
    assert one.headers["etag"] == two.headers["etag"] == '"2"'
    assert two.headers["idempotent-replayed"] == "true"
    assert (await gateway.history(game))["moves"] == [first]
    # still the same answer after the game has moved on
    game.etag = '"2"'
    later = two.json()["legal_moves"][0]
    assert (await gateway.move(game, later)).status_code == 200
    three = await _post_move(gateway, game, first, **{"Idempotency-Key": "k-1"})
    assert (three.status_code, three.content, three.headers["etag"]) == (200, one.content, '"2"')
    assert len((await gateway.history(game))["moves"]) == 2


async def test_same_key_with_another_request_is_422(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=25)
    first, second = _two_moves(game)
    assert (await _post_move(gateway, game, first, **{"Idempotency-Key": "k"})).is_success
    other_move = await _post_move(gateway, game, second, **{"Idempotency-Key": "k"})
    assert_problem(other_move, 422, "idempotency-key-reused")
    undo = await gateway.http.post(
        f"/v1/games/{game.id}/undo", headers={**game.auth(), "Idempotency-Key": "k"}
    )
    assert_problem(undo, 422, "idempotency-key-reused")
    assert (await gateway.history(game))["moves"] == [first]


async def test_racing_retries_with_one_key_apply_once(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=26)
    first, _ = _two_moves(game)
    with gated(gateway):
        a, b = await asyncio.gather(
            _post_move(gateway, game, first, **{"Idempotency-Key": "race"}),
            _post_move(gateway, game, first, **{"Idempotency-Key": "race"}),
        )
    assert a.status_code == b.status_code == 200, (a.text, b.text)
    assert a.content == b.content and a.headers["etag"] == b.headers["etag"]
    assert (await gateway.history(game))["moves"] == [first]


async def test_keys_belong_to_one_game(gateway: Gateway) -> None:
    one = await gateway.create("bisley", deal=27)
    two = await gateway.create("bisley", deal=27)
    first, _ = _two_moves(one)
    a = await _post_move(gateway, one, first, **{"Idempotency-Key": "shared"})
    b = await _post_move(gateway, two, first, **{"Idempotency-Key": "shared"})
    assert a.status_code == b.status_code == 200
    assert a.json()["id"] != b.json()["id"]
    assert (await gateway.history(two))["moves"] == [first]


async def test_undo_and_redo_retries_apply_once(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=28)
    first, _ = _two_moves(game)
    assert (await gateway.move(game, first)).is_success
    view = await gateway.view(game)
    second = view["legal_moves"][0]
    assert (await gateway.move(game, second)).is_success

    async def post(route: str, key: str) -> httpx.Response:
        return await gateway.http.post(
            f"/v1/games/{game.id}/{route}", headers={**game.auth(), "Idempotency-Key": key}
        )

    undo1, undo2 = await post("undo", "u"), await post("undo", "u")
    assert undo1.status_code == undo2.status_code == 200 and undo1.content == undo2.content
    history = await gateway.history(game)
    assert (history["moves"], history["position"]) == ([first, second], 1)
    redo1, redo2 = await post("redo", "r"), await post("redo", "r")
    assert redo1.status_code == redo2.status_code == 200 and redo1.content == redo2.content
    history = await gateway.history(game)
    assert (history["moves"], history["position"]) == ([first, second], 2)


async def test_a_game_keeps_the_answers_of_its_latest_keys(
    gateway: Gateway, redis: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = gateway.app.state.services.games.store
    monkeypatch.setattr(store, "_max_answers", b"3")
    game = await gateway.create("bisley", deal=29)
    view = game.created
    notation = ""
    response: httpx.Response | None = None
    for turn in range(5):
        notation = view["legal_moves"][0]
        key = {"Idempotency-Key": f"k{turn}"}
        response = await _post_move(gateway, game, notation, **key)
        assert response.status_code == 200, response.text
        view = response.json()
    assert response is not None
    keys = game_keys(game.id)
    records, order = keys.idem, keys.idem_order
    assert sorted(await redis.hkeys(records)) == [b"k2", b"k3", b"k4"]
    assert await redis.lrange(order, 0, -1) == [b"k2", b"k3", b"k4"]
    retried = await _post_move(gateway, game, notation, **{"Idempotency-Key": "k4"})
    assert retried.content == response.content  # still answered from its record


async def _delete_while_another_moves(
    gateway: Gateway, deal: int, **headers: str
) -> tuple[GameHandle, str, httpx.Response]:
    """A delete during which, after its read and before its write, another client of
    the game makes a move: the game, that move, the delete's answer."""
    game = await gateway.create("bisley", deal=deal)
    first, _ = _two_moves(game)

    async def move_meanwhile() -> None:
        other = GameHandle(game.id, game.token, game.etag, game.created)
        moved = await gateway.move(other, first)
        assert moved.status_code == 200, moved.text

    with before_the_store(gateway, "delete", move_meanwhile):
        response = await gateway.http.delete(
            f"/v1/games/{game.id}", headers={**game.auth(), **headers}
        )
    return game, first, response


async def test_a_delete_that_loses_a_race_with_a_move_is_412_and_keeps_the_game(
    gateway: Gateway,
) -> None:
    game, first, response = await _delete_while_another_moves(gateway, 30, **{"If-Match": '"1"'})
    assert_problem(response, 412, "stale-version")
    assert response.headers["etag"] == '"2"'
    history = await gateway.history(game)
    assert (history["moves"], history["version"]) == ([first], 2)


async def test_a_delete_without_if_match_takes_the_game_at_any_version(
    gateway: Gateway,
) -> None:
    game, _, response = await _delete_while_another_moves(gateway, 31)
    assert response.status_code == 204, response.text
    gone = await gateway.http.get(f"/v1/games/{game.id}", headers=game.auth())
    assert_problem(gone, 404, "unknown-game")


@pytest.mark.parametrize("if_match", [True, False])
async def test_a_settings_change_that_loses_a_race_with_a_move_changes_nothing(
    gateway: Gateway, if_match: bool
) -> None:
    """A move lands between the settings change's read and its write: the change is
    refused (412 with the version now, or 409 without If-Match) and the setting stays."""
    game = await gateway.create("bisley", deal=32)
    first, _ = _two_moves(game)

    async def move_meanwhile() -> None:
        other = GameHandle(game.id, game.token, game.etag, game.created)
        moved = await gateway.move(other, first)
        assert moved.status_code == 200, moved.text

    headers = {"If-Match": '"1"'} if if_match else {}
    with before_the_store(gateway, "commit", move_meanwhile):
        response = await gateway.autoplay_on(game, **headers)
    if if_match:
        assert_problem(response, 412, "stale-version")
        assert response.headers["etag"] == '"2"'
    else:
        assert_problem(response, 409, "concurrent-update")
    view = await gateway.view(game)
    assert (view["version"], view["autoplay"]) == (2, False)
