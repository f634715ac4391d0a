"""Undo from checkpoints: the states list keeps a state every K moves and the current
one, undo replays fewer than K moves from the checkpoint before its target, and any
walk of moves, undos and redos shows the same table as playing straight to that
position. Games kept in the earlier layout (one hash, undo from the deal) are
upgraded on first use and play on."""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis.asyncio as aioredis
from patience_engine.servicer import MAX_BATCH_MOVES
from patience_gateway.games.service import ENGINE_BATCH_LIMIT
from patience_gateway.storage import store
from patience_gateway.storage.keys import game_keys, legacy_key, script_keys
from solitaire.v1 import game_pb2

from tests.gateway.helpers import GameHandle, Gateway, view_without_identity

pytestmark = pytest.mark.both_stores

EVERY = 3


@pytest.fixture
def small_checkpoints(monkeypatch: pytest.MonkeyPatch) -> int:
    """Games created during the test keep a checkpoint every EVERY moves."""
    return checkpoint_every(monkeypatch, EVERY)


def checkpoint_every(monkeypatch: pytest.MonkeyPatch, every: int) -> int:
    monkeypatch.setattr(store, "CHECKPOINT_EVERY", every)
    return every


async def table(gateway: Gateway, game: GameHandle) -> dict[str, Any]:
    return view_without_identity(await gateway.view(game))


async def states_at(redis: aioredis.Redis, game: GameHandle) -> tuple[int, int]:
    """(moves played, length of the states list)."""
    keys = game_keys(game.id)
    return await redis.llen(keys.moves), await redis.llen(keys.states)


def expected_states(position: int, every: int) -> int:
    return position // every + 1 + (1 if position % every else 0)


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_any_walk_of_moves_undos_and_redos_shows_the_right_table(
    gateway: Gateway, redis: aioredis.Redis, small_checkpoints: int, seed: int
) -> None:
    rng = random.Random(seed)
    game = await gateway.create("napoleon-at-st-helena", deal=600 + seed)
    line = [await table(gateway, game)]  # the table at each position of the played line
    position = 0
    redoable = 0
    for _ in range(60):
        roll = rng.random()
        if roll < 0.5 or (position == 0 and redoable == 0):
            view = await gateway.view(game)
            legal = view["legal_moves"]
            if not legal:
                break
            moved = await gateway.move(game, rng.choice(legal))
            assert moved.status_code == 200, moved.text
            position += 1
            del line[position:]
            line.append(await table(gateway, game))
            redoable = 0
        elif (roll < 0.8 and position > 0) or redoable == 0:
            undone = await gateway.undo(game)
            assert undone.status_code == 200, undone.text
            assert view_without_identity(undone.json()) == line[position - 1]
            position, redoable = position - 1, redoable + 1
        else:
            redone = await gateway.redo(game)
            assert redone.status_code == 200, redone.text
            position, redoable = position + 1, redoable - 1
        assert await table(gateway, game) == line[position]
        assert await states_at(redis, game) == (position, expected_states(position, EVERY))


async def _to_earlier_layout(redis: aioredis.Redis, game: GameHandle) -> None:
    """Rewrites a stored game as the earlier layout kept it: one hash with the
    current and the dealt state, no states list, no checkpoint interval."""
    keys = game_keys(game.id)
    legacy = legacy_key(game.id)
    meta = await redis.hgetall(keys.meta)
    states = await redis.lrange(keys.states, 0, -1)
    del meta[b"every"]
    await redis.hset(legacy, mapping={**meta, b"state": states[-1], b"initial": states[0]})
    await redis.pexpire(legacy, 60_000)
    await redis.delete(keys.meta, keys.states)


async def test_a_game_of_the_earlier_layout_is_upgraded_and_plays_on(
    gateway: Gateway, redis: aioredis.Redis
) -> None:
    game = await gateway.create("napoleon-at-st-helena", deal=620)
    tables = [await table(gateway, game)]
    for _ in range(5):
        view = await gateway.view(game)
        assert (await gateway.move(game, view["legal_moves"][0])).status_code == 200
        tables.append(await table(gateway, game))
    history = await gateway.history(game)
    await _to_earlier_layout(redis, game)

    assert await gateway.history(game) == history
    keys = game_keys(game.id)
    assert not await redis.exists(legacy_key(game.id))
    assert await redis.hget(keys.meta, "every") == b"2147483647"
    assert 0 < await redis.pttl(keys.meta) <= 604_800_000
    assert await table(gateway, game) == tables[5]
    for position in (4, 3):
        undone = await gateway.undo(game)
        assert undone.status_code == 200, undone.text
        assert await table(gateway, game) == tables[position]
    assert (await gateway.redo(game)).status_code == 200
    assert await table(gateway, game) == tables[4]

    other = await gateway.create("bisley", deal=621)
    await _to_earlier_layout(redis, other)
    response = await gateway.http.delete(f"/v1/games/{other.id}", headers=other.auth())
    assert response.status_code == 204
    assert await redis.exists(*script_keys(other.id)) == 0


@pytest.mark.parametrize("beyond", [1, 2])
async def test_a_long_game_of_the_earlier_layout_is_undone_in_batches_the_engine_takes(
    gateway: Gateway, redis: aioredis.Redis, beyond: int
) -> None:
    """A game kept in the earlier layout has no checkpoints: undo replays it from the
    deal, in batches of the engine's limit. With LIMIT + 1 moves played the replay is
    exactly one full batch, with LIMIT + 2 a full batch and one move more. A card of
    The House on the Hill goes to another fan and back, so the table after an even
    number of moves is the deal's, after an odd number the table after one move."""
    assert ENGINE_BATCH_LIMIT == MAX_BATCH_MOVES  # the gateway's batches fit the engine
    played = ENGINE_BATCH_LIMIT + beyond
    moves = [("t2-t31", "t31-t2")[turn % 2] for turn in range(played)]
    game = await gateway.create("house-on-the-hill", deal=1)
    once = await gateway.create("house-on-the-hill", deal=1)
    assert (await gateway.move(once, moves[0])).status_code == 200
    tables = [game.created["piles"], (await gateway.view(once))["piles"]]

    keys = game_keys(game.id)
    dealt = game_pb2.SealedState.FromString(await redis.lindex(keys.states, 0))
    engine = gateway.app.state.services.games.engine
    current = await engine.apply_moves(dealt, moves[:ENGINE_BATCH_LIMIT])
    current = await engine.apply_moves(current.state, moves[ENGINE_BATCH_LIMIT:])
    await redis.rpush(keys.moves, *moves)
    await redis.rpush(keys.states, current.state.SerializeToString())
    await redis.hset(keys.meta, "version", played + 1)
    await _to_earlier_layout(redis, game)

    game.etag = f'"{played + 1}"'
    undone = await gateway.undo(game)
    assert undone.status_code == 200, undone.text
    assert undone.json()["piles"] == tables[(played - 1) % 2]
    assert undone.json()["counters"]["position"] == played - 1


async def test_a_game_of_200_moves_keeps_within_4_kb(
    gateway: Gateway, redis: aioredis.Redis
) -> None:
    """The Redis budget with checkpoints: a 104-card game (the largest states) after
    200 moves, a card going back and forth between two fans."""
    game = await gateway.create("house-on-the-hill", deal=1)
    for turn in range(200):
        notation = "t2-t31" if turn % 2 == 0 else "t31-t2"
        moved = await gateway.move(game, notation)
        assert moved.status_code == 200, moved.text
    used = 0
    for key in game_keys(game.id):
        used += await redis.memory_usage(key, samples=0) or 0
    assert used < 4096, used
    undone = await gateway.undo(game)  # from move 200, a checkpoint: replays 99 moves
    assert undone.status_code == 200
