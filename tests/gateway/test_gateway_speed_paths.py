"""The speed paths (patience_gateway.speed) and PATIENCE_SPEED_PATHS: the setting is read
from the environment and reaches the suite's gateways; with it off, each reference is
what runs; a scripted game is answered byte for byte the same either way; and the
script runners, speed path and reference, behave alike on a real Redis."""

from __future__ import annotations

import dataclasses
import os
import re
import secrets
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from patience_gateway import speed
from patience_gateway.app import create_app
from patience_gateway.settings import SPEED_PATHS_VARIABLE, Settings, SettingsError
from patience_gateway.speed.moves import MoveFastPath
from patience_gateway.speed.node_runners import NodeRunner, RedisPyRunner
from patience_gateway.storage.runners import ClusterRunner, ReplicaWait, ScriptRunner
from patience_gateway.storage.scripts import Script
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ResponseError

from tests.gateway.helpers import Gateway, running_gateway

# --------------------------------------------------------------------------- the setting


@pytest.mark.parametrize(
    ("value", "on"), [("", True), ("on", True), (" ON ", True), ("off", False), ("Off", False)]
)
def test_the_setting_is_on_or_off(value: str, on: bool) -> None:
    assert Settings.from_env({SPEED_PATHS_VARIABLE: value}).speed_paths is on
    assert Settings.from_env({}).speed_paths is True
    assert Settings().speed_paths is True


def test_the_setting_refuses_other_words() -> None:
    with pytest.raises(SettingsError, match=SPEED_PATHS_VARIABLE):
        Settings.from_env({SPEED_PATHS_VARIABLE: "fast"})


def uses_speed_paths(gateway: Gateway) -> tuple[bool, bool]:
    """Whether the gateway answers moves on the speed path, and runs scripts on one."""
    middleware = {entry.cls for entry in gateway.app.user_middleware}
    runner = gateway.app.state.services.games.store.runner
    return MoveFastPath in middleware, isinstance(runner, NodeRunner)


def test_the_environment_reaches_the_suites_gateways(gateway: Gateway) -> None:
    """Run with PATIENCE_SPEED_PATHS=off, the suite tests the references."""
    on = Settings.from_env({SPEED_PATHS_VARIABLE: os.environ.get(SPEED_PATHS_VARIABLE, "")})
    assert gateway.app.state.services.settings.speed_paths is on.speed_paths
    assert uses_speed_paths(gateway) == (on.speed_paths, on.speed_paths)


# --------------------------------------------------------------------------- the seam


@pytest.fixture(scope="module")
async def with_speed(settings: Settings) -> AsyncIterator[Gateway]:
    async with running_gateway(dataclasses.replace(settings, speed_paths=True)) as gateway:
        yield gateway


@pytest.fixture(scope="module")
async def references(settings: Settings) -> AsyncIterator[Gateway]:
    async with running_gateway(dataclasses.replace(settings, speed_paths=False)) as gateway:
        yield gateway


def test_off_the_references_run(with_speed: Gateway, references: Gateway) -> None:
    assert uses_speed_paths(with_speed) == (True, True)
    assert uses_speed_paths(references) == (False, False)
    assert isinstance(references.app.state.services.games.store.runner, RedisPyRunner)


def test_the_seam_chooses_each_reference() -> None:
    assert speed.entrances(False) == []
    assert [entry.cls for entry in speed.entrances(True)] == [MoveFastPath]
    node = aioredis.Redis()
    assert isinstance(speed.script_runner(node, None, True), NodeRunner)
    assert isinstance(speed.script_runner(node, None, False), RedisPyRunner)
    cluster = RedisCluster(host="127.0.0.1", port=7000)
    for on in (True, False):  # a Redis Cluster has one runner
        assert isinstance(speed.script_runner(cluster, None, on), ClusterRunner)


def test_an_app_without_speed_paths_answers_moves_with_its_route(settings: Settings) -> None:
    app = create_app(dataclasses.replace(settings, speed_paths=False))
    assert MoveFastPath not in {entry.cls for entry in app.user_middleware}


# --------------------------------------------------------------------------- same answers

_MILLISECONDS = re.compile(rb'"milliseconds":[0-9]+')


def seen(response: httpx.Response, names: dict[str, str]) -> tuple[int, list[Any], bytes]:
    """What a client sees, with what differs by nature between two games written the
    same way for both: their ids and tokens, the request's id, and how long a search
    took."""
    body = _MILLISECONDS.sub(b'"milliseconds":0', response.content)
    headers = [
        (key, value) for key, value in response.headers.multi_items() if key != "content-length"
    ]
    for real, name in {**names, response.headers["request-id"]: "REQUEST"}.items():
        body = body.replace(real.encode(), name.encode())
        headers = [(key, value.replace(real, name)) for key, value in headers]
    return response.status_code, headers, body


async def scripted_game(gateway: Gateway, label: str) -> list[tuple[int, list[Any], bytes]]:
    """A game played through every route, with refusals along the way."""
    http = gateway.http
    answers: list[httpx.Response] = []
    created = await http.post(
        "/v1/games",
        json={"variant": "bisley", "deal": 0},
        headers={"Idempotency-Key": f"speed-{label}-{secrets.token_hex(4)}"},
    )
    answers.append(created)
    game = created.json()
    names = {game["id"]: "GAME", game["token"]: "TOKEN"}
    auth = {"Authorization": f"Bearer {game['token']}"}
    path = f"/v1/games/{game['id']}"
    json_type = {"Content-Type": "application/json"}

    async def send(method: str, url: str, **kwargs: Any) -> httpx.Response:
        headers = {**auth, **kwargs.pop("headers", {})}
        response = await http.request(method, url, headers=headers, **kwargs)
        answers.append(response)
        return response

    legal = game["legal_moves"]
    await send("GET", path)
    await send("GET", path, headers={"If-None-Match": '"1"'})
    await send("GET", f"{path}/legal-moves")
    await send("GET", f"{path}/hint")
    await send("POST", f"{path}/moves", json={"move": legal[0]}, headers={"If-Match": '"1"'})
    await send("POST", f"{path}/moves", json={"move": legal[0]}, headers={"If-Match": '"1"'})
    listed = await send("GET", f"{path}/legal-moves")
    first = listed.json()["moves"][0]
    structured = {k: first[k] for k in ("kind", "source", "target", "count", "columns")}
    for _ in range(2):  # the second is the stored answer
        await send("POST", f"{path}/moves", json=structured, headers={"Idempotency-Key": "k"})
    await send("POST", f"{path}/moves", json={"move": "deal"}, headers={"Idempotency-Key": "k"})
    await send("POST", f"{path}/moves", json={"move": "t1-t1"})
    await send("POST", f"{path}/moves", json={"move": "sideways"})
    await send("POST", f"{path}/moves", content=b'{"move": ', headers=json_type)
    await send("POST", f"{path}/moves", content=b"{}", headers={"Content-Type": "text/plain"})
    await send("POST", f"{path}/moves", json={"move": legal[0]}, headers={"Authorization": ""})
    await send("POST", f"{path}/undo")
    await send("POST", f"{path}/redo")
    await send("POST", f"{path}/redo")
    await send("POST", f"{path}/autoplay", headers={"Idempotency-Key": "a"})
    await send("POST", f"{path}/autoplay", headers={"Idempotency-Key": "a"})
    await send("GET", f"{path}/history")
    await send("PATCH", path, json={"autoplay": True}, headers={"If-Match": '"9"'})
    await send("PATCH", path, json={"autoplay": True})
    views = await send("GET", path)
    for notation in views.json()["legal_moves"][:3]:
        await send("POST", f"{path}/moves", json={"move": notation})
    await send("GET", f"{path}/history")
    for _ in range(4):
        await send("POST", f"{path}/undo")
    await send("GET", "/v1/variants/bisley")
    await send("DELETE", path, headers={"If-Match": '"1"'})
    await send("DELETE", path)
    await send("GET", path)
    return [seen(response, names) for response in answers]


async def test_the_answers_are_the_same_with_the_speed_paths_on_and_off(
    with_speed: Gateway, references: Gateway
) -> None:
    fast = await scripted_game(with_speed, "on")
    plain = await scripted_game(references, "off")
    assert len(fast) == len(plain) > 30
    for number, (one, other) in enumerate(zip(fast, plain, strict=True)):
        assert one == other, number


# --------------------------------------------------------------------------- script runners

ONE = Script.of("return 'one'")
TWO = Script.of("return {KEYS[1], ARGV[1]}")
FAILS = Script.of("return redis.error_reply('refused')")


def runner_of(kind: str, client: aioredis.Redis, wait: ReplicaWait | None = None) -> ScriptRunner:
    if kind == "speed path":
        return NodeRunner(client.connection_pool, wait)
    return RedisPyRunner(client, wait)


@pytest.fixture(params=["speed path", "reference"])
async def client_and_kind(
    request: pytest.FixtureRequest, redis_url: str
) -> AsyncIterator[tuple[aioredis.Redis, str]]:
    client = aioredis.from_url(redis_url)
    try:
        yield client, request.param
    finally:
        await client.aclose()


async def test_the_runners_read_and_reload_scripts_alike(
    client_and_kind: tuple[aioredis.Redis, str],
) -> None:
    client, kind = client_and_kind
    runner = runner_of(kind, client)
    try:
        assert await runner.read(TWO, [b"k"], ["v"]) == [b"k", b"v"]
        await client.script_flush()
        assert await runner.read(ONE, [], []) == b"one"
        with pytest.raises(ResponseError, match="refused"):
            await runner.read(FAILS, [], [])
        assert await runner.read(TWO, [b"k"], ["w"]) == [b"k", b"w"]
        written = await runner.write(TWO, [b"k"], ["x"])
        assert (written.reply, written.replicas) == ([b"k", b"x"], None)
    finally:
        await runner.aclose()


async def test_the_runners_wait_for_replicas_alike(
    client_and_kind: tuple[aioredis.Redis, str],
) -> None:
    client, kind = client_and_kind
    # The suite's Redis has no replica: WAIT gives up after its timeout with 0.
    runner = runner_of(kind, client, ReplicaWait(replicas=1, timeout_ms=20))
    try:
        await client.script_flush()
        written = await runner.write(TWO, [b"k"], ["v"])
        assert (written.reply, written.replicas) == ([b"k", b"v"], 0)
        with pytest.raises(ResponseError, match="refused"):
            await runner.write(FAILS, [b"k"], [])
        written = await runner.write(TWO, [b"k"], ["w"])  # its own reply, not WAIT's
        assert (written.reply, written.replicas) == ([b"k", b"w"], 0)
        assert await runner.read(ONE, [], []) == b"one"
    finally:
        await runner.aclose()
