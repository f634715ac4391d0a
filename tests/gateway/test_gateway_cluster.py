"""The gateway on the suite's Redis Cluster with REDIS_WAIT_REPLICAS: a change is
answered once a replica has it, a change its replica cannot confirm is answered 503
(and given again, once confirmed, to a retry with its Idempotency-Key)."""

from __future__ import annotations

import contextlib
import logging
import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import pytest
from patience_gateway.settings import Settings
from patience_gateway.storage.keys import game_keys
from patience_launcher.addresses import free_port
from patience_launcher.redis_cluster import EmbeddedRedisCluster
from patience_launcher.redis_server import EmbeddedRedis

from tests.gateway.engines import EngineThread
from tests.gateway.helpers import Gateway, environment_speed_paths, running_gateway
from tests.gateway.test_gateway_outages import assert_unavailable, eventually

pytestmark = pytest.mark.xdist_group("redis-cluster")


@asynccontextmanager
async def waiting_gateway(
    cluster: EmbeddedRedisCluster, engine: EngineThread, wait_ms: int, deadline: float = 5.0
) -> AsyncIterator[Gateway]:
    """A gateway whose changes wait up to `wait_ms` for one replica, and whose Redis
    calls have `deadline` seconds (a change, the wait besides)."""
    settings = Settings(
        redis_url=cluster.url,
        redis_cluster=True,
        redis_wait_replicas=1,
        redis_wait_timeout_ms=wait_ms,
        redis_timeout_seconds=deadline,
        engine_addr=engine.target,
        speed_paths=environment_speed_paths(),
    )
    async with running_gateway(settings) as gateway:
        yield gateway


@contextmanager
def stopped(node: EmbeddedRedis) -> Iterator[None]:
    """The node frozen (SIGSTOP): connected, but confirming nothing."""
    assert node.process is not None
    node.process.send_signal(signal.SIGSTOP)
    try:
        yield
    finally:
        node.process.send_signal(signal.SIGCONT)


def warnings_logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The messages logged as warnings so far in the test."""
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


async def test_a_gateway_knows_the_slots_before_its_first_request(
    redis_cluster: EmbeddedRedisCluster, engine: EngineThread
) -> None:
    """The cluster client reads which node holds which slots as the gateway starts. Left
    to a first request, that reading asks a seed drawn at random: with the replicas
    frozen, half the draws waited out the store's deadline (503) for a game whose
    primary answers."""
    async with waiting_gateway(redis_cluster, engine, wait_ms=30_000) as creator:
        game = await creator.create("bisley", deal=703)
    primaries = redis_cluster.primary_nodes()
    replicas = [node for node in redis_cluster.running() if node not in primaries]
    assert len(primaries) == 3 and len(replicas) == 3
    for _ in range(3):
        async with waiting_gateway(redis_cluster, engine, wait_ms=300) as gateway:
            known = {node.port for node in gateway.app.state.services.redis.get_nodes()}
            assert known >= {node.port for node in primaries}
            with contextlib.ExitStack() as frozen:
                for replica in replicas:
                    frozen.enter_context(stopped(replica))
                read = await gateway.http.get(f"/v1/games/{game.id}", headers=game.auth())
            assert read.status_code == 200, read.text
    redis_cluster.wait_healthy()


async def test_a_gateway_starts_while_the_cluster_is_out_of_reach(
    engine: EngineThread, caplog: pytest.LogCaptureFixture
) -> None:
    """Reading the slots at start is best effort: a gateway whose cluster does not answer
    yet starts, says so, and is not ready until the cluster answers."""
    settings = Settings(
        redis_url=f"redis://127.0.0.1:{free_port()}",
        redis_cluster=True,
        redis_timeout_seconds=2,
        engine_addr=engine.target,
        speed_paths=environment_speed_paths(),
    )
    async with running_gateway(settings) as gateway:
        assert_unavailable(await gateway.http.get("/readyz"), "storage-unavailable")
    warned = warnings_logged(caplog)
    assert any(m.startswith("Redis Cluster's slots not read at start") for m in warned), warned


async def test_a_replica_wait_longer_than_the_redis_deadline_is_waited_out(
    redis_cluster: EmbeddedRedisCluster, engine: EngineThread, caplog: pytest.LogCaptureFixture
) -> None:
    """The deadline of a change is the deadline of a Redis call plus the replica wait,
    twice (a primary without the script answers NOSCRIPT and the WAIT sent with it, then
    the change and its WAIT): waits of 2.5 s beside a 2 s deadline end in the wait's own
    answer (the change made, 0 of 1 replicas, the game named in the log), not in Redis
    "not answering"."""
    patient = waiting_gateway(redis_cluster, engine, wait_ms=30_000)
    slow = waiting_gateway(redis_cluster, engine, wait_ms=2_500, deadline=2.0)
    async with patient as creator, slow as gateway:
        game = await creator.create("bisley", deal=704)
        primary = redis_cluster.primary_of(game_keys(game.id).meta)
        replica = redis_cluster.replica_of(primary)
        flushing = redis_cluster.client(primary)
        try:
            flushing.script_flush()
        finally:
            flushing.close()
        with stopped(replica):
            assert_unavailable(await gateway.autoplay_on(game), "storage-unavailable")
        redis_cluster.wait_healthy()
        warned = warnings_logged(caplog)
        unconfirmed = f"change to game {game.id} confirmed by 0 of 1 replicas in 2500 ms"
        assert unconfirmed in warned, warned


async def test_an_answered_change_is_on_the_replica(
    redis_cluster: EmbeddedRedisCluster, engine: EngineThread
) -> None:
    async with waiting_gateway(redis_cluster, engine, wait_ms=30_000) as gateway:
        await _changes_are_on_the_replica(gateway, redis_cluster)


async def _changes_are_on_the_replica(
    gateway: Gateway, redis_cluster: EmbeddedRedisCluster
) -> None:
    game = await gateway.create("napoleon-at-st-helena", deal=700)
    meta = game_keys(game.id).meta
    replica = redis_cluster.client(redis_cluster.replica_of(redis_cluster.primary_of(meta)))
    try:
        replica.execute_command("READONLY")
        for _ in range(5):
            view = await gateway.view(game)
            moved = await gateway.move(game, view["legal_moves"][0])
            assert moved.status_code == 200, moved.text
            # no waiting here: the answer came after the replica confirmed the change
            assert replica.hget(meta, "version") == game.etag.strip('"').encode()
    finally:
        replica.close()


async def test_a_change_the_replica_cannot_confirm_is_503_until_it_can(
    redis_cluster: EmbeddedRedisCluster, engine: EngineThread
) -> None:
    patient = waiting_gateway(redis_cluster, engine, wait_ms=30_000)
    hasty = waiting_gateway(redis_cluster, engine, wait_ms=300)
    async with patient as creator, hasty as gateway:
        game = await creator.create("bisley", deal=701)
        notation = game.created["legal_moves"][0]
        replica = redis_cluster.replica_of(redis_cluster.primary_of(game_keys(game.id).meta))
        with stopped(replica):
            response = await gateway.move(game, notation, key="frozen")
            assert_unavailable(response, "storage-unavailable")
            # the retry is not answered from the stored answer while still unconfirmed
            retried = await gateway.move(game, notation, key="frozen")
            assert_unavailable(retried, "storage-unavailable")
        redis_cluster.wait_healthy()

        async def answered() -> bool:
            retried = await gateway.move(game, notation, key="frozen")
            return retried.status_code == 200

        # a busy machine may keep the replica from answering within 300 ms: 503 again.
        # The answer is the stored one when an attempt reached the primary, the move
        # applied now when none did (a slow machine: Redis not answering in time before
        # the script ran); either way the move is applied once.
        await eventually(answered, "the move answered")
        assert (await gateway.history(game))["moves"] == [notation]
        again = await gateway.move(game, notation, key="frozen")
        assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"


async def test_a_settings_change_or_a_delete_the_replica_cannot_confirm_is_503(
    redis_cluster: EmbeddedRedisCluster, engine: EngineThread, caplog: pytest.LogCaptureFixture
) -> None:
    """Every kind of change waits for its replica, not moves only: a settings change and
    a delete made while the replica is frozen are answered 503 (their effect may stand
    on the primary, as a move's does, for a retry to find), and the log names the game
    each time."""
    patient = waiting_gateway(redis_cluster, engine, wait_ms=30_000)
    hasty = waiting_gateway(redis_cluster, engine, wait_ms=300)
    async with patient as creator, hasty as gateway:
        game = await creator.create("bisley", deal=702)
        replica = redis_cluster.replica_of(redis_cluster.primary_of(game_keys(game.id).meta))
        with stopped(replica):
            patched = await gateway.autoplay_on(game)
            assert_unavailable(patched, "storage-unavailable")
            deleted = await gateway.http.delete(f"/v1/games/{game.id}", headers=game.auth())
            assert_unavailable(deleted, "storage-unavailable")
        redis_cluster.wait_healthy()
        unconfirmed = f"change to game {game.id} confirmed by 0 of 1 replicas"
        warned = warnings_logged(caplog)
        assert sum(m.startswith(unconfirmed) for m in warned) == 2, warned
