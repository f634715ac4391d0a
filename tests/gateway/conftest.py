"""Gateway fixtures: a real engine (in a thread), the suite's real Redis, and the
gateway app driven through httpx with its lifespan run.

The game store is a single Redis server unless a test module is marked
`pytest.mark.both_stores`: its tests then run twice, on the single server and on
the suite's Redis Cluster (3 primaries, 3 replicas), with the same assertions. The
`redis` fixture is a client of the same store (a cluster client on the cluster).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from patience_gateway.redis_client import open_redis
from patience_gateway.settings import Settings
from redis.asyncio.cluster import RedisCluster

from tests.gateway.engines import EngineThread
from tests.gateway.helpers import Gateway, running_gateway

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
    )


@pytest.fixture(scope="session")
async def gateway(settings: Settings) -> AsyncIterator[Gateway]:
    async with running_gateway(settings) as gateway:
        yield gateway


@pytest.fixture(scope="session")
async def redis(settings: Settings) -> AsyncIterator[aioredis.Redis | RedisCluster]:
    client = open_redis(settings)
    try:
        yield client
    finally:
        await client.aclose()
