"""Fixtures shared by every test folder."""

from __future__ import annotations

import itertools
import os
import tempfile
import uuid
from collections.abc import Iterator

import pytest
from patience_launcher.postgres_server import EmbeddedPostgres
from patience_launcher.redis_cluster import EmbeddedRedisCluster
from patience_launcher.redis_server import EmbeddedRedis
from patience_launcher.scratch import OwnedTempDir, sweep_abandoned

from tests.gateway.engines import EngineThread

# Every temporary file of a test run (pytest's tmp_path, the Redis folders, what the
# launchers under test make) lives in one folder, removed when the run ends, or by the
# next run if this one was killed outright.
SCRATCH_PREFIX = "patience-tests-"
_scratch_key = pytest.StashKey[OwnedTempDir]()
_tmpdir_before_key = pytest.StashKey[str | None]()


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
def postgres_server() -> Iterator[EmbeddedPostgres]:
    """A real PostgreSQL server of the suite's own (one per xdist worker) on a free
    loopback port: the embedded server `patience serve` runs, without fsync."""
    server = EmbeddedPostgres().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def database_url(postgres_server: EmbeddedPostgres) -> str:
    return postgres_server.url


def new_database(database_url: str) -> str:
    """The URL of a new, empty database on the server of `database_url`."""
    import psycopg

    name = f"own_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(database_url, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return database_url.rsplit("/", 1)[0] + "/" + name


@pytest.fixture
def database_of_its_own(database_url: str) -> str:
    """A new, empty database on the suite's PostgreSQL, for a test that fills the tables
    with rows the others' boards and lists must not meet."""
    return new_database(database_url)


_redis_databases = itertools.count()


@pytest.fixture
def redis_of_its_own(redis_server: EmbeddedRedis) -> str:
    """An emptied database of the suite's redis-server (1 to 15, in turn), for a
    gateway whose records go to a database of its own (`database_of_its_own`): two
    gateways on one Redis with different PostgreSQL databases drain each other's
    outboxes, and a game whose player one database lacks is taken there for a deleted
    player's and forgotten."""
    import redis

    url = f"{redis_server.url.rsplit('/', 1)[0]}/{1 + next(_redis_databases) % 15}"
    with redis.Redis.from_url(url) as client:
        client.flushdb()
    return url


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[EmbeddedRedisCluster]:
    """A real Redis Cluster of the suite's own: 3 primaries with a replica each, from
    the same redis-server binary. Tests that use it are grouped on one xdist worker
    (`xdist_group("redis-cluster")`), so a run starts one."""
    with EmbeddedRedisCluster(primaries=3, replicas=1) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def engine() -> Iterator[EngineThread]:
    """A real engine server (in a thread of its own) for the gateway and browser tests."""
    engine = EngineThread().start()
    try:
        yield engine
    finally:
        engine.stop()


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        sweep_abandoned(SCRATCH_PREFIX)
        scratch = OwnedTempDir(SCRATCH_PREFIX)
        config.stash[_scratch_key] = scratch
        config.stash[_tmpdir_before_key] = os.environ.get("TMPDIR")
        # Inherited by xdist's workers and by every process the tests start.
        os.environ["TMPDIR"] = str(scratch.path)
        tempfile.tempdir = None  # forget the folder tempfile may have chosen already
        # Gateways the tests start keep no pools of winnable deals (background searches)
        # unless a test asks for them.
        os.environ.setdefault("WINNABLE_POOL_SIZE", "0")

    # Hypothesis: thorough in CI, quick while editing.
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    settings.register_profile(
        "dev", max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_unconfigure(config: pytest.Config) -> None:
    scratch = config.stash.get(_scratch_key, None)
    if scratch is not None:
        scratch.cleanup()
        # A second run in this process (mutmut runs pytest several times in one) must
        # not find TMPDIR naming the folder just removed.
        before = config.stash.get(_tmpdir_before_key, None)
        if before is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before
        tempfile.tempdir = None


def pytest_runtest_setup(item: pytest.Item) -> None:
    """On an xdist worker with `--dist loadgroup`: a test of an `xdist_group` must carry
    its group in its id, as xdist's scheduler reads it there. Where the pytest and xdist
    installed disagree about ids (pytest 9.2 with xdist 3.8), the groups would be spread
    over the workers without a word: each worker would start its own Redis Cluster,
    browser and benchmark run, and the suite would take minutes longer."""
    config = item.config
    if not hasattr(config, "workerinput") or not getattr(config.option, "loadgroup", False):
        return
    if item.get_closest_marker("xdist_group") is not None and "@" not in item.nodeid:
        pytest.fail(
            "this test is in an xdist_group, but its id does not name it: the pytest and"
            " pytest-xdist installed do not keep groups together (pyproject.toml pins them)",
            pytrace=False,
        )
