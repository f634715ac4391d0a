"""Helpers for the engine tests: a server in a thread, state conversions, golden wins.

Each server runs in a thread of its own with its own event loop, so that both the
async client (in the tests' loop) and the blocking client (in plain test functions,
e.g. under Hypothesis) can talk to it over a real gRPC channel.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import grpc
import patience
import pytest
from patience_contract.client import EngineError
from patience_engine.codec import Position, encode_state
from patience_engine.config import speed_paths_from_env
from patience_engine.sealing import HEADER_BYTES, Sealer
from patience_engine.server import EngineConfig, RunningEngine, start_server
from solitaire.v1 import engine_pb2_grpc, game_pb2

SEAL_KEY = b"engine-test-key"
OTHER_SEAL_KEY = b"another-engine-key"
# Small enough that Cody's opening reply does not fit, large enough for Usk's.
TINY_MESSAGE_BYTES = 2048
WINS_FILE = Path(__file__).resolve().parents[1] / "rules" / "golden" / "wins.json"


class EngineThread:
    """An engine server on 127.0.0.1 (free port) in a background thread.

    PATIENCE_SPEED_PATHS=off in the tests' environment turns the speed paths off in
    every engine the tests start, so that the whole suite can run on the reference."""

    def __init__(self, config: EngineConfig) -> None:
        if not speed_paths_from_env(os.environ):
            config = dataclasses.replace(config, speed_paths=False)
        self.config = config
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="engine-server", daemon=True
        )
        self.running: RunningEngine | None = None

    def start(self) -> EngineThread:
        self._thread.start()
        self.running = self.run(start_server(self.config))
        return self

    def run(self, coroutine: Any) -> Any:
        """Runs a coroutine in the server's loop and waits for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=60)

    @property
    def target(self) -> str:
        assert self.running is not None
        return f"127.0.0.1:{self.running.port}"

    def stop(self) -> None:
        if self.running is not None:
            self.run(self.running.stop(0))
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=60)
        self._loop.close()


class StalledServicer(engine_pb2_grpc.EngineServiceServicer):
    """Takes every game call and never answers it, as an engine stuck in a loop would:
    the connection is up, the call arrived, only the deadline can end it."""

    def __init__(self) -> None:
        self.calls = 0

    async def _stall(self, request: Any, context: Any) -> Any:
        self.calls += 1
        await asyncio.Event().wait()

    NewGame = ApplyMove = ApplyMoves = GetPlayerView = ListLegalMoves = _stall
    ListVariants = GetVariant = _stall


@asynccontextmanager
async def stalled_engine() -> AsyncIterator[tuple[str, StalledServicer]]:
    """A real gRPC server of the EngineService on a free port, in the running event
    loop, that stalls every call: (its target, its servicer)."""
    server = grpc.aio.server()
    servicer = StalledServicer()
    engine_pb2_grpc.add_EngineServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}", servicer
    finally:
        await server.stop(0)


def unsealed(state: patience.State, *, deal_secret: bool = False) -> game_pb2.SealedState:
    """A library state as an unsealed engine would hand it out."""
    return game_pb2.SealedState(state=encode_state(Position(state, deal_secret)))


def game_state_of(sealed: game_pb2.SealedState, key: bytes | None = None) -> game_pb2.GameState:
    """The GameState inside an engine state: a plain one, or one sealed with `key`."""
    data = sealed.state if key is None else Sealer(key).unseal(sealed)
    return game_pb2.GameState.FromString(data)


def state_of(sealed: game_pb2.SealedState, key: bytes | None = None) -> patience.State:
    """The library state inside an engine state (parsed without the engine's checks):
    a plain one, or one sealed with `key`."""
    message = game_state_of(sealed, key)
    return patience.State.from_parts(
        patience.get_variant(message.variant),
        tuple(tuple(pile.cards) for pile in message.piles),
        options=tuple(message.options),
        redeals_left=message.redeals_left,
        moves_made=message.moves_made,
        deal=int(message.deal),
        draws=message.draws,
    )


def key_id_in(sealed: game_pb2.SealedState) -> str:
    """The key id (hex) written in a sealed state's envelope."""
    return sealed.state[1:HEADER_BYTES].hex()


def load_wins() -> dict[str, Any]:
    """tests/rules/golden/wins.json: per variant, a winning deal and its moves."""
    data: dict[str, Any] = json.loads(WINS_FILE.read_text())
    return data


async def expect_error(awaitable: Any) -> EngineError:
    with pytest.raises(EngineError) as caught:
        await awaitable
    return caught.value


def mutated(original: bytes, edits: list[tuple[int, int]], how: str) -> bytes:
    """`original` with byte edits applied the given way: flip bits, insert or delete
    bytes at the edit positions, or truncate at the first position (for fuzzing)."""
    data = bytearray(original)
    for offset, value in edits:
        at = offset % len(data)
        if how == "flip":
            data[at] ^= value or 1
        elif how == "insert":
            data.insert(at, value)
        elif how == "delete" and len(data) > 1:
            del data[at]
        elif how == "truncate":
            data = data[: max(at, 1)]
    return bytes(data)


# The tests' engines search at their server's priority. Their searches must end within a
# time cap (a Hint's is 5 s at most) to give the answers the tests hold them to; below
# everything else on a crowded machine they would not. The priority itself is tested
# on search pools of its own (test_search_priority.py).
TEST_SEARCH_NICENESS = 0


def searching_config(processes: int, queue: int) -> EngineConfig:
    """One engine process on a free port, with `processes` search processes and a queue
    of `queue` searches."""
    return EngineConfig(
        listen="127.0.0.1:0",
        workers=1,
        solver_processes=processes,
        solver_queue=queue,
        search_niceness=TEST_SEARCH_NICENESS,
    )


@contextmanager
def engine_running(config: EngineConfig) -> Iterator[EngineThread]:
    """An engine of `config` for the block's length (an engine of its own: nothing
    another test asked is remembered in it)."""
    engine = EngineThread(config).start()
    try:
        yield engine
    finally:
        engine.stop()
