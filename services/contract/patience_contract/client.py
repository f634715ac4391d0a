"""Clients for the engine: `EngineClient` (grpc.aio) and `SyncEngineClient` (blocking).

    async with EngineClient("127.0.0.1:50051") as engine:
        game = await engine.new_game("bisley", deal=7)
        game = await engine.apply_move(game.state, "t3-f1")

States are passed around as `game_pb2.SealedState` exactly as the engine returned
them (the seal covers the bytes). Moves are notation strings ("t3-f1") or
`game_pb2.Move` messages.

Every error status becomes `EngineError` with `code`, `reason` (the
google.rpc.ErrorInfo reason, see docs/errors.md; when gRPC itself failed the call
and there is no ErrorInfo, the status code's name, e.g. "RESOURCE_EXHAUSTED"),
`message` and `metadata`. `timeout` is each call's deadline in seconds (zero or
less: already passed). A server that cannot be reached, or a deadline that
passes, or a server that cancels the call as it stops, gives `EngineUnavailable` (code
UNAVAILABLE, DEADLINE_EXCEEDED or CANCELLED).

The channel balances calls over every address the target resolves to
(`round_robin`), so `dns:///engine:50051` spreads over all replicas, and retries a
call that found a replica unavailable: the engine is stateless, so every call is
safe to repeat.

`channels` opens that many channels, each with connections of its own. One
connection reaches one process of an engine whose ENGINE_WORKERS processes share a
port (the kernel hands each new connection to one of them, at random), so a client
needs several to keep them all busy; every channel still balances over every
replica. The blocking client takes its channels in turn. The asynchronous client
takes the channel with fewer calls in flight of two: the next in turn and one drawn
at random (ties go to the next in turn, so calls one at a time still go round).
The kernel may hand more connections to one process than to another; calls then
pile up on the busy process's connections and go to the others, so no process idles
while another is saturated.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

import grpc
from google.protobuf.message import Message
from grpc import aio
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from solitaire.v1 import engine_pb2, engine_pb2_grpc, game_pb2

from patience_contract.errors import error_info_of

SERVICE_NAME = "solitaire.v1.EngineService"

__all__ = [
    "SERVICE_NAME",
    "EngineClient",
    "EngineError",
    "EngineUnavailable",
    "GameReply",
    "MoveLike",
    "SyncEngineClient",
]

MoveLike = str | game_pb2.Move
# The replies of NewGame, ApplyMove and ApplyMoves: one message each, with the same
# fields (state, view, applied, events).
GameReply = (
    engine_pb2.NewGameResponse | engine_pb2.ApplyMoveResponse | engine_pb2.ApplyMovesResponse
)

_SERVICE_CONFIG = json.dumps(
    {
        "loadBalancingConfig": [{"round_robin": {}}],
        "methodConfig": [
            {
                "name": [{"service": SERVICE_NAME}],
                "retryPolicy": {
                    "maxAttempts": 3,
                    "initialBackoff": "0.05s",
                    "maxBackoff": "0.5s",
                    "backoffMultiplier": 2,
                    # CANCELLED: a server that stops cancels the calls it had queued.
                    "retryableStatusCodes": ["UNAVAILABLE", "CANCELLED"],
                },
            }
        ],
    }
)

CHANNEL_OPTIONS: tuple[tuple[str, str | int], ...] = (
    ("grpc.lb_policy_name", "round_robin"),
    ("grpc.service_config", _SERVICE_CONFIG),
    ("grpc.enable_retries", 1),
    # An engine that was down (restarted by its supervisor) is dialled again within a
    # second, not after gRPC's default backoff, which grows to two minutes.
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
)
# Channels to the same target otherwise share their connections (gRPC's global
# subchannel pool), and a pool of channels would still be one TCP connection.
POOLED_CHANNEL_OPTIONS = (*CHANNEL_OPTIONS, ("grpc.use_local_subchannel_pool", 1))

# gRPC reads a zero timeout as "no deadline" on some paths; a timeout of zero or less
# means a deadline already passed, so it is sent as one firmly in the past.
_PAST_TIMEOUT = -1.0

# This client never cancels a call it still waits for, so a CANCELLED status comes from
# the server's side: an engine process stopping (restarted, scaled down) with calls queued.
_UNAVAILABLE_CODES = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED}
)


class EngineError(Exception):
    """An error status from the engine (or from gRPC on the way to it)."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: dict[str, str] | None = None,
    ) -> None:
        super().__init__(f"{reason}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata: dict[str, str] = metadata or {}


class EngineUnavailable(EngineError):
    """The engine could not be reached, or did not answer before the deadline."""


def error_from_rpc(error: grpc.RpcError) -> EngineError:
    """The EngineError for a failed call (grpc.RpcError or grpc.aio.AioRpcError)."""
    code: grpc.StatusCode = error.code()
    message: str = error.details() or ""
    reason, metadata = code.name, {}
    try:
        status = rpc_status.from_call(error)
    except ValueError:  # a status detail that contradicts the status itself
        status = None
    if status is not None:
        info = error_info_of(status)
        if info is not None:
            reason, metadata = info.reason, dict(info.metadata)
    kind = EngineUnavailable if code in _UNAVAILABLE_CODES else EngineError
    return kind(code, reason, message, metadata)


def _or(timeout: float | None, default: float) -> float:
    return default if timeout is None else timeout


def _call_timeout(timeout: float) -> float:
    return timeout if timeout > 0 else _PAST_TIMEOUT


def to_move(move: MoveLike) -> game_pb2.Move:
    """A Move message from notation text or a Move message."""
    return game_pb2.Move(notation=move) if isinstance(move, str) else move


def _budget(positions: int, milliseconds: int) -> engine_pb2.SearchBudget:
    return engine_pb2.SearchBudget(max_positions=positions, max_milliseconds=milliseconds)


def _deal_text(deal: int | str | None) -> str:
    return "" if deal is None else str(deal)


def _new_game_request(
    variant: str,
    deal: int | str | None,
    options: Sequence[str],
    moves: Iterable[MoveLike],
    hide_deal: bool = False,
) -> engine_pb2.NewGameRequest:
    return engine_pb2.NewGameRequest(
        variant=variant,
        deal=_deal_text(deal),
        options=list(options),
        moves=[to_move(m) for m in moves],
        hide_deal=hide_deal,
    )


_HEALTH_REQUEST = health_pb2.HealthCheckRequest(service=SERVICE_NAME)


def _channel_count(channels: int) -> int:
    if channels < 1:
        raise ValueError(f"channels must be at least 1, got {channels}")
    return channels


ChannelT = TypeVar("ChannelT", aio.Channel, grpc.Channel)


def _options(channels: int) -> tuple[tuple[str, str | int], ...]:
    return CHANNEL_OPTIONS if channels == 1 else POOLED_CHANNEL_OPTIONS


class _ChannelRotation(Generic[ChannelT]):
    """The channels of a client and their stubs."""

    def __init__(
        self,
        target: str,
        timeout: float,
        channels: int,
        open_channel: Callable[..., ChannelT],
    ) -> None:
        self.target = target
        self.timeout = timeout
        options = _options(_channel_count(channels))
        self._channels = [open_channel(target, options=options) for _ in range(channels)]
        self._engine_stubs = [engine_pb2_grpc.EngineServiceStub(c) for c in self._channels]
        self._health_stubs = [health_pb2_grpc.HealthStub(c) for c in self._channels]
        self._turns: Iterator[int] = itertools.cycle(range(channels))

    @property
    def _stub(self) -> engine_pb2_grpc.EngineServiceStub:
        """The stub of the next channel in turn."""
        return self._engine_stubs[next(self._turns)]

    @property
    def _health(self) -> health_pb2_grpc.HealthStub:
        return self._health_stubs[next(self._turns)]


class EngineClient(_ChannelRotation[aio.Channel]):
    """Asynchronous engine client over `channels` grpc.aio channels, each call on the
    less busy of two (see the module's description)."""

    def __init__(self, target: str, *, timeout: float = 5.0, channels: int = 1) -> None:
        super().__init__(target, timeout, channels, aio.insecure_channel)
        self._in_flight = [0] * channels
        self._random = random.Random()

    def _pick(self) -> int:
        """Of the next channel in turn and one other drawn at random, the one with
        fewer calls in flight (the next in turn on a tie)."""
        turn = next(self._turns)
        count = len(self._in_flight)
        if count == 1:
            return turn
        other = (turn + 1 + self._random.randrange(count - 1)) % count
        return other if self._in_flight[other] < self._in_flight[turn] else turn

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        for channel in self._channels:
            await channel.close()

    async def _call(self, rpc: str, request: Message, timeout: float | None = None) -> Any:
        """Calls the EngineService method named `rpc` on the less busy channel."""
        index = self._pick()
        self._in_flight[index] += 1
        try:
            method = getattr(self._engine_stubs[index], rpc)
            return await method(request, timeout=_call_timeout(_or(timeout, self.timeout)))
        except grpc.RpcError as error:
            raise error_from_rpc(error) from None
        finally:
            self._in_flight[index] -= 1

    async def list_variants(self) -> list[game_pb2.Variant]:
        reply: engine_pb2.ListVariantsResponse = await self._call(
            "ListVariants", engine_pb2.ListVariantsRequest()
        )
        return list(reply.variants)

    async def get_variant(self, name: str) -> game_pb2.Variant:
        reply: engine_pb2.GetVariantResponse = await self._call(
            "GetVariant", engine_pb2.GetVariantRequest(name=name)
        )
        return reply.variant

    async def new_game(
        self,
        variant: str,
        *,
        deal: int | str | None = None,
        options: Sequence[str] = (),
        moves: Sequence[MoveLike] = (),
        hide_deal: bool = False,
    ) -> engine_pb2.NewGameResponse:
        """A new game; `hide_deal`: the deal number given stays hidden from players
        until the game is over, as a random deal's does."""
        reply: engine_pb2.NewGameResponse = await self._call(
            "NewGame", _new_game_request(variant, deal, options, moves, hide_deal)
        )
        return reply

    async def legal_moves(self, state: game_pb2.SealedState) -> list[game_pb2.Move]:
        reply: engine_pb2.ListLegalMovesResponse = await self._call(
            "ListLegalMoves", engine_pb2.ListLegalMovesRequest(state=state)
        )
        return list(reply.moves)

    async def apply_move(
        self, state: game_pb2.SealedState, move: MoveLike
    ) -> engine_pb2.ApplyMoveResponse:
        reply: engine_pb2.ApplyMoveResponse = await self._call(
            "ApplyMove", engine_pb2.ApplyMoveRequest(state=state, move=to_move(move))
        )
        return reply

    async def apply_moves(
        self, state: game_pb2.SealedState, moves: Sequence[MoveLike]
    ) -> engine_pb2.ApplyMovesResponse:
        request = engine_pb2.ApplyMovesRequest(state=state, moves=[to_move(m) for m in moves])
        reply: engine_pb2.ApplyMovesResponse = await self._call("ApplyMoves", request)
        return reply

    async def player_view(self, state: game_pb2.SealedState) -> game_pb2.PlayerView:
        reply: engine_pb2.GetPlayerViewResponse = await self._call(
            "GetPlayerView", engine_pb2.GetPlayerViewRequest(state=state)
        )
        return reply.view

    async def solve(
        self,
        state: game_pb2.SealedState,
        *,
        max_positions: int = 0,
        max_milliseconds: int = 0,
        timeout: float | None = None,
    ) -> engine_pb2.SolveResponse:
        """Searches the state for a win (verdict, winning line). The line shows cards
        the player cannot see: for trusted callers. 0: the engine's default budget;
        `timeout` (default: the client's) caps the search too (docs/solver.md)."""
        request = engine_pb2.SolveRequest(
            state=state, budget=_budget(max_positions, max_milliseconds)
        )
        reply: engine_pb2.SolveResponse = await self._call("Solve", request, timeout)
        return reply

    async def hint(
        self,
        state: game_pb2.SealedState,
        *,
        max_positions: int = 0,
        max_milliseconds: int = 0,
        timeout: float | None = None,
        plan: bytes = b"",
    ) -> engine_pb2.HintResponse:
        """The move to play next (kind, move), never naming a hidden card. `plan`: the
        `plan` of the game's previous hint, whose line the hint continues while the game
        is on it."""
        request = engine_pb2.HintRequest(
            state=state, budget=_budget(max_positions, max_milliseconds), plan=plan
        )
        reply: engine_pb2.HintResponse = await self._call("Hint", request, timeout)
        return reply

    async def autoplay(self, state: game_pb2.SealedState) -> engine_pb2.AutoplayResponse:
        """Plays every card that can safely go to a foundation, as one change."""
        reply: engine_pb2.AutoplayResponse = await self._call(
            "Autoplay", engine_pb2.AutoplayRequest(state=state)
        )
        return reply

    async def engine_info(self) -> engine_pb2.GetEngineInfoResponse:
        """How the engine protects states: sealed (with which keys) or not at all."""
        reply: engine_pb2.GetEngineInfoResponse = await self._call(
            "GetEngineInfo", engine_pb2.GetEngineInfoRequest()
        )
        return reply

    async def health(self) -> bool:
        """True when the engine answers its health check with SERVING."""
        try:
            stub = self._health_stubs[self._pick()]
            reply = await stub.Check(_HEALTH_REQUEST, timeout=_call_timeout(self.timeout))
        except grpc.RpcError:
            return False
        return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


class SyncEngineClient(_ChannelRotation[grpc.Channel]):
    """Blocking engine client, for scripts and examples; same methods as EngineClient."""

    def __init__(self, target: str, *, timeout: float = 5.0, channels: int = 1) -> None:
        super().__init__(target, timeout, channels, grpc.insecure_channel)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        for channel in self._channels:
            channel.close()

    def _call(self, method: Any, request: Message, timeout: float | None = None) -> Any:
        try:
            return method(request, timeout=_call_timeout(_or(timeout, self.timeout)))
        except grpc.RpcError as error:
            raise error_from_rpc(error) from None

    def list_variants(self) -> list[game_pb2.Variant]:
        reply: engine_pb2.ListVariantsResponse = self._call(
            self._stub.ListVariants, engine_pb2.ListVariantsRequest()
        )
        return list(reply.variants)

    def get_variant(self, name: str) -> game_pb2.Variant:
        reply: engine_pb2.GetVariantResponse = self._call(
            self._stub.GetVariant, engine_pb2.GetVariantRequest(name=name)
        )
        return reply.variant

    def new_game(
        self,
        variant: str,
        *,
        deal: int | str | None = None,
        options: Sequence[str] = (),
        moves: Sequence[MoveLike] = (),
    ) -> engine_pb2.NewGameResponse:
        reply: engine_pb2.NewGameResponse = self._call(
            self._stub.NewGame, _new_game_request(variant, deal, options, moves)
        )
        return reply

    def legal_moves(self, state: game_pb2.SealedState) -> list[game_pb2.Move]:
        reply: engine_pb2.ListLegalMovesResponse = self._call(
            self._stub.ListLegalMoves, engine_pb2.ListLegalMovesRequest(state=state)
        )
        return list(reply.moves)

    def apply_move(
        self, state: game_pb2.SealedState, move: MoveLike
    ) -> engine_pb2.ApplyMoveResponse:
        reply: engine_pb2.ApplyMoveResponse = self._call(
            self._stub.ApplyMove, engine_pb2.ApplyMoveRequest(state=state, move=to_move(move))
        )
        return reply

    def apply_moves(
        self, state: game_pb2.SealedState, moves: Sequence[MoveLike]
    ) -> engine_pb2.ApplyMovesResponse:
        request = engine_pb2.ApplyMovesRequest(state=state, moves=[to_move(m) for m in moves])
        reply: engine_pb2.ApplyMovesResponse = self._call(self._stub.ApplyMoves, request)
        return reply

    def player_view(self, state: game_pb2.SealedState) -> game_pb2.PlayerView:
        reply: engine_pb2.GetPlayerViewResponse = self._call(
            self._stub.GetPlayerView, engine_pb2.GetPlayerViewRequest(state=state)
        )
        return reply.view

    def solve(
        self,
        state: game_pb2.SealedState,
        *,
        max_positions: int = 0,
        max_milliseconds: int = 0,
        timeout: float | None = None,
    ) -> engine_pb2.SolveResponse:
        """As EngineClient.solve."""
        request = engine_pb2.SolveRequest(
            state=state, budget=_budget(max_positions, max_milliseconds)
        )
        reply: engine_pb2.SolveResponse = self._call(self._stub.Solve, request, timeout)
        return reply

    def hint(
        self,
        state: game_pb2.SealedState,
        *,
        max_positions: int = 0,
        max_milliseconds: int = 0,
        timeout: float | None = None,
        plan: bytes = b"",
    ) -> engine_pb2.HintResponse:
        """As EngineClient.hint."""
        request = engine_pb2.HintRequest(
            state=state, budget=_budget(max_positions, max_milliseconds), plan=plan
        )
        reply: engine_pb2.HintResponse = self._call(self._stub.Hint, request, timeout)
        return reply

    def autoplay(self, state: game_pb2.SealedState) -> engine_pb2.AutoplayResponse:
        """As EngineClient.autoplay."""
        reply: engine_pb2.AutoplayResponse = self._call(
            self._stub.Autoplay, engine_pb2.AutoplayRequest(state=state)
        )
        return reply

    def engine_info(self) -> engine_pb2.GetEngineInfoResponse:
        """How the engine protects states: sealed (with which keys) or not at all."""
        reply: engine_pb2.GetEngineInfoResponse = self._call(
            self._stub.GetEngineInfo, engine_pb2.GetEngineInfoRequest()
        )
        return reply

    def health(self) -> bool:
        """True when the engine answers its health check with SERVING."""
        try:
            reply = self._health.Check(_HEALTH_REQUEST, timeout=_call_timeout(self.timeout))
        except grpc.RpcError:
            return False
        return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)
