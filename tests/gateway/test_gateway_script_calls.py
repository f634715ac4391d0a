"""The scripts' own connections (patience_gateway.speed.node_runners.NodeRunner) on the
suite's real Redis: reused, reloaded scripts, no reply left behind by a call cut
short or by WAIT, and a connection that Redis closed while it was idle replaced
before use."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from patience_gateway.speed.node_runners import NodeRunner
from patience_gateway.storage.runners import ReplicaWait
from patience_gateway.storage.scripts import Script
from redis.exceptions import ResponseError

from tests.gateway.players import eventually

ONE = Script.of("return 'one'")
TWO = Script.of("return {KEYS[1], ARGV[1]}")


@pytest.fixture
async def named_client(redis_url: str) -> AsyncIterator[tuple[aioredis.Redis, str]]:
    """A client whose connections carry a name of their own, to find them in CLIENT LIST."""
    name = f"script-calls-{secrets.token_hex(4)}"
    client = aioredis.from_url(redis_url, client_name=name)
    try:
        yield client, name
    finally:
        await client.aclose()


@pytest.fixture
async def caller(named_client: tuple[aioredis.Redis, str]) -> AsyncIterator[NodeRunner]:
    """NodeRunner on `named_client`'s connections, closed after the test."""
    client, _ = named_client
    script_caller = NodeRunner(client.connection_pool)
    try:
        yield script_caller
    finally:
        await script_caller.aclose()


async def connection_ids(admin: aioredis.Redis, name: str) -> list[int]:
    return [int(entry["id"]) for entry in await admin.client_list() if entry["name"] == name]


async def test_calls_one_after_another_share_one_connection(
    caller: NodeRunner, named_client: tuple[aioredis.Redis, str], redis: aioredis.Redis
) -> None:
    _, name = named_client
    for turn in range(5):
        assert await caller.read(TWO, [b"k"], [str(turn)]) == [b"k", str(turn).encode()]
    assert len(await connection_ids(redis, name)) == 1
    await caller.aclose()  # closing twice (here and in the fixture) is harmless

    async def closed() -> bool:
        return await connection_ids(redis, name) == []

    # The client has closed its socket; Redis drops the connection once its event loop
    # reads the end of the stream, which a busy machine may put after the next command.
    await eventually(closed, seconds=10, what="the connection closed in Redis")


async def test_a_script_redis_forgot_is_loaded_again(
    caller: NodeRunner, redis: aioredis.Redis
) -> None:
    assert await caller.read(ONE, [], []) == b"one"
    await redis.script_flush()
    assert await caller.read(ONE, [], []) == b"one"


async def test_a_call_cut_short_leaves_no_reply_behind(
    caller: NodeRunner, redis: aioredis.Redis
) -> None:
    assert await caller.read(ONE, [], []) == b"one"
    # Paused for writes, Redis holds every script until the pause is lifted, so
    # the deadline passes with the first call's reply still to come.
    await redis.client_pause(60_000, all=False)
    try:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await caller.read(ONE, [], [])
    finally:
        await redis.client_unpause()
    # The next call must read its own reply, not the late 'one'.
    assert await caller.read(TWO, [b"k"], ["v"]) == [b"k", b"v"]


async def test_a_connection_closed_while_idle_is_replaced(
    caller: NodeRunner, named_client: tuple[aioredis.Redis, str], redis: aioredis.Redis
) -> None:
    _, name = named_client
    assert await caller.read(ONE, [], []) == b"one"
    [idle] = await connection_ids(redis, name)
    await redis.client_kill_filter(_id=str(idle))
    # Redis closed that connection before it answered the kill; by the time this
    # round trip is back, the event loop has read the end of its stream.
    await redis.ping()
    assert await caller.read(TWO, [b"k"], ["v"]) == [b"k", b"v"]
    assert len(await connection_ids(redis, name)) == 1


FAILS = Script.of("return redis.error_reply('refused')")


async def test_a_write_waits_for_replicas_on_its_own_connection(
    named_client: tuple[aioredis.Redis, str], redis: aioredis.Redis
) -> None:
    client, name = named_client
    # The suite's Redis has no replica: WAIT gives up after its timeout with 0.
    waiting = NodeRunner(client.connection_pool, ReplicaWait(replicas=1, timeout_ms=20))
    try:
        written = await waiting.write(TWO, [b"k"], ["v"])
        assert (written.reply, written.replicas) == ([b"k", b"v"], 0)
        with pytest.raises(ResponseError, match="refused"):
            await waiting.write(FAILS, [b"k"], [])
        # WAIT's reply after the error was read too: the next call gets its own.
        written = await waiting.write(TWO, [b"k"], ["w"])
        assert written.reply == [b"k", b"w"]
        assert await waiting.read(ONE, [], []) == b"one"
        assert len(await connection_ids(redis, name)) == 1
    finally:
        await waiting.aclose()


async def test_without_a_wait_a_write_asks_no_replica(caller: NodeRunner) -> None:
    written = await caller.write(TWO, [b"k"], ["v"])
    assert (written.reply, written.replicas) == ([b"k", b"v"], None)
