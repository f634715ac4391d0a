"""`POST /v1/games` with an Idempotency-Key: a retried create gets the first game
again, never a second one; the same key with another request is refused; the stored
answer does not show the owner token to whoever reads Redis."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from patience_gateway.games.create_once import CREATED_ANSWER_SECONDS
from patience_gateway.storage.keys import created_answer_key, game_keys

from tests.gateway.helpers import Gateway, assert_problem
from tests.gateway.races import gated

pytestmark = pytest.mark.both_stores


async def create(gateway: Gateway, body: dict[str, Any], key: str | None) -> httpx.Response:
    headers = {} if key is None else {"Idempotency-Key": key}
    return await gateway.http.post("/v1/games", json=body, headers=headers)


async def stored_games(redis: aioredis.Redis) -> set[bytes]:
    return {key async for key in redis.scan_iter(match="game:*:meta", count=1000)}


def fresh_key(name: str) -> str:
    """A key no other test used (the store outlives one test), random as keys should be."""
    return f"{name}-{uuid.uuid4()}"


async def first_create(
    gateway: Gateway, name: str, body: dict[str, Any]
) -> tuple[str, httpx.Response, dict[str, Any]]:
    """A create with a fresh key: the key, the answer and its body."""
    key = fresh_key(name)
    first = await create(gateway, body, key)
    assert first.status_code == 201, first.text
    assert "idempotent-replayed" not in first.headers
    return key, first, first.json()


async def test_a_retried_create_gets_the_same_game(gateway: Gateway, redis: aioredis.Redis) -> None:
    before = await stored_games(redis)
    key, first, game = await first_create(gateway, "create", {"variant": "bisley", "deal": 7})
    again = await create(gateway, {"variant": "bisley", "deal": "7"}, key)
    assert again.status_code == 201, again.text
    assert again.content == first.content  # same id, same token, same view
    assert again.headers["idempotent-replayed"] == "true"
    for header in ("etag", "location", "cache-control"):
        assert again.headers[header] == first.headers[header]
    assert await stored_games(redis) - before == {game_keys(game["id"]).meta}

    # still the first answer once the game has moved on
    auth = {"Authorization": f"Bearer {game['token']}"}
    move = await gateway.http.post(
        f"/v1/games/{game['id']}/moves", json={"move": game["legal_moves"][0]}, headers=auth
    )
    assert move.status_code == 200, move.text
    later = await create(gateway, {"variant": "bisley", "deal": 7}, key)
    assert (later.status_code, later.content) == (201, first.content)


async def test_a_random_deal_is_dealt_once(gateway: Gateway, redis: aioredis.Redis) -> None:
    key = fresh_key("random")
    before = await stored_games(redis)
    answers = [await create(gateway, {"variant": "napoleon-at-st-helena"}, key) for _ in "abc"]
    assert [a.status_code for a in answers] == [201] * 3
    assert answers[0].json()["deal"] is None
    assert answers[1].content == answers[0].content == answers[2].content
    assert len(await stored_games(redis) - before) == 1


async def test_the_same_key_with_another_request_is_refused(
    gateway: Gateway, redis: aioredis.Redis
) -> None:
    key, _, _ = await first_create(gateway, "reused", {"variant": "bisley", "deal": 7})
    before = await stored_games(redis)
    for other in (
        {"variant": "bisley", "deal": 8},
        {"variant": "bisley"},
        {"variant": "cody", "deal": 7},
        {"variant": "no-such-variant", "deal": 7},  # the kept answer is checked first
    ):
        assert_problem(await create(gateway, other, key), 422, "idempotency-key-reused")
    assert await stored_games(redis) == before


async def test_two_creates_racing_with_one_key_make_one_game(
    gateway: Gateway, redis: aioredis.Redis
) -> None:
    key = fresh_key("race")
    before = await stored_games(redis)
    body = {"variant": "la-belle-lucie"}  # a random deal: each create draws its own
    with gated(gateway, "new_game"):
        a, b = await asyncio.gather(create(gateway, body, key), create(gateway, body, key))
    assert a.status_code == b.status_code == 201, (a.text, b.text)
    assert a.content == b.content
    replayed = sorted(r.headers.get("idempotent-replayed", "") for r in (a, b))
    assert replayed == ["", "true"]
    assert await stored_games(redis) - before == {game_keys(a.json()["id"]).meta}
    game = a.json()
    view = await gateway.http.get(
        f"/v1/games/{game['id']}", headers={"Authorization": f"Bearer {game['token']}"}
    )
    assert view.status_code == 200 and view.json()["piles"] == game["piles"]


async def test_a_race_with_one_key_and_two_requests_makes_one_game(
    gateway: Gateway, redis: aioredis.Redis
) -> None:
    key = fresh_key("race-two")
    before = await stored_games(redis)
    with gated(gateway, "new_game"):
        a, b = await asyncio.gather(
            create(gateway, {"variant": "bisley", "deal": 1}, key),
            create(gateway, {"variant": "bisley", "deal": 2}, key),
        )
    won, lost = (a, b) if a.status_code == 201 else (b, a)
    assert won.status_code == 201, (a.text, b.text)
    assert_problem(lost, 422, "idempotency-key-reused")
    assert await stored_games(redis) - before == {game_keys(won.json()["id"]).meta}


async def test_the_stored_answer_does_not_show_the_token(
    gateway: Gateway, redis: aioredis.Redis
) -> None:
    key, _, game = await first_create(gateway, "secret", {"variant": "bisley", "deal": 9})
    kept = await redis.get(created_answer_key(game["id"]))
    assert kept is not None
    assert game["token"].encode() not in kept
    assert b"token" not in kept and b"legal_moves" not in kept  # the answer is sealed
    assert key.encode() not in kept
    assert 0 < await redis.pttl(created_answer_key(game["id"])) <= CREATED_ANSWER_SECONDS * 1000


async def test_a_retry_after_a_delete_gets_the_first_answer(
    gateway: Gateway, redis: aioredis.Redis
) -> None:
    key, first, game = await first_create(gateway, "deleted", {"variant": "bisley", "deal": 10})
    auth = {"Authorization": f"Bearer {game['token']}"}
    deleted = await gateway.http.delete(f"/v1/games/{game['id']}", headers=auth)
    assert deleted.status_code == 204
    before = await stored_games(redis)
    again = await create(gateway, {"variant": "bisley", "deal": 10}, key)
    assert (again.status_code, again.content) == (201, first.content)
    assert await stored_games(redis) == before  # not dealt again
    assert_problem(
        await gateway.http.get(f"/v1/games/{game['id']}", headers=auth), 404, "unknown-game"
    )


async def test_a_key_whose_answer_expired_cannot_create_again(
    gateway: Gateway, redis: aioredis.Redis
) -> None:
    key, _, game = await first_create(gateway, "expired", {"variant": "bisley", "deal": 11})
    await redis.delete(created_answer_key(game["id"]))  # as if its time had run out
    again = await create(gateway, {"variant": "bisley", "deal": 11}, key)
    assert_problem(again, 422, "idempotency-key-reused")
    history = await gateway.http.get(
        f"/v1/games/{game['id']}/history", headers={"Authorization": f"Bearer {game['token']}"}
    )
    assert history.status_code == 200  # the game is untouched


async def test_a_refused_create_stores_nothing(gateway: Gateway, redis: aioredis.Redis) -> None:
    key = fresh_key("refused")
    before = await stored_games(redis)
    assert_problem(await create(gateway, {"variant": "nope"}, key), 404, "unknown-variant")
    assert_problem(
        await create(gateway, {"variant": "bisley", "deal": 10**21}, key), 422, "invalid-deal"
    )
    assert await stored_games(redis) == before
    fixed = await create(gateway, {"variant": "bisley", "deal": 12}, key)
    assert fixed.status_code == 201 and "idempotent-replayed" not in fixed.headers


async def test_creates_without_a_key_make_a_game_each(gateway: Gateway) -> None:
    one = await create(gateway, {"variant": "bisley", "deal": 13}, None)
    two = await create(gateway, {"variant": "bisley", "deal": 13}, None)
    assert one.status_code == two.status_code == 201
    assert one.json()["id"] != two.json()["id"]
    assert one.json()["token"] != two.json()["token"]


@pytest.mark.parametrize("key", ["", "x" * 256, "caf\u00e9", "tab\there"])
async def test_a_malformed_key_is_refused(gateway: Gateway, key: str) -> None:
    response = await gateway.http.post(
        "/v1/games",
        content=b'{"variant": "bisley"}',
        headers=[(b"Content-Type", b"application/json"), (b"Idempotency-Key", key.encode())],
    )
    assert_problem(response, 400, "malformed-header")


async def test_a_kept_answer_changed_in_redis_is_an_internal_error(
    gateway: Gateway, redis: aioredis.Redis
) -> None:
    key, _, game = await first_create(gateway, "tampered", {"variant": "bisley", "deal": 14})
    kept_key = created_answer_key(game["id"])
    kept = await redis.get(kept_key)
    assert isinstance(kept, bytes)
    await redis.set(kept_key, kept[:-1] + bytes([kept[-1] ^ 1]), keepttl=True)
    again = await create(gateway, {"variant": "bisley", "deal": 14}, key)
    assert_problem(again, 500, "internal")
