"""Winnable deals (`"winnable": true`): searched on demand, taken from the pool in Redis,
the pool refilled by the one process holding the lock, and every refusal."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from patience_gateway import winnable
from patience_gateway.settings import Settings
from patience_gateway.winnable import LOCK_KEY, POOLS_KEY, PoolRefill, pool_key, pool_name
from redis.asyncio.cluster import RedisCluster
from solitaire.v1 import engine_pb2, game_pb2

from tests.gateway.engines import EngineThread
from tests.gateway.helpers import Gateway, assert_problem, running_gateway

pytestmark = pytest.mark.both_stores  # a single Redis server and a Redis Cluster

Store = aioredis.Redis | RedisCluster


@pytest.fixture
async def pooled(settings: Settings) -> AsyncIterator[Gateway]:
    """A gateway that keeps pools of two deals (not refilled on its own: not served)."""
    async with running_gateway(dataclasses.replace(settings, winnable_pool_size=2)) as gateway:
        yield gateway


async def _create(gateway: Gateway, body: dict[str, object]) -> dict[str, object]:
    response = await gateway.http.post("/v1/games", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, object] = response.json()
    return created


async def _verdict(gateway: Gateway, game_id: str) -> int:
    """The engine's verdict on the game's stored state, with a generous budget."""
    loaded = await gateway.app.state.service.store.load(game_id)
    state = game_pb2.SealedState.FromString(loaded.state)
    solved = await gateway.app.state.engine.solve(state, max_milliseconds=20_000)
    return int(solved.verdict)


async def test_a_winnable_deal_is_proven_won_and_its_number_hidden(gateway: Gateway) -> None:
    created = await _create(gateway, {"variant": "bisley", "winnable": True})
    assert created["deal"] is None and created["status"] == "playing"
    assert await _verdict(gateway, str(created["id"])) == engine_pb2.VERDICT_WON
    history = await gateway.http.get(
        f"/v1/games/{created['id']}/history",
        headers={"Authorization": f"Bearer {created['token']}"},
    )
    assert history.json()["deal"] is None


async def test_winnable_with_a_deal_is_refused(gateway: Gateway) -> None:
    response = await gateway.http.post(
        "/v1/games", json={"variant": "bisley", "deal": 3, "winnable": True}
    )
    assert_problem(response, 422, "winnable-with-deal")


@pytest.mark.parametrize("field", ["winnable", "autoplay"])
@pytest.mark.parametrize("value", ["yes", "true", 1, 0, None])
async def test_the_create_switches_take_only_json_booleans(
    gateway: Gateway, field: str, value: object
) -> None:
    response = await gateway.http.post("/v1/games", json={"variant": "bisley", field: value})
    assert_problem(response, 422, "malformed-body")


async def test_winnable_refusals_of_the_engine_come_through(gateway: Gateway) -> None:
    unknown = await gateway.http.post("/v1/games", json={"variant": "nope", "winnable": True})
    assert_problem(unknown, 404, "unknown-variant")
    option = await gateway.http.post(
        "/v1/games", json={"variant": "bisley", "options": ["nope"], "winnable": True}
    )
    assert_problem(option, 422, "unknown-option")


async def test_no_winnable_deal_in_time_is_503(settings: Settings) -> None:
    # One position a deal: no search can prove a deal of Napoleon at St Helena (its safe
    # moves alone never win from the deal), so the time runs out. An engine of its own,
    # whose search processes no other test keeps busy (that would be solver-busy).
    engine = EngineThread().start()
    try:
        starved = dataclasses.replace(
            settings,
            engine_addr=engine.target,
            winnable_search_seconds=1,
            winnable_solve_positions=1,
            winnable_pool_size=0,
        )
        async with running_gateway(starved) as gateway:
            response = await gateway.http.post(
                "/v1/games", json={"variant": "napoleon-at-st-helena", "winnable": True}
            )
            assert_problem(response, 503, "no-winnable-deal")
            assert int(response.headers["retry-after"]) >= 1
    finally:
        engine.stop()


async def test_a_create_takes_a_deal_from_the_pool(pooled: Gateway, redis: Store) -> None:
    name = pool_name("little-billee", ())
    await redis.delete(pool_key(name))
    deals = pooled.app.state.service.winnable
    proven = await deals.search("little-billee", (), 10)
    await redis.lpush(pool_key(name), proven.state.SerializeToString())
    created = await _create(pooled, {"variant": "little-billee", "winnable": True})
    assert await redis.llen(pool_key(name)) == 0
    loaded = await pooled.app.state.service.store.load(str(created["id"]))
    assert loaded.state == proven.state.SerializeToString()
    assert created["deal"] is None
    # the pool is empty: the next one is searched, and the pool is wanted from then on
    await _create(pooled, {"variant": "little-billee", "winnable": True})
    assert name.encode() in await redis.smembers(POOLS_KEY)


async def test_a_pooled_state_the_engine_refuses_is_dropped(pooled: Gateway, redis: Store) -> None:
    name = pool_name("bisley", ())
    await redis.delete(pool_key(name))
    await redis.lpush(pool_key(name), b"not a sealed state")
    created = await _create(pooled, {"variant": "bisley", "winnable": True})
    assert await redis.llen(pool_key(name)) == 0
    assert await _verdict(pooled, str(created["id"])) == engine_pb2.VERDICT_WON


async def test_one_process_at_a_time_refills_the_pools(pooled: Gateway, redis: Store) -> None:
    deals = pooled.app.state.service.winnable
    engine = pooled.app.state.engine
    await redis.delete(LOCK_KEY, POOLS_KEY)
    first, second = PoolRefill(deals, engine), PoolRefill(deals, engine)
    assert await first._hold_lock()
    assert not await second._hold_lock()
    assert await first._hold_lock()  # renewed by its holder
    # every variant without options is wanted; fill one pool only here
    assert pool_name("bisley", ()).encode() in await redis.smembers(POOLS_KEY)
    await redis.delete(POOLS_KEY, pool_key(pool_name("bisley", ())))
    await redis.sadd(POOLS_KEY, pool_name("bisley", ()))
    await first._refill_round()
    assert await redis.llen(pool_key(pool_name("bisley", ()))) == 2
    # a process that lost the lock stops refilling
    await redis.delete(LOCK_KEY, pool_key(pool_name("bisley", ())))
    assert await second._hold_lock()
    await first._refill_round()
    assert await redis.llen(pool_key(pool_name("bisley", ()))) == 0
    await redis.delete(LOCK_KEY, POOLS_KEY)


def test_pool_names_are_stable() -> None:
    assert pool_name("napoleon-at-st-helena", ["b", "a", "b"]) == "napoleon-at-st-helena/a,b"
    assert winnable.pool_key("bisley/") == "winnable:{bisley/}"
