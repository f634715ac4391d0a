"""The Engine service: each RPC reads its state, asks the rules library, answers.

Every handler is wrapped by `_rpc` (a plain function, or a coroutine function, with the
call's context, for those that wait on a search process), which turns a `Rejected` into
the rich error status of docs/errors.md (said on the call's span too, where the engine
traces) and any other exception into a bare INTERNAL (logged here, never shown to the
client), and times the call into the service's metrics by method and status code
(`patience_engine.metrics`). While the call is served, the request id its caller sent
(the metadata `request-id`) is every log line's `request_id`, and at debug level the
call has a line of its own: method, status code, refusal reason, time taken. Handlers
return the reply already serialized, by the service's writer
(`patience_engine.encoding`: the speed path, or the reference with
PATIENCE_SPEED_PATHS=off); `add_to_server` registers them so.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import inspect
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import grpc
import patience
from grpc import aio
from patience.solver import continue_line, safe_foundation_moves
from patience_contract import logs, tracing
from patience_contract.errors import Reason, Rejected
from solitaire.v1 import engine_pb2, game_pb2

from patience_engine import hint_plans
from patience_engine.codec import (
    Position,
    decode_move,
    decode_state,
    echo,
    encode_state,
    parse_deal,
)
from patience_engine.encoding import SPEED_PATH, GameReply, ReplyWriter
from patience_engine.hint_answers import HintAnswers, position_key
from patience_engine.metrics import EngineMetrics
from patience_engine.sealing import Sealer
from patience_engine.search_budgets import HINT_LIMITS, SOLVE_LIMITS, SearchLimits, time_to_answer
from patience_engine.search_jobs import SearchJob
from patience_engine.search_replies import hint_reply, hint_response
from patience_engine.searches import SearchPool, SearchProcessDied
from patience_engine.views import VARIANT_MESSAGES, view_of_state

log = logging.getLogger("patience_engine")

SERVICE_NAME: str = engine_pb2.DESCRIPTOR.services_by_name["EngineService"].full_name
# More moves than this in one request are refused: a whole game is a few hundred.
MAX_BATCH_MOVES = 10_000

# A handler gives the reply's bytes: (service, request) -> bytes, or, for one that waits
# on a search process, (service, request, context) -> Awaitable[bytes].
_Handler = Callable[..., Any]


def _rpc(handler: _Handler) -> Callable[[EngineService, Any, aio.ServicerContext], Any]:
    name = handler.__name__
    waits = inspect.iscoroutinefunction(handler)

    @functools.wraps(handler)
    async def method(self: EngineService, request: Any, context: aio.ServicerContext) -> Any:
        start = time.perf_counter()
        request_id = logs.request_id.set(logs.request_id_of(context.invocation_metadata()))
        try:
            try:
                reply = await handler(self, request, context) if waits else handler(self, request)
            except asyncio.CancelledError:  # the caller went away, or its deadline passed
                _answered(self, name, grpc.StatusCode.CANCELLED.name, start)
                raise
            except Exception as error:
                status = await _refusal(self, name, error, context, start)
            else:
                _answered(self, name, "OK", start)
                return reply
            await context.abort_with_status(status)
        finally:
            logs.request_id.reset(request_id)

    return method


def _answered(service: EngineService, name: str, code: str, start: float, reason: str = "") -> None:
    """Counts the call into the metrics, and logs its line at debug level."""
    seconds = time.perf_counter() - start
    service.metrics.rpc(name, code, seconds)
    if log.isEnabledFor(logging.DEBUG):
        line = {"rpc": name, "code": code, "duration_ms": round(seconds * 1000, 3)}
        if reason:
            line["reason"] = reason
        log.debug("%s %s%s", name, code, f" {reason}" if reason else "", extra=line)


async def _refusal(
    service: EngineService,
    name: str,
    error: Exception,
    context: aio.ServicerContext,
    start: float,
) -> Any:
    """The status a handler's refusal answers with, counted; any other error aborts the
    call with INTERNAL (and raises)."""
    if isinstance(error, Rejected):
        service.metrics.refused(name, error.reason)
        _answered(service, name, error.code.name, start, error.reason)
        tracing.refused_call(error.code, error.message)
        return error.to_status()
    # The traceback only at debug level: its text could quote a state.
    log.error("internal error in %s: %s", name, type(error).__name__)
    log.debug("internal error in %s", name, exc_info=error)
    _answered(service, name, grpc.StatusCode.INTERNAL.name, start)
    await context.abort(grpc.StatusCode.INTERNAL, "internal error")
    raise error  # not reached: abort raises


class EngineService:
    """The stateless engine: the same request always gets the same answer (random
    deals aside)."""

    def __init__(
        self,
        sealer: Sealer,
        searches: SearchPool,
        *,
        writer: ReplyWriter = SPEED_PATH,
        max_batch_moves: int = MAX_BATCH_MOVES,
        metrics: EngineMetrics | None = None,
        hint_seconds: float = HINT_LIMITS.default_seconds,
    ) -> None:
        self._sealer = sealer
        self.metrics = metrics or EngineMetrics()
        self._searches = searches
        self._hints = HintAnswers(self.metrics)
        # a hint's time when its request names none (ENGINE_HINT_MILLISECONDS)
        self._hint_limits = dataclasses.replace(HINT_LIMITS, default_seconds=hint_seconds)
        self.writer = writer
        self._max_batch_moves = max_batch_moves
        self._variants = engine_pb2.ListVariantsResponse(
            variants=VARIANT_MESSAGES.values()
        ).SerializeToString()
        self._variant = {
            name: engine_pb2.GetVariantResponse(variant=message).SerializeToString()
            for name, message in VARIANT_MESSAGES.items()
        }
        self._info = engine_pb2.GetEngineInfoResponse(
            state_protection=(
                engine_pb2.STATE_PROTECTION_SEALED
                if sealer.enabled
                else engine_pb2.STATE_PROTECTION_NONE
            ),
            seal_key_id=sealer.key_id,
            seal_key_ids=sealer.key_ids,
        ).SerializeToString()

    @_rpc
    def GetEngineInfo(self, request: engine_pb2.GetEngineInfoRequest) -> bytes:
        return self._info

    # ----------------------------------------------------------------- variants

    @_rpc
    def ListVariants(self, request: engine_pb2.ListVariantsRequest) -> bytes:
        return self._variants

    @_rpc
    def GetVariant(self, request: engine_pb2.GetVariantRequest) -> bytes:
        return self._variant[_variant_named(request.name).id]

    # ----------------------------------------------------------------- games

    @_rpc
    def NewGame(self, request: engine_pb2.NewGameRequest) -> bytes:
        variant = _variant_named(request.variant)
        options = tuple(request.options)
        for option in options:
            if option not in variant.options:
                raise Rejected(
                    Reason.UNKNOWN_OPTION,
                    f"{variant.id} has no option {echo(option)!r}; "
                    f"it has: {', '.join(variant.options) or 'none'}",
                    option=echo(option),
                )
        deal: int | None = None
        if request.deal:
            deal = parse_deal(request.deal)
            if deal is None:
                raise _bad_deal(
                    request.deal, "a deal number is a whole number from 0 to 10^20 in digits"
                )
        try:
            state = variant.new_game(deal, options)
        except patience.BadDealNumber as error:
            raise _bad_deal(request.deal, str(error)) from None
        return self._play(
            Position(state, deal_secret=deal is None or request.hide_deal),
            request.moves,
            batch=True,
            reply=engine_pb2.NewGameResponse,
        )

    @_rpc
    def ListLegalMoves(self, request: engine_pb2.ListLegalMovesRequest) -> bytes:
        position = self._position(request.state)
        return self.writer.legal_moves_response(position.state.legal_moves())

    @_rpc
    def ApplyMove(self, request: engine_pb2.ApplyMoveRequest) -> bytes:
        position = self._position(request.state)
        return self._play(
            position, (request.move,), batch=False, reply=engine_pb2.ApplyMoveResponse
        )

    @_rpc
    def ApplyMoves(self, request: engine_pb2.ApplyMovesRequest) -> bytes:
        position = self._position(request.state)
        return self._play(position, request.moves, batch=True, reply=engine_pb2.ApplyMovesResponse)

    @_rpc
    def GetPlayerView(self, request: engine_pb2.GetPlayerViewRequest) -> bytes:
        data = self._state_bytes(request.state)
        view = view_of_state(data, decode_state(data, trusted=self._sealer.enabled), self.writer)
        return self.writer.player_view_response(view)

    @_rpc
    def Autoplay(self, request: engine_pb2.AutoplayRequest) -> bytes:
        position = self._position(request.state)
        return self._apply(
            position,
            safe_foundation_moves(position.state),
            batch=True,
            reply=engine_pb2.AutoplayResponse,
        )

    # ----------------------------------------------------------------- searches

    @_rpc
    async def Solve(self, request: engine_pb2.SolveRequest, context: aio.ServicerContext) -> bytes:
        data = self._state_bytes(request.state)
        decode_state(data, trusted=self._sealer.enabled)  # refuse a bad state here
        return await self._search("solve", data, request.budget, context, SOLVE_LIMITS)

    @_rpc
    async def Hint(self, request: engine_pb2.HintRequest, context: aio.ServicerContext) -> bytes:
        data = self._state_bytes(request.state)
        state = decode_state(data, trusted=self._sealer.enabled).state  # a bad state: refused
        legal = state.legal_moves()
        if not legal:  # the game is over: nothing to search
            return hint_reply(state, 0, 0.0, _never, self.writer)
        avoid: tuple[bytes, ...] = ()
        if request.plan:
            previous = hint_plans.open_plan(self._sealer, request.plan, state)
            continued = None if previous is None else continue_line(state, previous, legal)
            if continued is not None:  # the next move of the previous hint's line
                self.metrics.hint_answered("continued")
                reply = hint_response(continued, self.writer, request.plan)
                return reply.SerializeToString()
            avoid = () if previous is None else previous.avoid
        limits = self._hint_limits
        budget = limits.budget(request.budget.max_positions, request.budget.max_milliseconds)

        async def search() -> bytes:
            searched = await self._search(
                "hint", data, request.budget, context, limits, avoid=avoid
            )
            reply = engine_pb2.HintResponse.FromString(searched)
            if not reply.plan:
                return searched
            reply.plan = hint_plans.seal(self._sealer, reply.plan)
            return reply.SerializeToString()

        if avoid:  # a search of this game's own, after a lone move: nothing to share
            return await search()
        return await self._hints.answer(position_key(state), budget, search)

    async def _search(
        self,
        kind: str,
        data: bytes,
        budget: engine_pb2.SearchBudget,
        context: aio.ServicerContext,
        limits: SearchLimits,
        *,
        avoid: tuple[bytes, ...] = (),
    ) -> bytes:
        """Hands a search of the state ``data`` (its seal opened, the state checked) to a
        search process."""
        positions, seconds = limits.budget(budget.max_positions, budget.max_milliseconds)
        deadline = time.monotonic() + time_to_answer(context.time_remaining())
        trace = tuple(tracing.carrier().items())
        job = SearchJob(
            kind, data, positions, seconds, deadline, trace, avoid, logs.request_id.get()
        )
        try:
            return await self._searches.run(job)
        except SearchProcessDied as error:
            # The process died under the search (killed, out of memory): the process
            # that replaced it takes the search once more, while the deadline allows.
            failed = error
        if time.monotonic() < deadline:
            try:
                return await self._searches.run(job)
            except SearchProcessDied as error:
                failed = error
        raise Rejected(
            Reason.SEARCH_FAILED,
            f"the {kind} was not answered: {failed}; try again later",
        ) from None

    # ----------------------------------------------------------------- helpers

    def _state_bytes(self, sealed: game_pb2.SealedState) -> bytes:
        """The request's state bytes, their seal checked."""
        if not sealed.state:
            raise Rejected(Reason.MISSING_FIELD, "the request carries no state", field="state")
        return self._sealer.unseal(sealed)

    def _position(self, sealed: game_pb2.SealedState) -> Position:
        # With a key, a state that opens was written by an engine holding it, which
        # validated it then: it is read on trust (codec module docstring).
        return decode_state(self._state_bytes(sealed), trusted=self._sealer.enabled)

    def _play(
        self,
        position: Position,
        messages: Sequence[game_pb2.Move],
        *,
        batch: bool,
        reply: GameReply,
    ) -> bytes:
        """Applies the moves in order, all or none, and writes the reply (`reply`)."""
        if len(messages) > self._max_batch_moves:
            raise Rejected(
                Reason.TOO_MANY_MOVES,
                f"{len(messages)} moves in one request; at most {self._max_batch_moves} are taken",
                limit=str(self._max_batch_moves),
                count=str(len(messages)),
            )
        # Read every move before applying any, so a malformed request is refused as
        # such whatever the state.
        moves = [
            decode_move(message, index=index if batch else None)
            for index, message in enumerate(messages)
        ]
        return self._apply(position, moves, batch=batch, reply=reply)

    def _apply(
        self,
        position: Position,
        moves: Sequence[patience.Move],
        *,
        batch: bool,
        reply: GameReply,
    ) -> bytes:
        """Applies library moves in order, all or none, and writes the game reply."""
        state = position.state
        events: list[patience.CardMoved] = []
        for index, move in enumerate(moves):
            try:
                state, moved = state.apply_with_events(move)
            except patience.IllegalMove as error:
                raise _illegal(move, error, index if batch else None) from None
            events.extend(moved)
        after = Position(state, position.deal_secret)
        writer = self.writer
        data = encode_state(after, writer)
        return writer.game_response(
            reply,
            writer.sealed_state(self._sealer.wrap(data), b""),
            view_of_state(data, after, writer),
            moves,
            events,
        )


def add_to_server(service: EngineService, server: aio.Server) -> None:
    """Registers the service's handlers; their replies are bytes already, so gRPC
    sends them as they are."""
    requests: dict[str, Any] = {
        "ListVariants": engine_pb2.ListVariantsRequest,
        "GetVariant": engine_pb2.GetVariantRequest,
        "NewGame": engine_pb2.NewGameRequest,
        "ListLegalMoves": engine_pb2.ListLegalMovesRequest,
        "ApplyMove": engine_pb2.ApplyMoveRequest,
        "ApplyMoves": engine_pb2.ApplyMovesRequest,
        "GetPlayerView": engine_pb2.GetPlayerViewRequest,
        "GetEngineInfo": engine_pb2.GetEngineInfoRequest,
        "Solve": engine_pb2.SolveRequest,
        "Hint": engine_pb2.HintRequest,
        "Autoplay": engine_pb2.AutoplayRequest,
    }
    handlers = {
        name: grpc.unary_unary_rpc_method_handler(
            getattr(service, name),
            request_deserializer=request.FromString,
            response_serializer=None,
        )
        for name, request in requests.items()
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    server.add_registered_method_handlers(SERVICE_NAME, handlers)


def _never() -> bool:
    return False


def _variant_named(name: str) -> patience.Variant:
    if not name:
        raise Rejected(Reason.MISSING_FIELD, "the request names no variant", field="variant")
    variant = patience.VARIANTS.get(name)
    if variant is None:
        raise Rejected(
            Reason.UNKNOWN_VARIANT,
            f"no variant {echo(name)!r}; known: {', '.join(patience.VARIANTS)}",
            variant=echo(name),
        )
    return variant


def _bad_deal(text: str, why: str) -> Rejected:
    return Rejected(
        Reason.BAD_DEAL_NUMBER,
        f"bad deal number {echo(text)!r}: {why}",
        deal=echo(text),
    )


def _illegal(move: patience.Move, error: patience.IllegalMove, index: int | None) -> Rejected:
    metadata = {"rule": error.rule, "move": str(move)}
    where = ""
    if index is not None:
        metadata["index"] = str(index)
        where = f" (move {index + 1} of the batch)"
    return Rejected(Reason.ILLEGAL_MOVE, f"{move} is not allowed{where}: {error}", **metadata)
