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

An engine that stops answering is logged once (a warning of the logger
`patience_contract.client`, naming the target), when its calls have failed as
unavailable for a second with none answered; its return once too, with how long it was
away and how many calls failed meanwhile: not a line per failed call.

Every call carries the id of the request being served, where there is one (the
gateway's, `patience_contract.logs.request_id`), as the metadata `request-id`: the
engine's log lines for the call carry it too.

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

import functools
import itertools
import json
import logging
import random
import time
from collections.abc import Callable, Coroutine, Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Generic, NoReturn, ParamSpec, Self, TypeVar, overload

import grpc
from google.protobuf.message import Message
from grpc import aio
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from solitaire.v1 import engine_pb2, engine_pb2_grpc, game_pb2

from patience_contract import logs
from patience_contract.errors import error_info_of

__all__ = [
    "SERVICE_NAME",
    "EngineClient",
    "EngineError",
    "EngineUnavailable",
    "GameReply",
    "MoveLike",
    "SyncEngineClient",
    "to_move",
]

SERVICE_NAME = "solitaire.v1.EngineService"
HEALTH_SERVICE_NAME = "grpc.health.v1.Health"

MoveLike = str | game_pb2.Move
ResultT = TypeVar("ResultT")
P = ParamSpec("P")

# --------------------------------------------------------------------------- the calls
# Each of the engine's RPCs once, as both clients make it: the request built from the
# caller's arguments, and what the caller is given of the reply. A client's method is
# the function of the same name here, run by that client (`_Rpc`).


def _reply(reply: Any) -> Any:
    return reply


@dataclass(frozen=True, slots=True)
class Call(Generic[ResultT]):
    """One call: the `method` of `service`, its `request`, what the caller is given of
    the reply (`result`), its deadline in seconds (None: the client's), and what the
    caller is given when it fails (`failed`; None: the EngineError is raised)."""

    method: str
    request: Message
    result: Callable[[Any], ResultT] = _reply
    timeout: float | None = None
    service: str = SERVICE_NAME
    failed: Callable[[], ResultT] | None = None


def to_move(move: MoveLike) -> game_pb2.Move:
    """A Move message from notation text or a Move message."""
    return game_pb2.Move(notation=move) if isinstance(move, str) else move


def _moves(moves: Iterable[MoveLike]) -> list[game_pb2.Move]:
    return [to_move(move) for move in moves]


def _budget(positions: int, milliseconds: int) -> engine_pb2.SearchBudget:
    return engine_pb2.SearchBudget(max_positions=positions, max_milliseconds=milliseconds)


def list_variants() -> Call[list[game_pb2.Variant]]:
    return Call(
        "ListVariants", engine_pb2.ListVariantsRequest(), lambda reply: list(reply.variants)
    )


def get_variant(name: str) -> Call[game_pb2.Variant]:
    return Call("GetVariant", engine_pb2.GetVariantRequest(name=name), lambda r: r.variant)


def new_game(
    variant: str,
    *,
    deal: int | str | None = None,
    options: Sequence[str] = (),
    moves: Sequence[MoveLike] = (),
    hide_deal: bool = False,
) -> Call[engine_pb2.NewGameResponse]:
    """A new game; `hide_deal`: the deal number given stays hidden from players until
    the game is over, as a random deal's does."""
    request = engine_pb2.NewGameRequest(
        variant=variant,
        deal="" if deal is None else str(deal),
        options=list(options),
        moves=_moves(moves),
        hide_deal=hide_deal,
    )
    return Call("NewGame", request)


def legal_moves(state: game_pb2.SealedState) -> Call[list[game_pb2.Move]]:
    request = engine_pb2.ListLegalMovesRequest(state=state)
    return Call("ListLegalMoves", request, lambda reply: list(reply.moves))


def apply_move(state: game_pb2.SealedState, move: MoveLike) -> Call[engine_pb2.ApplyMoveResponse]:
    return Call("ApplyMove", engine_pb2.ApplyMoveRequest(state=state, move=to_move(move)))


def apply_moves(
    state: game_pb2.SealedState, moves: Sequence[MoveLike]
) -> Call[engine_pb2.ApplyMovesResponse]:
    return Call("ApplyMoves", engine_pb2.ApplyMovesRequest(state=state, moves=_moves(moves)))


def player_view(state: game_pb2.SealedState) -> Call[game_pb2.PlayerView]:
    request = engine_pb2.GetPlayerViewRequest(state=state)
    return Call("GetPlayerView", request, lambda reply: reply.view)


def solve(
    state: game_pb2.SealedState,
    *,
    max_positions: int = 0,
    max_milliseconds: int = 0,
    timeout: float | None = None,
) -> Call[engine_pb2.SolveResponse]:
    """Searches the state for a win (verdict, winning line). The line shows cards the
    player cannot see: for trusted callers. 0: the engine's default budget; `timeout`
    (default: the client's) caps the search too (docs/solver.md)."""
    request = engine_pb2.SolveRequest(state=state, budget=_budget(max_positions, max_milliseconds))
    return Call("Solve", request, timeout=timeout)


def hint(
    state: game_pb2.SealedState,
    *,
    max_positions: int = 0,
    max_milliseconds: int = 0,
    timeout: float | None = None,
    plan: bytes = b"",
) -> Call[engine_pb2.HintResponse]:
    """The move to play next (kind, move), never naming a hidden card. `plan`: the
    `plan` of the game's previous hint, whose line the hint continues while the game is
    on it."""
    budget = _budget(max_positions, max_milliseconds)
    return Call(
        "Hint", engine_pb2.HintRequest(state=state, budget=budget, plan=plan), timeout=timeout
    )


def autoplay(state: game_pb2.SealedState) -> Call[engine_pb2.AutoplayResponse]:
    """Plays every card that can safely go to a foundation, as one change."""
    return Call("Autoplay", engine_pb2.AutoplayRequest(state=state))


def engine_info() -> Call[engine_pb2.GetEngineInfoResponse]:
    """How the engine protects states: sealed (with which keys) or not at all."""
    return Call("GetEngineInfo", engine_pb2.GetEngineInfoRequest())


def health() -> Call[bool]:
    """True when the engine answers its health check with SERVING."""
    return Call(
        "Check",
        health_pb2.HealthCheckRequest(service=SERVICE_NAME),
        lambda reply: bool(reply.status == health_pb2.HealthCheckResponse.SERVING),
        service=HEALTH_SERVICE_NAME,
        failed=lambda: False,
    )


# --------------------------------------------------------------------------- the clients

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

log = logging.getLogger("patience_contract.client")

# How long calls fail as unavailable, none answered, before the engine is logged as
# gone: a call that fails among others answered (one process restarting of several)
# is not an outage.
QUIET_SECONDS = 1.0

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


def _channel_count(channels: int) -> int:
    if channels < 1:
        raise ValueError(f"channels must be at least 1, got {channels}")
    return channels


def _options(channels: int) -> tuple[tuple[str, str | int], ...]:
    return CHANNEL_OPTIONS if channels == 1 else POOLED_CHANNEL_OPTIONS


def _failed(call: Call[ResultT], error: grpc.RpcError) -> ResultT:
    """What the caller of a failed call is given: the call's own answer to a failure,
    else the EngineError raised."""
    if call.failed is not None:
        return call.failed()
    _raise(error)


def _raise(error: grpc.RpcError) -> NoReturn:
    raise error_from_rpc(error) from None


class _Outages:
    """Whether the engine answers, as a client's calls find it: logs the moment it stops
    and the moment it is back, once each (see the module's doc)."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._last_answer = time.monotonic()
        self._first_failure: float | None = None
        self._failed = 0
        self._down = False

    def answered(self) -> None:
        self._last_answer = time.monotonic()
        if self._first_failure is None:
            return
        if self._down:
            log.warning(
                "the engine at %s answers again, after %.1f s; %d calls failed meanwhile",
                self.target,
                self._last_answer - self._first_failure,
                self._failed,
                extra={"engine": self.target, "failed_calls": self._failed},
            )
        self._first_failure, self._failed, self._down = None, 0, False

    def heard(self, error: grpc.RpcError) -> None:
        """A call failed: an outage if it found the engine unavailable, else the engine
        did answer (with an error status)."""
        code: grpc.StatusCode = error.code()
        if code not in _UNAVAILABLE_CODES:
            self.answered()
            return
        now = time.monotonic()
        if self._first_failure is None:
            self._first_failure = now
        self._failed += 1
        if not self._down and now - self._last_answer >= QUIET_SECONDS:
            self._down = True
            log.warning(
                "the engine at %s stopped answering (%s: %s); its calls fail until it is back",
                self.target,
                code.name,
                error.details() or "",
                extra={"engine": self.target, "code": code.name},
            )


ChannelT = TypeVar("ChannelT", aio.Channel, grpc.Channel)


class _Rpc(Generic[P, ResultT]):
    """A client's method for one of the calls above: the call its arguments describe, made
    by the client's `_run`, which waits for the reply (SyncEngineClient) or gives a
    coroutine that does (EngineClient)."""

    def __init__(self, make: Callable[P, Call[ResultT]]) -> None:
        self._make = make
        self.__doc__ = make.__doc__

    @overload
    def __get__(self, client: None, owner: type) -> Self: ...
    @overload
    def __get__(
        self, client: EngineClient, owner: type
    ) -> Callable[P, Coroutine[Any, Any, ResultT]]: ...
    @overload
    def __get__(self, client: SyncEngineClient, owner: type) -> Callable[P, ResultT]: ...
    def __get__(self, client: Any, owner: type) -> Any:
        if client is None:
            return self
        make, run = self._make, client._run

        @functools.wraps(make)
        def method(*args: P.args, **kwargs: P.kwargs) -> Any:
            return run(make(*args, **kwargs))

        return method


class _ChannelRotation(Generic[ChannelT]):
    """The channels of a client, each with its stubs by service name, and its methods:
    the calls above, made by the client's `_run`."""

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
        self._stubs: list[dict[str, Any]] = [
            {
                SERVICE_NAME: engine_pb2_grpc.EngineServiceStub(channel),
                HEALTH_SERVICE_NAME: health_pb2_grpc.HealthStub(channel),
            }
            for channel in self._channels
        ]
        self._turns: Iterator[int] = itertools.cycle(range(channels))
        self._outages = _Outages(target)

    def _method(self, index: int, call: Call[Any]) -> Any:
        """The stub method of channel `index` that makes `call`."""
        return getattr(self._stubs[index][call.service], call.method)

    list_variants = _Rpc(list_variants)
    get_variant = _Rpc(get_variant)
    new_game = _Rpc(new_game)
    legal_moves = _Rpc(legal_moves)
    apply_move = _Rpc(apply_move)
    apply_moves = _Rpc(apply_moves)
    player_view = _Rpc(player_view)
    solve = _Rpc(solve)
    hint = _Rpc(hint)
    autoplay = _Rpc(autoplay)
    engine_info = _Rpc(engine_info)
    health = _Rpc(health)

    def _deadline(self, call: Call[Any]) -> float:
        """The call's timeout (the client's unless it sets one); zero or less: one
        already passed."""
        timeout = self.timeout if call.timeout is None else call.timeout
        return timeout if timeout > 0 else _PAST_TIMEOUT


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

    async def _run(self, call: Call[ResultT]) -> ResultT:
        """Makes `call` on the less busy channel."""
        index = self._pick()
        self._in_flight[index] += 1
        try:
            reply = await self._method(index, call)(
                call.request, timeout=self._deadline(call), metadata=logs.request_id_metadata()
            )
        except grpc.RpcError as error:
            self._outages.heard(error)
            return _failed(call, error)
        finally:
            self._in_flight[index] -= 1
        self._outages.answered()
        return call.result(reply)


class SyncEngineClient(_ChannelRotation[grpc.Channel]):
    """Blocking engine client, for scripts and examples; the same methods as
    EngineClient, each call on the next channel in turn."""

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

    def _run(self, call: Call[ResultT]) -> ResultT:
        """Makes `call` on the next channel in turn."""
        try:
            reply = self._method(next(self._turns), call)(
                call.request, timeout=self._deadline(call), metadata=logs.request_id_metadata()
            )
        except grpc.RpcError as error:
            self._outages.heard(error)
            return _failed(call, error)
        self._outages.answered()
        return call.result(reply)
