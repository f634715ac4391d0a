"""The services the examples play against: a real engine (sealing states, as deployed) on
a free loopback port, in a thread of this process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.gateway.engines import EngineThread


@pytest.fixture(scope="session")
def engine() -> Iterator[EngineThread]:
    engine = EngineThread().start()
    try:
        yield engine
    finally:
        engine.stop()
