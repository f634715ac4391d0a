"""The reference writer: the engine's replies built with the generated protobuf classes
and serialized by protobuf itself. The plain code the speed path must equal, byte for
byte, and what the engine runs with PATIENCE_SPEED_PATHS=off."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import patience
from solitaire.v1 import engine_pb2, game_pb2

from patience_engine.encoding.interface import CARD_NAMES, MOVE_KINDS, GameReply, PileLayout


def _move(move: patience.Move) -> game_pb2.Move:
    return game_pb2.Move(
        kind=game_pb2.MoveKind.ValueType(MOVE_KINDS[move.kind]),
        source=move.source,
        target=move.target,
        count=move.count,
        columns=move.columns,
        notation=str(move),
    )


def _event(event: patience.CardMoved) -> game_pb2.CardMoved:
    return game_pb2.CardMoved(
        card=CARD_NAMES[event.card],
        source=event.source,
        source_index=event.source_index,
        target=event.target,
        target_index=event.target_index,
    )


def _pile_view(
    pile_id: str, kind: int, cards: tuple[int, ...], is_stock: bool
) -> game_pb2.PileView:
    return game_pb2.PileView(
        id=pile_id,
        kind=game_pb2.PileKind.ValueType(kind),
        cards=() if is_stock else [CARD_NAMES[card] for card in cards],
        size=len(cards),
    )


class ReferenceWriter:
    """The ReplyWriter made of protobuf messages and `SerializeToString`."""

    name = "reference"

    def game_state(self, state: patience.State, deal_secret: bool) -> bytes:
        return game_pb2.GameState(
            variant=state.variant.id,
            options=sorted(state.options),
            piles=[game_pb2.PileCards(cards=bytes(pile)) for pile in state.piles],
            redeals_left=state.redeals_left,
            moves_made=state.moves_made,
            deal=str(state.deal),
            deal_secret=deal_secret,
            draws=state.draws,
        ).SerializeToString()

    def sealed_state(self, state: bytes, seal: bytes) -> bytes:
        return game_pb2.SealedState(state=state, seal=seal).SerializeToString()

    def move_message(self, move: patience.Move) -> bytes:
        return _move(move).SerializeToString()

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
        view = game_pb2.PlayerView(
            variant=state.variant.id,
            options=sorted(state.options),
            piles=[
                _pile_view(pile_id, kind, cards, index == layout.stock)
                for index, (pile_id, kind, cards) in enumerate(
                    zip(layout.pile_ids, layout.kinds, state.piles, strict=True)
                )
            ],
            status=game_pb2.GameStatus.ValueType(status),
            counters=game_pb2.Counters(
                moves_made=state.moves_made,
                foundation_cards=state.foundation_cards,
                redeals_left=state.redeals_left,
                stock_size=state.stock_size,
                total_cards=state.total_cards,
            ),
            legal_moves=[_move(move) for move in legal_moves],
            deal=deal,
            outlook=game_pb2.Outlook.ValueType(outlook),
        )
        view.counters.SetInParent()  # a view always carries its counters, even all zero
        return view.SerializeToString()

    def game_response(
        self,
        reply: GameReply,
        sealed: bytes,
        view: bytes,
        applied: Sequence[patience.Move],
        events: Iterable[patience.CardMoved],
    ) -> bytes:
        message = reply(
            state=game_pb2.SealedState.FromString(sealed),
            view=game_pb2.PlayerView.FromString(view),
            applied=[_move(move) for move in applied],
            events=[_event(event) for event in events],
        )
        # A reply always carries its state and view, even empty ones.
        message.state.SetInParent()
        message.view.SetInParent()
        return message.SerializeToString()

    def player_view_response(self, view: bytes) -> bytes:
        message = engine_pb2.GetPlayerViewResponse(view=game_pb2.PlayerView.FromString(view))
        message.view.SetInParent()
        return message.SerializeToString()

    def legal_moves_response(self, moves: Iterable[patience.Move]) -> bytes:
        return engine_pb2.ListLegalMovesResponse(
            moves=[_move(move) for move in moves]
        ).SerializeToString()
