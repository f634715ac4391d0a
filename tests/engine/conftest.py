"""Engine fixtures: real engine servers on free loopback ports, and clients for them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import pytest
from patience_contract.client import EngineClient, SyncEngineClient
from patience_engine.server import EngineConfig
from solitaire.v1 import engine_pb2_grpc

from tests.engine.helpers import (
    OTHER_SEAL_KEY,
    SEAL_KEY,
    TEST_SEARCH_NICENESS,
    TINY_MESSAGE_BYTES,
    EngineThread,
)


def _engine(**settings: Any) -> Iterator[EngineThread]:
    engine = EngineThread(
        EngineConfig(
            listen="127.0.0.1:0", workers=1, search_niceness=TEST_SEARCH_NICENESS, **settings
        )
    ).start()
    try:
        yield engine
    finally:
        engine.stop()


@pytest.fixture(scope="session")
def engine() -> Iterator[EngineThread]:
    """An engine that does not seal states."""
    yield from _engine()


@pytest.fixture(scope="session")
def sealed_engine() -> Iterator[EngineThread]:
    yield from _engine(seal_key=SEAL_KEY)


@pytest.fixture(scope="session")
def other_sealed_engine() -> Iterator[EngineThread]:
    yield from _engine(seal_key=OTHER_SEAL_KEY)


@pytest.fixture(scope="session")
def tiny_engine() -> Iterator[EngineThread]:
    yield from _engine(max_message_bytes=TINY_MESSAGE_BYTES)


@pytest.fixture
async def client(engine: EngineThread) -> AsyncIterator[EngineClient]:
    async with EngineClient(engine.target, timeout=30) as engine_client:
        yield engine_client


@pytest.fixture
async def sealed_client(sealed_engine: EngineThread) -> AsyncIterator[EngineClient]:
    async with EngineClient(sealed_engine.target, timeout=30) as engine_client:
        yield engine_client


@pytest.fixture(scope="session")
def sync_client(engine: EngineThread) -> Iterator[SyncEngineClient]:
    with SyncEngineClient(engine.target, timeout=30) as engine_client:
        yield engine_client


@pytest.fixture(scope="session")
def sealed_sync_client(sealed_engine: EngineThread) -> Iterator[SyncEngineClient]:
    with SyncEngineClient(sealed_engine.target, timeout=30) as engine_client:
        yield engine_client


@pytest.fixture(scope="session")
def raw_stub(engine: EngineThread) -> Iterator[engine_pb2_grpc.EngineServiceStub]:
    """A bare generated stub, to look at statuses without the client's conversion."""
    with grpc.insecure_channel(engine.target) as channel:
        yield engine_pb2_grpc.EngineServiceStub(channel)
