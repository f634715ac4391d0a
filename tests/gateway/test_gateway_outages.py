"""Redis or the engine going away, and games expiring: 503 problems with
Retry-After, nothing half applied, and games that carry on once the service is back."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis
from patience_gateway.settings import Settings
from patience_gateway.storage.keys import game_keys
from patience_launcher.redis_server import EmbeddedRedis

from tests.engine.helpers import stalled_engine
from tests.gateway.engines import EngineThread
from tests.gateway.helpers import (
    GameHandle,
    Gateway,
    assert_problem,
    environment_speed_paths,
    held_port,
    running_gateway,
)

DEADLINE_SECONDS = 30.0


async def eventually(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """Polls `check` until it holds; fails after a generous deadline."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not await check():
        assert time.monotonic() < deadline, f"still not {what} after {DEADLINE_SECONDS} s"
        await asyncio.sleep(0.05)


def assert_unavailable(response: httpx.Response, code: str) -> None:
    assert_problem(response, 503, code)
    assert int(response.headers["retry-after"]) >= 1


async def _next_move(gateway: Gateway, game: GameHandle) -> str:
    view = await gateway.view(game)
    return str(view["legal_moves"][0])


async def test_redis_down_is_503_and_the_game_survives(
    engine: EngineThread, tmp_path: Path
) -> None:
    server = EmbeddedRedis(appendonly=True, data_dir=str(tmp_path)).start()
    try:
        settings = Settings(
            redis_url=server.url, engine_addr=engine.target, speed_paths=environment_speed_paths()
        )
        async with running_gateway(settings) as gateway:
            game = await gateway.create("napoleon-at-st-helena", deal=501)
            for _ in range(3):
                assert (await gateway.move(game, await _next_move(gateway, game))).is_success
            before = await gateway.view(game)
            notation = before["legal_moves"][0]

            server.stop()
            with held_port(server.port):
                assert_unavailable(await gateway.move(game, notation), "storage-unavailable")
                assert_unavailable(
                    await gateway.http.get(f"/v1/games/{game.id}", headers=game.auth()),
                    "storage-unavailable",
                )
                assert_unavailable(await gateway.undo(game), "storage-unavailable")
                created = await gateway.http.post("/v1/games", json={"variant": "bisley"})
                assert_unavailable(created, "storage-unavailable")
                assert_unavailable(await gateway.http.get("/readyz"), "storage-unavailable")
                assert (await gateway.http.get("/livez")).status_code == 200

            server = EmbeddedRedis(
                port=server.port, appendonly=True, data_dir=str(tmp_path)
            ).start()
            assert (await gateway.view(game)) == before
            moved = await gateway.move(game, notation)  # the If-Match of before the outage
            assert moved.status_code == 200, moved.text
            history = await gateway.history(game)
            assert len(history["moves"]) == 4 and history["version"] == 5
            assert (await gateway.undo(game)).status_code == 200
            assert (await gateway.http.get("/readyz")).status_code == 200
    finally:
        server.stop()


async def test_an_address_that_does_not_speak_redis_is_503(engine: EngineThread) -> None:
    """REDIS_URL reaches a server of another kind (here one that opens with an HTTP/2
    frame, as a gRPC server does): the store is unavailable, not the gateway broken."""

    async def other_kind(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")  # an empty SETTINGS frame
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(other_kind, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        settings = Settings(
            redis_url=f"redis://127.0.0.1:{port}",
            engine_addr=engine.target,
            speed_paths=environment_speed_paths(),
        )
        async with running_gateway(settings) as gateway:
            created = await gateway.http.post("/v1/games", json={"variant": "bisley"})
            assert_unavailable(created, "storage-unavailable")
            token = {"Authorization": "Bearer a-games-own-token-of-43-characters-abcdefgh"}
            read = await gateway.http.get("/v1/games/x7R2kJ0vQp9sYd3mN8a1Zw-_", headers=token)
            assert_unavailable(read, "storage-unavailable")
    finally:
        server.close()
        await server.wait_closed()


async def test_engine_down_is_503_and_nothing_changes(redis_url: str) -> None:
    engine = EngineThread().start()
    try:
        settings = Settings(
            redis_url=redis_url, engine_addr=engine.target, speed_paths=environment_speed_paths()
        )
        async with running_gateway(settings) as gateway:
            game = await gateway.create("bisley", deal=502)
            notation = game.created["legal_moves"][0]

            engine.stop()
            assert_unavailable(await gateway.move(game, notation), "engine-unavailable")
            for body in ({"variant": "bisley"}, {"variant": "bisley", "winnable": True}):
                assert_unavailable(
                    await gateway.http.post("/v1/games", json=body), "engine-unavailable"
                )
            assert_unavailable(await gateway.http.get("/v1/variants"), "engine-unavailable")
            assert_unavailable(
                await gateway.http.get(f"/v1/games/{game.id}", headers=game.auth()),
                "engine-unavailable",
            )
            for method, suffix in (("GET", "/hint"), ("POST", "/autoplay")):
                response = await gateway.http.request(
                    method, f"/v1/games/{game.id}{suffix}", headers=game.auth()
                )
                assert_unavailable(response, "engine-unavailable")
            patched = await gateway.http.patch(
                f"/v1/games/{game.id}", json={"autoplay": True}, headers=game.auth()
            )
            assert_unavailable(patched, "engine-unavailable")
            assert_unavailable(await gateway.http.get("/readyz"), "engine-unavailable")
            history = await gateway.history(game)  # served from Redis alone
            assert (history["moves"], history["version"]) == ([], 1)

            engine = EngineThread(port=engine.port).start()

            async def moved() -> bool:
                return (await gateway.move(game, notation)).status_code == 200

            await eventually(moved, "moving again")
            assert (await gateway.history(game))["moves"] == [notation]
    finally:
        engine.stop()


async def test_an_engine_away_and_back_is_logged_once_each(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Not a line per failed request: one warning when the engine stops answering, one
    when it answers again, however many requests fail between them."""
    caplog.set_level(logging.WARNING, logger="patience_contract.client")
    engine = EngineThread().start()
    try:
        settings = Settings(
            redis_url=redis_url, engine_addr=engine.target, speed_paths=environment_speed_paths()
        )
        async with running_gateway(settings) as gateway:
            game = await gateway.create("bisley", deal=504)
            notation = game.created["legal_moves"][0]

            def outage_lines() -> list[str]:
                return [
                    r.getMessage() for r in caplog.records if r.name == "patience_contract.client"
                ]

            engine.stop()

            async def logged_away() -> bool:
                assert_unavailable(await gateway.move(game, notation), "engine-unavailable")
                return bool(outage_lines())

            await eventually(logged_away, "logged as away")
            for _ in range(5):
                assert_unavailable(await gateway.move(game, notation), "engine-unavailable")
            [away] = outage_lines()
            assert f"the engine at {engine.target} stopped answering (UNAVAILABLE" in away

            engine = EngineThread(port=engine.port).start()

            async def moved() -> bool:
                return (await gateway.move(game, notation)).status_code == 200

            await eventually(moved, "moving again")

            async def every_channel_back() -> bool:
                # the client's other channels reconnect on gRPC's own backoff, which a
                # loaded machine stretches: each answers once it has
                answers = [await gateway.http.get("/v1/variants") for _ in range(3)]
                return all(answer.status_code == 200 for answer in answers)

            await eventually(every_channel_back, "every channel answering")
            [_, back] = outage_lines()
            assert back.startswith(f"the engine at {engine.target} answers again, after ")
    finally:
        engine.stop()


async def test_a_stalled_engine_is_503_at_the_deadline_and_nothing_changes(
    gateway: Gateway, settings: Settings
) -> None:
    """An engine that takes calls and never answers (a positive deadline, not an
    expired one): each request is answered 503 once the gateway's deadline passes,
    and the game is as it was."""
    game = await gateway.create("bisley", deal=503)
    notation = game.created["legal_moves"][0]
    assert (await gateway.move(game, notation)).status_code == 200
    async with stalled_engine() as (target, servicer):
        stalled = replace(settings, engine_addr=target, engine_timeout_seconds=0.5)
        async with running_gateway(stalled) as waiting:
            async with asyncio.timeout(60):
                assert_unavailable(await waiting.move(game, notation), "engine-unavailable")
                assert_unavailable(await waiting.undo(game), "engine-unavailable")
                assert_unavailable(
                    await waiting.http.get(f"/v1/games/{game.id}", headers=game.auth()),
                    "engine-unavailable",
                )
                created = await waiting.http.post("/v1/games", json={"variant": "bisley"})
                assert_unavailable(created, "engine-unavailable")
        assert servicer.calls >= 4
    history = await gateway.history(game)
    assert (history["moves"], history["version"]) == ([notation], 2)


async def test_games_expire_after_their_time_to_live(
    redis_url: str, engine: EngineThread, redis: aioredis.Redis
) -> None:
    settings = Settings(
        redis_url=redis_url,
        engine_addr=engine.target,
        game_ttl_seconds=1,
        speed_paths=environment_speed_paths(),
    )
    async with running_gateway(settings) as gateway:
        game = await gateway.create("bisley", deal=503)
        notation = game.created["legal_moves"][0]
        assert (await gateway.move(game, notation, key="ttl")).status_code == 200
        assert (await gateway.move(game, await _next_move(gateway, game))).status_code == 200
        assert (await gateway.undo(game)).status_code == 200
        keys = game_keys(game.id)
        assert await redis.exists(*keys) == len(keys) == 6  # with moves, redo and keyed answers
        for key in keys:
            assert 0 < await redis.pttl(key) <= 1000

        async def gone() -> bool:
            return await redis.exists(*keys) == 0

        await eventually(gone, "expired")
        response = await gateway.http.get(f"/v1/games/{game.id}", headers=game.auth())
        assert_problem(response, 404, "unknown-game")


async def test_every_use_renews_the_time_to_live(gateway: Gateway, redis: aioredis.Redis) -> None:
    ttl_ms = gateway.app.state.services.settings.game_ttl_seconds * 1000
    game = await gateway.create("bisley", deal=504)
    assert (await gateway.move(game, await _next_move(gateway, game), key="renew")).is_success
    assert (await gateway.move(game, await _next_move(gateway, game))).is_success
    assert (await gateway.undo(game)).is_success
    keys = game_keys(game.id)
    uses: list[Callable[[], Awaitable[object]]] = [
        lambda: gateway.http.get(f"/v1/games/{game.id}", headers=game.auth()),
        lambda: gateway.http.get(f"/v1/games/{game.id}/history", headers=game.auth()),
        lambda: gateway.http.get(f"/v1/games/{game.id}/legal-moves", headers=game.auth()),
        lambda: gateway.move(game, "t1-t1"),  # even a refused move is a use
    ]
    for use in uses:
        for key in keys:
            await redis.pexpire(key, 60_000)
        await use()
        for key in keys:
            assert await redis.pttl(key) > ttl_ms - 60_000, key
