"""Reading a game: the view and its ETag, conditional reads, the structured legal
moves, deletion."""

from __future__ import annotations

import redis.asyncio as aioredis
from patience_gateway.storage.keys import game_keys
from redis.asyncio.cluster import RedisCluster

from tests.gateway.documented import models
from tests.gateway.helpers import Gateway, assert_problem


async def test_the_view_carries_its_version(gateway: Gateway) -> None:
    game = await gateway.create("la-belle-lucie", deal=7)
    assert game.etag == '"1"' and game.created["version"] == 1
    assert game.created["deal"] == "7" and game.created["status"] == "playing"
    response = await gateway.http.get(f"/v1/games/{game.id}", headers=game.auth())
    assert response.headers["etag"] == '"1"'
    body = response.json()
    assert body == {k: v for k, v in game.created.items() if k != "token"}
    assert "token" not in body  # shown at creation only


async def test_if_none_match_gives_304_while_the_version_holds(gateway: Gateway) -> None:
    game = await gateway.create("la-belle-lucie", deal=8)
    url = f"/v1/games/{game.id}"
    fresh = await gateway.http.get(url, headers={**game.auth(), "If-None-Match": '"1"'})
    assert (fresh.status_code, fresh.content, fresh.headers["etag"]) == (304, b"", '"1"')
    assert (await gateway.move(game, game.created["legal_moves"][0])).status_code == 200
    stale = await gateway.http.get(url, headers={**game.auth(), "If-None-Match": '"1"'})
    assert stale.status_code == 200 and stale.headers["etag"] == '"2"'
    models.Game.model_validate(stale.json())


async def test_legal_moves_are_listed_structured(gateway: Gateway) -> None:
    game = await gateway.create("the-fifteen", deal=3)
    response = await gateway.http.get(f"/v1/games/{game.id}/legal-moves", headers=game.auth())
    listed = models.LegalMoves.model_validate(response.json())
    assert [m.notation for m in listed.moves] == game.created["legal_moves"]
    assert (listed.id, listed.version) == (game.id, 1)
    for move in listed.moves:
        if move.kind == "transfer":
            assert move.notation.startswith(f"{move.source}-{move.target}")
        elif move.kind == "withdraw":
            assert move.notation == "withdraw " + " ".join(move.columns)


async def test_delete_without_if_match(gateway: Gateway) -> None:
    game = await gateway.create("usk", deal=3)
    assert (await gateway.move(game, game.created["legal_moves"][0])).status_code == 200
    deleted = await gateway.http.delete(f"/v1/games/{game.id}", headers=game.auth())
    assert deleted.status_code == 204
    for path in ("", "/history", "/legal-moves"):
        response = await gateway.http.get(f"/v1/games/{game.id}{path}", headers=game.auth())
        assert_problem(response, 404, "unknown-game")


async def test_a_peek_leaves_the_games_time_to_live_and_a_read_renews_it(
    gateway: Gateway, redis: aioredis.Redis | RedisCluster
) -> None:
    """A game lives for its time to live after its last use: a read renews it, a peek (a
    check that must not keep a game alive: a player's list of games, the abandoned
    games' sweep) does not."""
    game = await gateway.create("usk", deal=4)
    store = gateway.app.state.services.games.store
    meta = game_keys(game.id).meta
    full_ms = await redis.pttl(meta)
    assert full_ms > 60_000
    await redis.pexpire(meta, 60_000)
    peeked = await store.peek(game.id)
    assert peeked is not None and peeked.meta.version == 1
    assert 0 < await redis.pttl(meta) <= 60_000
    await gateway.view(game)
    assert await redis.pttl(meta) > 60_000
