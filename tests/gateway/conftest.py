"""Gateway fixtures: a real engine (in a thread), the suite's real Redis, and the
gateway app driven through httpx with its lifespan run."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis
from patience_gateway.settings import Settings

from tests.gateway.engines import EngineThread
from tests.gateway.helpers import Gateway, running_gateway


@pytest.fixture(scope="session")
def engine() -> Iterator[EngineThread]:
    engine = EngineThread().start()
    try:
        yield engine
    finally:
        engine.stop()


@pytest.fixture(scope="session")
def settings(redis_url: str, engine: EngineThread) -> Settings:
    return Settings(redis_url=redis_url, engine_addr=engine.target, max_body_bytes=4096)


@pytest.fixture(scope="session")
async def gateway(settings: Settings) -> AsyncIterator[Gateway]:
    async with running_gateway(settings) as gateway:
        yield gateway


@pytest.fixture(scope="session")
async def redis(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(redis_url)
    try:
        yield client
    finally:
        await client.aclose()
