"""Winnable deals (`"winnable": true`): searched on demand, taken from the pool in Redis,
the pool refilled by the one process holding the lock, and every refusal."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from patience_gateway.games import winnable as winnable_deals
from patience_gateway.games.winnable import PoolRefill
from patience_gateway.settings import Settings
from patience_gateway.storage import winnable_pools as winnable
from patience_gateway.storage.winnable_pools import LOCK_KEY, POOLS_KEY, pool_key, pool_name
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
    loaded = await gateway.app.state.services.games.store.load(game_id)
    state = game_pb2.SealedState.FromString(loaded.state)
    solved = await gateway.app.state.services.engine.solve(state, max_milliseconds=20_000)
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


async def test_no_winnable_deal_in_time_is_503(settings: Settings, redis: Store) -> None:
    # One position a deal (the search looks at its count every 512 positions, so a little
    # more): a search rarely proves a deal of Napoleon at St Helena, so the time runs
    # out. Rarely is not never: a deal it does prove is served, and must be winnable;
    # three creates in a row all finding one would be a search far past its budget. An
    # engine of its own, whose search processes no other test keeps busy (that would be
    # solver-busy), and no deal left in the suite's Redis by another test's pool (it
    # would be served).
    await redis.delete(pool_key(pool_name("napoleon-at-st-helena", ())))
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
            for _ in range(3):
                response = await gateway.http.post(
                    "/v1/games", json={"variant": "napoleon-at-st-helena", "winnable": True}
                )
                if response.status_code != 201:
                    break
                assert await _verdict(gateway, response.json()["id"]) == engine_pb2.VERDICT_WON
            assert_problem(response, 503, "no-winnable-deal")
            assert int(response.headers["retry-after"]) >= 1
    finally:
        engine.stop()


async def test_a_create_takes_a_deal_from_the_pool(pooled: Gateway, redis: Store) -> None:
    name = pool_name("little-billee", ())
    await redis.delete(pool_key(name))
    deals = pooled.app.state.services.games.winnable
    proven = await deals.search("little-billee", (), 10)
    await redis.lpush(pool_key(name), proven.state.SerializeToString())
    created = await _create(pooled, {"variant": "little-billee", "winnable": True})
    assert await redis.llen(pool_key(name)) == 0
    loaded = await pooled.app.state.services.games.store.load(str(created["id"]))
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
    deals = pooled.app.state.services.games.winnable
    engine = pooled.app.state.services.engine
    await redis.delete(LOCK_KEY, POOLS_KEY)
    first, second = PoolRefill(deals, engine), PoolRefill(deals, engine)
    assert await first._hold_lock()
    assert not await second._hold_lock()
    assert await first._hold_lock()  # renewed by its holder
    # every variant without options is wanted; fill one pool only here
    assert pool_name("bisley", ()).encode() in await redis.smembers(POOLS_KEY)
    await redis.delete(POOLS_KEY, pool_key(pool_name("bisley", ())))
    await redis.sadd(POOLS_KEY, pool_name("bisley", ()))
    await first._refill()
    assert await redis.llen(pool_key(pool_name("bisley", ()))) == 2
    # a process that lost the lock stops refilling
    await redis.delete(LOCK_KEY, pool_key(pool_name("bisley", ())))
    assert await second._hold_lock()
    await first._refill()
    assert await redis.llen(pool_key(pool_name("bisley", ()))) == 0
    await redis.delete(LOCK_KEY, POOLS_KEY)


async def _only_wanted(refill: PoolRefill, redis: Store, *variants: str) -> None:
    """`refill` holds the lock, and only the pools of `variants` are wanted, empty."""
    await redis.delete(LOCK_KEY, POOLS_KEY)
    assert await refill._hold_lock()  # wants every variant: keep only these
    await redis.delete(POOLS_KEY, *(pool_key(pool_name(variant, ())) for variant in variants))
    await redis.sadd(POOLS_KEY, *(pool_name(variant, ()) for variant in variants))


async def _forget(redis: Store, *variants: str) -> None:
    """No lock, no pool wanted, and the pools of `variants` empty (for the next test)."""
    await redis.delete(LOCK_KEY, POOLS_KEY)
    for variant in variants:
        await redis.delete(pool_key(pool_name(variant, ())))


async def test_the_pools_take_turns_emptiest_first(pooled: Gateway, redis: Store) -> None:
    added: list[str] = []
    deals = pooled.app.state.services.games.winnable
    refill = PoolRefill(deals, pooled.app.state.services.engine, on_added=added.append)
    await _only_wanted(refill, redis, "little-billee", "bisley")
    await redis.lpush(pool_key(pool_name("bisley", ())), b"a deal already there")
    await refill._refill()
    # the emptiest pool's turn first, not the pools in the order of their names; then
    # every pool short of deals has turns until it is full
    assert added[0] == "little-billee"
    assert sorted(added) == ["bisley", "little-billee", "little-billee"]
    for variant in ("bisley", "little-billee"):
        assert await redis.llen(pool_key(pool_name(variant, ()))) == 2
    await _forget(redis, "bisley", "little-billee")


async def test_a_variant_keeps_the_pool_size_it_is_given(settings: Settings, redis: Store) -> None:
    sized = dataclasses.replace(
        settings, winnable_pool_size=2, winnable_pool_sizes=(("little-billee", 3), ("cody", 0))
    )
    async with running_gateway(sized) as gateway:
        deals = gateway.app.state.services.games.winnable
        refill = PoolRefill(deals, gateway.app.state.services.engine)
        await _only_wanted(refill, redis, "bisley", "little-billee", "cody")
        await refill._refill()
        sizes = [
            await redis.llen(pool_key(pool_name(variant, ())))
            for variant in ("bisley", "little-billee", "cody")
        ]
        assert sizes == [2, 3, 0]
        # no pool of cody: its winnable creates are searched, and never pooled
        await _create(gateway, {"variant": "cody", "winnable": True})
        assert await redis.llen(pool_key(pool_name("cody", ()))) == 0
        await _forget(redis, "bisley", "little-billee", "cody")


async def test_a_pool_the_engine_refuses_does_not_hold_up_the_others(
    pooled: Gateway, redis: Store
) -> None:
    # a variant the engine no longer has (say, after a downgrade), whose turn comes first
    deals = pooled.app.state.services.games.winnable
    refill = PoolRefill(deals, pooled.app.state.services.engine)
    await _only_wanted(refill, redis, "a-variant-gone", "bisley")
    await refill._refill()  # returns: the refused pool sits out, the others fill
    assert await redis.llen(pool_key(pool_name("bisley", ()))) == 2
    assert await redis.llen(pool_key(pool_name("a-variant-gone", ()))) == 0
    await _forget(redis, "a-variant-gone", "bisley")


async def test_a_deal_taken_wakes_the_refill(
    pooled: Gateway, redis: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no pause ends within the test: only the deal taken can start the next round
    monkeypatch.setattr(winnable_deals, "REFILL_PAUSE_SECONDS", 3600.0)
    refill = PoolRefill(pooled.app.state.services.games.winnable, pooled.app.state.services.engine)
    await _only_wanted(refill, redis, "bisley")
    key = pool_key(pool_name("bisley", ()))
    running = asyncio.create_task(refill.run())
    try:
        await _pool_reaches(redis, key, 2)
        await _create(pooled, {"variant": "bisley", "winnable": True})
        await _pool_reaches(redis, key, 2)  # taken, then refilled
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
    await _forget(redis, "bisley")


async def test_a_process_without_the_lock_looks_once_a_deal_taken(
    pooled: Gateway, redis: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(winnable_deals, "REFILL_PAUSE_SECONDS", 3600.0)
    deals = pooled.app.state.services.games.winnable
    holder = PoolRefill(deals, pooled.app.state.services.engine)
    await _only_wanted(holder, redis, "bisley")  # another process holds the lock
    looks = 0

    class Counted(PoolRefill):
        async def _hold_lock(self) -> bool:
            nonlocal looks
            looks += 1
            return await super()._hold_lock()

    async def looked(times: int) -> None:
        deadline = asyncio.get_running_loop().time() + 60
        while looks < times:
            assert asyncio.get_running_loop().time() < deadline, f"{looks} looks"
            await asyncio.sleep(0.01)

    running = asyncio.create_task(Counted(deals, pooled.app.state.services.engine).run())
    try:
        await looked(1)
        await asyncio.sleep(0.1)  # into its wait
        deals.taken.set()  # as a create in this process taking a deal does
        await looked(2)
        await asyncio.sleep(0.5)  # time for any further look
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
    assert looks == 2  # at the start, and once for the deal taken: no round after round
    await _forget(redis, "bisley")


async def _pool_reaches(redis: Store, key: str, size: int) -> None:
    deadline = asyncio.get_running_loop().time() + 60
    while await redis.llen(key) != size:
        assert asyncio.get_running_loop().time() < deadline, f"{key} never held {size}"
        await asyncio.sleep(0.05)


def test_pool_names_are_stable() -> None:
    assert pool_name("napoleon-at-st-helena", ["b", "a", "b"]) == "napoleon-at-st-helena/a,b"
    assert winnable.pool_key("bisley/") == "winnable:{bisley/}"
