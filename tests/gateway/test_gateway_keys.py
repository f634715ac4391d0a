"""Stored games and the engine's keys: a game whose state no key of the engine opens
answers 409 state-unreadable on every route (once: 500 internal), and answers again,
unchanged, once the engine is given the old key beside its new one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager as AsyncContextManager
from dataclasses import replace

import httpx
import pytest
from patience_gateway.settings import Settings

from tests.gateway.documented import models
from tests.gateway.engines import SEAL_KEY, EngineThread
from tests.gateway.helpers import GameHandle, Gateway, assert_problem, running_gateway

NEW_KEY = b"gateway-tests-key-after-rotation"


def _engine(
    seal_key: bytes | None, old_seal_keys: tuple[bytes, ...] = ()
) -> Iterator[EngineThread]:
    engine = EngineThread(seal_key=seal_key, old_seal_keys=old_seal_keys).start()
    try:
        yield engine
    finally:
        engine.stop()


@pytest.fixture(scope="module")
def new_key_engine() -> Iterator[EngineThread]:
    """The engine after its key was changed and the old one forgotten."""
    yield from _engine(NEW_KEY)


@pytest.fixture(scope="module")
def rotated_engine() -> Iterator[EngineThread]:
    """The engine after a proper rotation: the new key, and the old one to read with."""
    yield from _engine(NEW_KEY, (SEAL_KEY,))


@pytest.fixture(scope="module")
def keyless_engine() -> Iterator[EngineThread]:
    yield from _engine(None)


def gateway_on(settings: Settings, engine: EngineThread) -> AsyncContextManager[Gateway]:
    """A gateway on the suite's Redis in front of `engine`."""
    return running_gateway(replace(settings, engine_addr=engine.target))


async def _every_route(gateway: Gateway, game: GameHandle) -> list[httpx.Response]:
    auth = game.auth()
    path = f"/v1/games/{game.id}"
    return [
        await gateway.http.get(path, headers=auth),
        await gateway.http.get(f"{path}/legal-moves", headers=auth),
        await gateway.move(game, game.created["legal_moves"][0]),
        await gateway.undo(game),
        await gateway.redo(game),
    ]


async def test_a_game_sealed_with_a_forgotten_key_is_unreadable_not_a_server_error(
    gateway: Gateway,
    settings: Settings,
    new_key_engine: EngineThread,
    rotated_engine: EngineThread,
) -> None:
    async with (
        gateway_on(settings, new_key_engine) as new_key_gateway,
        gateway_on(settings, rotated_engine) as rotated_gateway,
    ):
        await _lose_and_find_the_key(gateway, new_key_gateway, rotated_gateway)


async def _lose_and_find_the_key(
    gateway: Gateway, new_key_gateway: Gateway, rotated_gateway: Gateway
) -> None:
    game = await gateway.create("bisley", deal=31)
    for notation in game.created["legal_moves"][:2]:
        assert (await gateway.move(game, notation)).status_code == 200
    assert (await gateway.undo(game)).status_code == 200  # a redo is waiting
    before = await gateway.view(game)
    # Finding: after a restart with a new key every stored game answered 500 internal.
    for response in await _every_route(new_key_gateway, game):
        body = assert_problem(response, 409, "state-unreadable")
        assert "key" in body["detail"]
    # Nothing was applied meanwhile, and the old key beside the new one opens it again.
    assert await rotated_gateway.view(game) == before
    moved = await rotated_gateway.move(game, before["legal_moves"][0])
    assert moved.status_code == 200, moved.text
    # The new state is sealed with the new key: the engine that lost the old key reads it.
    assert (await new_key_gateway.view(game))["version"] == before["version"] + 1
    undone = await new_key_gateway.undo(game)
    # Undo replays from the deal, still sealed with the old key.
    assert_problem(undone, 409, "state-unreadable")


async def test_readiness_says_when_the_engine_seals_nothing(
    settings: Settings, keyless_engine: EngineThread
) -> None:
    async with gateway_on(settings, keyless_engine) as gateway:
        ready = await gateway.http.get("/readyz")
        assert ready.status_code == 200
        body = ready.json()
        assert body["engine_states"] == "plain"
        (warning,) = body["warnings"]
        assert "unsafe development mode" in warning and "ENGINE_SEAL_KEY" in warning
        models.Health.model_validate(body)
