"""Each of the engine's RPCs once, as both clients make it (`patience_contract.client`):
the request built from the caller's arguments, and what the caller is given of the
reply. A client's method is the function of the same name here, run by that client."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from google.protobuf.message import Message
from grpc_health.v1 import health_pb2
from solitaire.v1 import engine_pb2, game_pb2

SERVICE_NAME = "solitaire.v1.EngineService"
HEALTH_SERVICE_NAME = "grpc.health.v1.Health"

MoveLike = str | game_pb2.Move
ResultT = TypeVar("ResultT")


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
