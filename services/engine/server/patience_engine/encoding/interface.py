"""What every reply writer offers (`ReplyWriter`), and the facts the writers share."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import patience
from solitaire.v1 import engine_pb2, game_pb2

CARD_NAMES: tuple[str, ...] = tuple(patience.card_name(code) for code in range(52))

MOVE_KINDS: dict[patience.MoveKind, int] = {
    patience.MoveKind.TRANSFER: game_pb2.MOVE_KIND_TRANSFER,
    patience.MoveKind.DEAL: game_pb2.MOVE_KIND_DEAL,
    patience.MoveKind.REDEAL: game_pb2.MOVE_KIND_REDEAL,
    patience.MoveKind.WITHDRAW: game_pb2.MOVE_KIND_WITHDRAW,
}

# The replies that carry a game after moves: they share their fields and numbers.
GameReply = type[
    engine_pb2.NewGameResponse
    | engine_pb2.ApplyMoveResponse
    | engine_pb2.ApplyMovesResponse
    | engine_pb2.AutoplayResponse
]


@dataclass(frozen=True, slots=True, eq=False)
class PileLayout:
    """A variant's piles as its view shows them, made once per variant: each pile's id
    and PileKind, and the place of the stock (shown by its size only; -1 for none).

    Compared and hashed by identity, so that a writer can remember what it derives
    from a layout at the cost of a pointer's hash."""

    pile_ids: tuple[str, ...]
    kinds: tuple[int, ...]
    stock: int

    @classmethod
    def of(cls, pile_ids: Sequence[str], kinds: Sequence[int]) -> PileLayout:
        stocks = [index for index, kind in enumerate(kinds) if kind == game_pb2.PILE_KIND_STOCK]
        return cls(tuple(pile_ids), tuple(kinds), stocks[0] if stocks else -1)


class ReplyWriter(Protocol):
    """The serialized messages the engine writes on every call. Every writer gives the
    very bytes `SerializeToString` gives for the same values; `patience_engine.encoding`
    says which writer runs."""

    name: str

    def game_state(self, state: patience.State, deal_secret: bool) -> bytes:
        """A GameState."""
        ...

    def sealed_state(self, state: bytes, seal: bytes) -> bytes:
        """A SealedState of a state's bytes (an envelope, with a key) and a seal."""
        ...

    def move_message(self, move: patience.Move) -> bytes:
        """A Move with every field filled in, notation included."""
        ...

    def player_view(
        self,
        state: patience.State,
        layout: PileLayout,
        *,
        status: int,
        deal: str,
        legal_moves: Sequence[patience.Move],
        outlook: int,
    ) -> bytes:
        """A PlayerView: every pile's cards but the stock's, which shows its size."""
        ...

    def game_response(
        self,
        reply: GameReply,
        sealed: bytes,
        view: bytes,
        applied: Sequence[patience.Move],
        events: Iterable[patience.CardMoved],
    ) -> bytes:
        """A NewGameResponse, ApplyMoveResponse, ApplyMovesResponse or AutoplayResponse
        (`reply`) of a serialized SealedState and PlayerView, the moves applied and the
        cards they moved."""
        ...

    def player_view_response(self, view: bytes) -> bytes:
        """A GetPlayerViewResponse of a serialized PlayerView."""
        ...

    def legal_moves_response(self, moves: Iterable[patience.Move]) -> bytes:
        """A ListLegalMovesResponse."""
        ...
