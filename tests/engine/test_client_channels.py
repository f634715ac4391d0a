"""The client's pool of channels: each its own TCP connection, taken in turn when
calls come one at a time, and past a connection whose calls are stuck.

A recording server notes the peer address (the client's end of the connection) of
every call, so the connections a client used can be counted exactly.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from patience_contract.client import EngineClient, SyncEngineClient
from solitaire.v1 import engine_pb2, engine_pb2_grpc

from tests.engine.helpers import EngineThread
from tests.engine.test_client import answered_by, both_addresses, replicas  # noqa: F401


class Recorder(engine_pb2_grpc.EngineServiceServicer, health_pb2_grpc.HealthServicer):  # type: ignore[misc]
    """Answers ListVariants and health checks, noting which connection each came on.
    With `hold_first` set, ListVariants calls on the first connection that sent one
    wait until `release` is set (a process busy for as long as the test wants)."""

    def __init__(self) -> None:
        self.peers: list[str] = []
        self.hold_first = False
        self.held = threading.Event()
        self.release = threading.Event()

    def ListVariants(
        self, request: engine_pb2.ListVariantsRequest, context: grpc.ServicerContext
    ) -> engine_pb2.ListVariantsResponse:
        self.peers.append(context.peer())
        if self.hold_first and context.peer() == self.peers[0]:
            self.held.set()
            self.release.wait(60)
        return engine_pb2.ListVariantsResponse()

    def Check(
        self, request: health_pb2.HealthCheckRequest, context: grpc.ServicerContext
    ) -> health_pb2.HealthCheckResponse:
        self.peers.append(context.peer())
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)


@pytest.fixture
def recorder() -> Iterator[tuple[Recorder, str]]:
    servicer = Recorder()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    engine_pb2_grpc.add_EngineServiceServicer_to_server(servicer, server)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield servicer, f"127.0.0.1:{port}"
    finally:
        server.stop(0)


def taken_in_turn(peers: list[str], channels: int) -> bool:
    """`channels` distinct connections, used one after the other in a fixed cycle."""
    cycle = peers[:channels]
    return len(set(cycle)) == channels and all(
        peer == cycle[index % channels] for index, peer in enumerate(peers)
    )


@pytest.mark.parametrize("channels", [1, 3])
async def test_async_client_takes_its_connections_in_turn(
    recorder: tuple[Recorder, str], channels: int
) -> None:
    servicer, target = recorder
    async with EngineClient(target, timeout=30, channels=channels) as client:
        for _ in range(2 * channels):
            assert await client.list_variants() == []
        engine_calls, servicer.peers = servicer.peers, []
        for _ in range(2 * channels):
            assert await client.health() is True
    assert taken_in_turn(engine_calls, channels)
    assert taken_in_turn(servicer.peers, channels)
    assert set(engine_calls) == set(servicer.peers)


async def test_calls_go_past_a_connection_whose_calls_are_stuck(
    recorder: tuple[Recorder, str],
) -> None:
    servicer, target = recorder
    servicer.hold_first = True
    async with EngineClient(target, timeout=30, channels=2) as client:
        stuck = asyncio.create_task(client.list_variants())
        try:
            await asyncio.to_thread(servicer.held.wait, 30)
            # taken in turn, the second of these would wait behind the stuck call
            for _ in range(6):
                assert await asyncio.wait_for(client.list_variants(), 30) == []
        finally:
            servicer.release.set()
            await stuck
    first, *others = servicer.peers
    assert len(others) == 6 and first not in others


@pytest.mark.parametrize("channels", [1, 2])
def test_sync_client_takes_its_connections_in_turn(
    recorder: tuple[Recorder, str], channels: int
) -> None:
    servicer, target = recorder
    with SyncEngineClient(target, timeout=30, channels=channels) as client:
        for _ in range(2 * channels):
            assert client.list_variants() == []
    assert len(servicer.peers) == 2 * channels
    assert taken_in_turn(servicer.peers, channels)


def test_a_client_needs_one_channel_at_least() -> None:
    with pytest.raises(ValueError, match="channels"):
        EngineClient("127.0.0.1:1", channels=0)
    with pytest.raises(ValueError, match="channels"):
        SyncEngineClient("127.0.0.1:1", channels=0)


async def test_every_channel_balances_over_every_replica(
    replicas: list[EngineThread],  # noqa: F811
) -> None:
    # Each replica seals with its own key, so the key id tells which one answered.
    async with EngineClient(both_addresses(replicas), timeout=30, channels=2) as client:
        answered = set()
        for deal in range(200):
            game = await client.new_game("usk", deal=deal)
            answered.add(answered_by(game.state))
            if answered == {0, 1}:
                break
    assert answered == {0, 1}
