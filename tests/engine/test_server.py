"""The server around the service: health, reflection, limits, deadlines, concurrency."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from patience_contract.client import EngineClient, EngineError, EngineUnavailable, SyncEngineClient
from patience_engine.config import EngineConfig
from solitaire.v1 import game_pb2

from tests.engine.helpers import EngineThread, expect_error, stalled_engine, state_of

ENGINE = "solitaire.v1.EngineService"
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def health_status(target: str, service: str) -> int:
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=30)
        status: int = reply.status
        return status


def test_health_is_serving_for_the_server_and_the_engine(engine: EngineThread) -> None:
    assert health_status(engine.target, "") == SERVING
    assert health_status(engine.target, ENGINE) == SERVING


async def test_client_health(client: EngineClient) -> None:
    assert await client.health() is True


async def test_health_turns_not_serving_before_the_server_stops() -> None:
    engine = EngineThread(EngineConfig(listen="127.0.0.1:0", workers=1)).start()
    assert engine.running is not None
    server = engine.running.server
    seen: list[int] = []
    real_stop = server.stop

    async def stop_and_look(grace: Any) -> None:
        # Still accepting calls here: ask over the network what health says now.
        seen.append(await asyncio.to_thread(health_status, engine.target, ENGINE))
        seen.append(await asyncio.to_thread(health_status, engine.target, ""))
        await real_stop(grace)

    server.stop = stop_and_look
    await asyncio.to_thread(engine.stop)
    assert seen == [NOT_SERVING, NOT_SERVING]


def test_reflection_lists_the_service_and_its_methods(engine: EngineThread) -> None:
    with grpc.insecure_channel(engine.target) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        services = set(database.get_services())
        assert {ENGINE, "grpc.health.v1.Health"} <= services
        pool = descriptor_pool.DescriptorPool(database)
        service = pool.FindServiceByName(ENGINE)
        assert {method.name for method in service.methods} == {
            "ListVariants",
            "GetVariant",
            "NewGame",
            "ListLegalMoves",
            "ApplyMove",
            "ApplyMoves",
            "GetPlayerView",
            "GetEngineInfo",
            "Solve",
            "Hint",
            "Autoplay",
        }
        apply = service.methods_by_name["ApplyMove"]
        assert apply.input_type.full_name == "solitaire.v1.ApplyMoveRequest"
        assert apply.output_type.full_name == "solitaire.v1.ApplyMoveResponse"
        assert "seal" in pool.FindMessageTypeByName("solitaire.v1.SealedState").fields_by_name


async def test_an_oversize_request_is_refused_by_grpc(client: EngineClient) -> None:
    huge = game_pb2.SealedState(state=b"\x00" * (1_048_576 + 16))
    error = await expect_error(client.player_view(huge))
    assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error.reason == "RESOURCE_EXHAUSTED"
    assert await client.health()


async def test_message_limit_applies_to_replies(tiny_engine: EngineThread) -> None:
    async with EngineClient(tiny_engine.target, timeout=30) as small:
        assert await small.health()
        assert (await small.new_game("usk", deal=1)).view.variant == "usk"
        # Cody's opening reply (many legal moves) is several kilobytes.
        error = await expect_error(small.new_game("cody", deal=1))
        assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        request_too_big = game_pb2.SealedState(state=b"\x00" * 4096)
        error = await expect_error(small.player_view(request_too_big))
        assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED


@pytest.mark.parametrize("timeout", [0.0, -1.0])
async def test_expired_deadlines_give_deadline_exceeded(
    engine: EngineThread, client: EngineClient, timeout: float
) -> None:
    async with EngineClient(engine.target, timeout=timeout) as hurried:
        error = await expect_error(hurried.new_game("cody", deal=1))
        assert isinstance(error, EngineUnavailable)
        assert error.code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert (await client.new_game("cody", deal=1)).view.deal == "1"


async def test_a_stalled_engine_is_left_at_the_deadline() -> None:
    """A positive deadline ends a call the engine took and never answers: the client
    says the engine is unavailable instead of waiting for ever (the guard fails the
    test long before pytest's own timeout if the deadline is not sent)."""
    async with stalled_engine() as (target, servicer):
        async with EngineClient(target, timeout=0.5) as hurried:
            async with asyncio.timeout(20):
                error = await expect_error(hurried.new_game("cody", deal=1))
        assert isinstance(error, EngineUnavailable)
        assert error.code == grpc.StatusCode.DEADLINE_EXCEEDED

        def blocking_call() -> EngineError:
            with SyncEngineClient(target, timeout=0.5) as blocking:
                try:
                    blocking.new_game("cody", deal=1)
                except EngineError as error:
                    return error
            raise AssertionError("the stalled engine answered")

        async with asyncio.timeout(20):
            error = await asyncio.to_thread(blocking_call)
        assert isinstance(error, EngineUnavailable)
        assert error.code == grpc.StatusCode.DEADLINE_EXCEEDED
        assert servicer.calls >= 2  # both calls reached the engine and stalled there


async def test_many_concurrent_calls_from_several_clients(engine: EngineThread) -> None:
    clients = [EngineClient(engine.target, timeout=60) for _ in range(4)]
    try:
        game = await clients[0].new_game("la-belle-lucie", deal=77)
        moves = list(game.view.legal_moves)

        async def one(client: EngineClient, index: int) -> tuple[int, bytes]:
            if index % 4 == 3:
                reply = await client.new_game("la-belle-lucie", deal=77)
                return -1, reply.state.state
            choice = index % len(moves)
            reply = await client.apply_move(game.state, moves[choice])
            return choice, reply.state.state

        results = await asyncio.gather(
            *(one(client, index) for client in clients for index in range(200))
        )
    finally:
        for client in clients:
            await client.close()
    assert len(results) == 800
    by_choice: dict[int, set[bytes]] = {}
    for choice, state in results:
        by_choice.setdefault(choice, set()).add(state)
    # The same request always got the same answer.
    assert all(len(states) == 1 for states in by_choice.values())
    assert by_choice[-1] == {game.state.state}
    for choice, (state,) in by_choice.items():
        if choice >= 0:
            assert state_of(game_pb2.SealedState(state=state)).moves_made == 1
