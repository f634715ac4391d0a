"""The service the examples play against: `patience serve`, as a user starts it with
`make run`, on free loopback ports, with the suite's own Redis and a fixed seal key."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.launcher.launcher_run import LauncherRun


@dataclass(frozen=True)
class Service:
    rest: str  # base URL of the REST API, e.g. http://127.0.0.1:41234
    grpc: str  # host:port of the engine


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """`patience serve` with its own Redis and PostgreSQL, as a user runs it: sharing the
    suite's Redis would share its locks and outboxes with gateways of another PostgreSQL."""
    folder = tmp_path_factory.mktemp("service")
    env = {
        **os.environ,
        "ENGINE_SEAL_KEY": "examples-seal-key",
        "PATIENCE_DATA_DIR": str(folder),
        # the origin of docs/api.md's CORS examples
        "CORS_ORIGINS": "https://cards.example",
    }
    run = LauncherRun(
        ["serve", "--http-port", "0", "--grpc-port", "0", "--workers", "1"], folder, env=env
    )
    try:
        run.wait_ready()
        rest = run.banner_value("REST API").removesuffix("/v1")
        yield Service(rest=rest, grpc=run.banner_value("gRPC"))
        assert run.interrupt() == 0, run.output()
    finally:
        run.cleanup()
