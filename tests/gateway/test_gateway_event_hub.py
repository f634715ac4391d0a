"""The per-process subscriber (`events.EventHub`) on a Redis server and on a real Redis
Cluster (sharded channels): a listener hears the changes published on its game's
channel, in order, and nothing of other games; a listener added to a game already
listened to hears from then on; the last one gone, the channel is let go."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from patience_gateway.settings import Settings
from patience_gateway.storage import clients
from patience_gateway.storage.clients import open_redis
from patience_gateway.storage.events import CLOSING, EventHub
from patience_gateway.storage.keys import events_key
from redis.asyncio.cluster import RedisCluster

pytestmark = pytest.mark.both_stores


async def publish(redis: aioredis.Redis | RedisCluster, game_id: str, entry: bytes) -> None:
    command = "SPUBLISH" if isinstance(redis, RedisCluster) else "PUBLISH"
    await redis.execute_command(command, events_key(game_id), entry)


async def test_listeners_hear_their_games_changes(
    store_kind: str, redis: aioredis.Redis | RedisCluster
) -> None:
    hub = EventHub(redis)
    try:
        async with hub.listen("game-a") as first, hub.listen("game-b") as other:
            await publish(redis, "game-a", b'move 2\n{"version":2}')
            await publish(redis, "game-b", b'undo 7\n{"version":7}')
            async with asyncio.timeout(10):
                heard = await first.get()
                assert (heard.kind, heard.version, heard.body) == ("move", 2, b'{"version":2}')
                assert (await other.get()).kind == "undo"
            async with hub.listen("game-a") as second:
                await publish(redis, "game-a", b'redo 3\n{"version":3}')
                async with asyncio.timeout(10):
                    assert (await first.get()).version == 3
                    assert (await second.get()).version == 3
            assert hub.streams == 2
        assert hub.streams == 0
    finally:
        await hub.aclose()


async def test_a_game_that_expires_is_told_to_its_listeners(
    store_kind: str, redis: aioredis.Redis | RedisCluster
) -> None:
    """An expiry publishes nothing: the hub's sweep finds the game gone."""
    meta = b"game:{game-c}:meta"
    await redis.hset(meta, "version", "1")
    hub = EventHub(redis, sweep_seconds=0.2)
    try:
        async with hub.listen("game-c") as listener:
            await redis.pexpire(meta, 100)  # as GAME_TTL_SECONDS would, much later
            async with asyncio.timeout(10):
                assert (await listener.get()).kind == "expired"
    finally:
        await hub.aclose()


async def test_ending_the_streams_ends_those_open_and_those_opened_after(
    store_kind: str, redis: aioredis.Redis | RedisCluster
) -> None:
    """What a stopping process does (`end_streams`): no stream stays open, and one that
    opens while the process stops is ended at once instead of being subscribed."""
    hub = EventHub(redis)
    try:
        async with hub.listen("game-d") as first, hub.listen("game-e") as second:
            hub.end_streams()
            async with asyncio.timeout(10):
                assert await first.get() is CLOSING
                assert await second.get() is CLOSING
            async with hub.listen("game-f") as late:
                assert await late.get() is CLOSING
                assert hub.streams == 2  # the late one was never subscribed
        assert hub.streams == 0
    finally:
        await hub.aclose()


async def test_a_listener_added_after_an_idle_spell_is_heard(
    store_kind: str, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hub's reader waits on its pub/sub connection while a new listener subscribes
    after every stream has closed: a health check due then would read the PING's answer
    on that connection beside the reader (redis-py's asyncio pub/sub refuses: "read()
    called while another coroutine is already waiting"). The hub's client has none; the
    gateway's other clients still do, here due after 50 ms."""
    monkeypatch.setattr(clients, "HEALTH_CHECK_SECONDS", 0.05)
    redis = open_redis(settings, health_checks=False)
    hub = EventHub(redis)
    try:
        for version in (1, 2):
            async with hub.listen("game-d") as listener:
                await publish(redis, "game-d", b"move %d\n{}" % version)
                async with asyncio.timeout(10):
                    assert (await listener.get()).version == version
            await asyncio.sleep(0.2)  # idle past the interval, nothing subscribed
    finally:
        await hub.aclose()
        await redis.aclose()
