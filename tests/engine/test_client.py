"""The client library: balancing over replicas, and errors as EngineError."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from patience_contract.client import EngineClient, EngineError, EngineUnavailable, SyncEngineClient
from patience_engine.config import EngineConfig
from patience_engine.sealing import key_id_of
from solitaire.v1 import game_pb2

from tests.engine.helpers import EngineThread, key_id_in

KEYS = (b"replica-one-key", b"replica-two-key")


@pytest.fixture(scope="module")
def replicas() -> Iterator[list[EngineThread]]:
    """Two engines with different seal keys: a reply's key id tells which one answered."""
    engines = [
        EngineThread(EngineConfig(listen="127.0.0.1:0", workers=1, seal_key=key)).start()
        for key in KEYS
    ]
    try:
        yield engines
    finally:
        for engine in engines:
            engine.stop()


def both_addresses(replicas: list[EngineThread]) -> str:
    return "ipv4:" + ",".join(engine.target for engine in replicas)


def answered_by(state: game_pb2.SealedState) -> int:
    return [key_id_of(key) for key in KEYS].index(key_id_in(state))


async def test_async_client_spreads_calls_over_every_address(
    replicas: list[EngineThread],
) -> None:
    # Round robin takes the replicas in turn once both are connected; a few calls
    # may all go to the first one while the second is still connecting.
    async with EngineClient(both_addresses(replicas), timeout=30) as client:
        answers = []
        for deal in range(200):
            game = await client.new_game("usk", deal=deal)
            answers.append(answered_by(game.state))
            if len(answers) >= 10 and set(answers[-4:]) == {0, 1}:
                break
    assert set(answers[-4:]) == {0, 1}


def test_sync_client_spreads_calls_over_every_address(replicas: list[EngineThread]) -> None:
    with SyncEngineClient(both_addresses(replicas), timeout=30) as client:
        answers = []
        for deal in range(200):
            game = client.new_game("usk", deal=deal)
            answers.append(answered_by(game.state))
            if len(answers) >= 10 and set(answers[-4:]) == {0, 1}:
                break
    assert set(answers[-4:]) == {0, 1}


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port that is bound (so no one else takes it) but not listening."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


async def test_no_server_is_engine_unavailable(closed_port: int) -> None:
    async with EngineClient(f"127.0.0.1:{closed_port}", timeout=10) as client:
        assert await client.health() is False
        with pytest.raises(EngineUnavailable) as caught:
            await client.list_variants()
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    assert caught.value.reason == "UNAVAILABLE"
    with SyncEngineClient(f"127.0.0.1:{closed_port}", timeout=10) as sync_client:
        assert sync_client.health() is False
        with pytest.raises(EngineUnavailable):
            sync_client.get_variant("usk")


class CancelsEverything(grpc.GenericRpcHandler):
    """A server that cancels every call, as a stopping engine does with queued ones."""

    def __init__(self) -> None:
        self.calls = 0

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        def cancel(request: bytes, context: grpc.ServicerContext) -> bytes:
            self.calls += 1
            context.abort(grpc.StatusCode.CANCELLED, "server stopping")

        return grpc.unary_unary_rpc_method_handler(cancel)


def test_a_call_the_server_cancels_is_retried_then_engine_unavailable() -> None:
    handler = CancelsEverything()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2), handlers=[handler])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with (
            SyncEngineClient(f"127.0.0.1:{port}", timeout=10) as client,
            pytest.raises(EngineUnavailable) as caught,
        ):
            client.list_variants()
    finally:
        server.stop(None)
    assert caught.value.code == grpc.StatusCode.CANCELLED
    assert handler.calls == 3  # the first try and the retries of the channel's policy


def test_sync_client_errors_carry_reason_and_metadata(sync_client: SyncEngineClient) -> None:
    game = sync_client.new_game("la-belle-lucie", deal=1)
    with pytest.raises(EngineError) as caught:
        sync_client.apply_move(game.state, "deal")
    error = caught.value
    assert not isinstance(error, EngineUnavailable)
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL_MOVE")
    assert error.metadata == {"rule": "no_stock", "move": "deal"}
    assert "ILLEGAL_MOVE" in str(error)
