"""The gateway on the suite's Redis Cluster with REDIS_WAIT_REPLICAS: a change is
answered once a replica has it, a change its replica cannot confirm is answered 503
(and given again, once confirmed, to a retry with its Idempotency-Key)."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

import pytest
from patience_gateway.settings import Settings
from patience_gateway.store import game_keys
from patience_launcher.redis_cluster import EmbeddedRedisCluster
from patience_launcher.redis_server import EmbeddedRedis

from tests.gateway.engines import EngineThread
from tests.gateway.helpers import Gateway, running_gateway
from tests.gateway.test_gateway_outages import assert_unavailable

pytestmark = pytest.mark.xdist_group("redis-cluster")

WAIT_MS = 300


@pytest.fixture
async def waiting_gateway(
    redis_cluster: EmbeddedRedisCluster, engine: EngineThread
) -> AsyncIterator[Gateway]:
    settings = Settings(
        redis_url=redis_cluster.url,
        redis_cluster=True,
        redis_wait_replicas=1,
        redis_wait_timeout_ms=WAIT_MS,
        engine_addr=engine.target,
    )
    async with running_gateway(settings) as gateway:
        yield gateway


def replica_of(cluster: EmbeddedRedisCluster, primary: EmbeddedRedis) -> EmbeddedRedis:
    client = cluster.client(primary)
    try:
        port = int(client.info("replication")["slave0"]["port"])
    finally:
        client.close()
    return next(node for node in cluster.nodes if node.port == port)


@contextmanager
def stopped(node: EmbeddedRedis) -> Iterator[None]:
    """The node frozen (SIGSTOP): connected, but confirming nothing."""
    assert node.process is not None
    node.process.send_signal(signal.SIGSTOP)
    try:
        yield
    finally:
        node.process.send_signal(signal.SIGCONT)


async def test_an_answered_change_is_on_the_replica(
    waiting_gateway: Gateway, redis_cluster: EmbeddedRedisCluster
) -> None:
    gateway = waiting_gateway
    game = await gateway.create("napoleon-at-st-helena", deal=700)
    meta = game_keys(game.id).meta
    replica = redis_cluster.client(replica_of(redis_cluster, redis_cluster.primary_of(meta)))
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
    waiting_gateway: Gateway, redis_cluster: EmbeddedRedisCluster
) -> None:
    gateway = waiting_gateway
    game = await gateway.create("bisley", deal=701)
    notation = game.created["legal_moves"][0]
    replica = replica_of(redis_cluster, redis_cluster.primary_of(game_keys(game.id).meta))
    with stopped(replica):
        response = await gateway.move(game, notation, key="frozen")
        assert_unavailable(response, "storage-unavailable")
        # the retry is not answered from the stored answer while still unconfirmed
        assert_unavailable(await gateway.move(game, notation, key="frozen"), "storage-unavailable")
    redis_cluster.wait_healthy()
    retried = await gateway.move(game, notation, key="frozen")
    assert retried.status_code == 200, retried.text
    assert retried.headers["idempotent-replayed"] == "true"
    assert (await gateway.history(game))["moves"] == [notation]
