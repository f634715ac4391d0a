"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from patience_launcher.redis_cluster import EmbeddedRedisCluster
from patience_launcher.redis_server import EmbeddedRedis


@pytest.fixture(scope="session")
def redis_server() -> Iterator[EmbeddedRedis]:
    """A real redis-server of the suite's own on a free loopback port (never one
    that happens to run already)."""
    server = EmbeddedRedis().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_url(redis_server: EmbeddedRedis) -> str:
    return redis_server.url


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[EmbeddedRedisCluster]:
    """A real Redis Cluster of the suite's own: 3 primaries with a replica each, from
    the same redis-server binary. Tests that use it are grouped on one xdist worker
    (`xdist_group("redis-cluster")`), so a run starts one."""
    with EmbeddedRedisCluster(primaries=3, replicas=1) as cluster:
        yield cluster


def pytest_configure(config: pytest.Config) -> None:
    # Hypothesis: thorough in CI, quick while editing.
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    settings.register_profile(
        "dev", max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    settings.load_profile("ci" if os.environ.get("CI") else "dev")
