"""Several engines behind one target (a static list, as a DNS name with several
addresses gives): the gateway balances over them (round_robin) and plays on when one
stops; any request that fails in the switch is a 503 with Retry-After, and the same
request after that wait succeeds."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from patience_gateway.settings import Settings

from tests.gateway.engines import EngineThread
from tests.gateway.helpers import (
    GameHandle,
    Gateway,
    assert_problem,
    environment_speed_paths,
    held_port,
    running_gateway,
)


@pytest.fixture
async def two_engines() -> AsyncIterator[list[EngineThread]]:
    engines = [EngineThread().start(), EngineThread().start()]
    try:
        yield engines
    finally:
        for engine in engines:
            engine.stop()


def one_target(engines: list[EngineThread]) -> str:
    return "ipv4:" + ",".join(f"127.0.0.1:{engine.port}" for engine in engines)


async def play(gateway: Gateway, game: GameHandle, moves: int) -> list[int]:
    """`moves` moves; a 503 is retried once after its Retry-After, and must then pass."""
    statuses = []
    for _ in range(moves):
        response = await _move(gateway, game)
        statuses.append(response.status_code)
        if response.status_code == 503:
            assert_problem(response, 503, "engine-unavailable")
            await asyncio.sleep(float(response.headers["retry-after"]))
            response = await _move(gateway, game)
            assert response.status_code == 200, response.text
        else:
            assert response.status_code == 200, response.text
    return statuses


async def _move(gateway: Gateway, game: GameHandle) -> httpx.Response:
    """The first legal move, read and played; a read that meets the engine's switch
    counts like the move."""
    read = await gateway.http.get(f"/v1/games/{game.id}", headers=game.auth())
    if read.status_code != 200:
        return read
    return await gateway.move(game, read.json()["legal_moves"][0])


async def test_moves_go_on_while_one_engine_stops_then_the_other(
    two_engines: list[EngineThread], redis_url: str
) -> None:
    first, second = two_engines
    settings = Settings(
        redis_url=redis_url,
        engine_addr=one_target(two_engines),
        engine_channels=2,
        speed_paths=environment_speed_paths(),
    )
    async with running_gateway(settings) as gateway:
        game = await gateway.create("napoleon-at-st-helena", deal=800)
        await play(gateway, game, 6)
        first.stop()
        with held_port(first.port):
            await play(gateway, game, 6)  # the second engine alone
            # the gateway keeps trying to reach the stopped engine, less often as time
            # passes, but never less than once a Retry-After
            await asyncio.sleep(4)
        restarted = EngineThread(port=first.port).start()
        try:
            second.stop()
            await play(gateway, game, 6)  # the first one alone, back on its port
        finally:
            restarted.stop()
        history = await gateway.history(game)
        assert len(history["moves"]) == 18 and history["version"] == 19
