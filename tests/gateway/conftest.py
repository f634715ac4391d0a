"""Gateway fixtures: a real engine (in a thread), the suite's real Redis, and the
gateway app driven through httpx with its lifespan run.

The game store is a single Redis server unless a test module is marked
`pytest.mark.both_stores`: its tests then run twice, on the single server and on
the suite's Redis Cluster (3 primaries, 3 replicas), with the same assertions. The
`redis` fixture is a client of the same store (a cluster client on the cluster).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
import redis.asyncio as aioredis
from patience_gateway.settings import Settings
from patience_gateway.storage.clients import open_redis
from redis.asyncio.cluster import RedisCluster

from tests.gateway.engines import EngineThread
from tests.gateway.helpers import (
    OLD_PLAYER_KEY,
    PLAYER_KEY,
    Gateway,
    environment_speed_paths,
    running_gateway,
)

NODE, CLUSTER = "node", "cluster"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker("both_stores") is None:
        return
    if "store_kind" not in metafunc.fixturenames:
        return
    kinds = [NODE, pytest.param(CLUSTER, marks=pytest.mark.xdist_group("redis-cluster"))]
    metafunc.parametrize("store_kind", kinds, indirect=True, scope="session")


@pytest.fixture(scope="session")
def store_kind(request: pytest.FixtureRequest) -> str:
    """Which Redis keeps the games: NODE, or CLUSTER where a module asks for both."""
    return str(getattr(request, "param", NODE))


@pytest.fixture(scope="session")
def settings(store_kind: str, request: pytest.FixtureRequest, engine: EngineThread) -> Settings:
    if store_kind == CLUSTER:
        url, cluster = request.getfixturevalue("redis_cluster").url, True
    else:
        url, cluster = request.getfixturevalue("redis_url"), False
    # Deadlines far past anything a loaded machine takes: a test that wants one to
    # pass makes settings of its own.
    return Settings(
        redis_url=url,
        redis_cluster=cluster,
        engine_addr=engine.target,
        max_body_bytes=4096,
        redis_timeout_seconds=30.0,
        engine_timeout_seconds=30.0,
        speed_paths=environment_speed_paths(),
    )


@pytest.fixture(scope="session")
async def gateway(settings: Settings) -> AsyncIterator[Gateway]:
    async with running_gateway(settings) as gateway:
        yield gateway


@pytest.fixture(scope="session")
def records_settings(settings: Settings, database_url: str) -> Settings:
    """The suite's gateway settings with players and records: the suite's PostgreSQL
    and a player token key (the current key first, an older one that still verifies)."""
    return replace(
        settings,
        database_url=database_url,
        player_token_keys=(PLAYER_KEY, OLD_PLAYER_KEY),
        # every test's players come from one address: the limit has a test of its own
        new_players_per_minute=100_000,
    )


@pytest.fixture(scope="session")
async def records_gateway(records_settings: Settings) -> AsyncIterator[Gateway]:
    """A gateway that keeps players and records (its clock: `SteadyClock`)."""
    async with running_gateway(records_settings) as gateway:
        yield gateway


@pytest.fixture
async def gateway_of_its_own_database(
    records_settings: Settings, database_of_its_own: str, redis_of_its_own: str
) -> AsyncIterator[Gateway]:
    """A gateway keeping its records in a database of its own (and its games in a Redis
    database of its own): for a test whose rows, written straight into PostgreSQL, must
    not reach the boards other tests read, or that moves its records' clock days ahead
    (its drain would end other tests' games as abandoned)."""
    settings = replace(
        records_settings, database_url=database_of_its_own, redis_url=redis_of_its_own
    )
    async with running_gateway(settings) as gateway:
        yield gateway


@pytest.fixture(scope="session")
async def redis(settings: Settings) -> AsyncIterator[aioredis.Redis | RedisCluster]:
    client = open_redis(settings)
    try:
        yield client
    finally:
        await client.aclose()
