"""What the engine shows: the player's view of a position, and variant descriptions.

The view holds what a player at the table sees and nothing more: every card of every
pile except the stock (all of these games deal face up), the stock's size only,
status, counters and legal moves, and the deal number unless it was drawn at random
and the game is not over. Never the generator draws.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import patience
from solitaire.v1 import game_pb2

from patience_engine.codec import CARD_NAMES, Position, add_moves

_PILE_KINDS: Mapping[str, int] = {
    "tableau": game_pb2.TABLEAU,
    "reserve": game_pb2.RESERVE,
    "foundation": game_pb2.FOUNDATION,
    "stock": game_pb2.STOCK,
    "waste": game_pb2.WASTE,
}
_LAYOUTS: Mapping[str, int] = {
    "fan": game_pb2.FAN,
    "column": game_pb2.COLUMN,
    "cell": game_pb2.CELL,
    "stack": game_pb2.STACK,
}
_DIRECTIONS: Mapping[str, int] = {"up": game_pb2.UP, "down": game_pb2.DOWN}
_STATUS: Mapping[patience.Status, int] = {
    patience.Status.PLAYING: game_pb2.PLAYING,
    patience.Status.WON: game_pb2.WON,
    patience.Status.STUCK: game_pb2.STUCK,
}


def variant_message(variant: patience.Variant) -> game_pb2.Variant:
    """The Variant message built from the library's description."""
    description: dict[str, Any] = variant.describe()
    message = game_pb2.Variant(
        id=description["id"],
        name=description["name"],
        summary=description["summary"],
        packs=description["packs"],
        redeals=description["redeals"],
    )
    for pile in description["piles"]:
        message.piles.add(
            id=pile["id"],
            kind=_PILE_KINDS[pile["kind"]],
            layout=_LAYOUTS[pile["layout"]],
            suit=pile.get("suit") or "",
            direction=_DIRECTIONS.get(pile.get("direction") or "", game_pb2.DIRECTION_UNSPECIFIED),
        )
    for option in description["options"]:
        message.options.add(name=option["name"], description=option["description"])
    return message


class _Layout:
    """Per variant, built once: each pile's id and kind, in pile order."""

    __slots__ = ("piles",)

    def __init__(self, variant: patience.Variant) -> None:
        kinds = {pile["id"]: _PILE_KINDS[pile["kind"]] for pile in variant.describe()["piles"]}
        self.piles: tuple[tuple[str, int], ...] = tuple(
            (pile_id, kinds[pile_id]) for pile_id in variant.pile_ids
        )


VARIANT_MESSAGES: Mapping[str, game_pb2.Variant] = {
    variant_id: variant_message(variant) for variant_id, variant in patience.VARIANTS.items()
}
_LAYOUT_OF: Mapping[str, _Layout] = {
    variant_id: _Layout(variant) for variant_id, variant in patience.VARIANTS.items()
}


def status_of(state: patience.State, legal_moves: Sequence[patience.Move]) -> int:
    """The GameStatus, from legal moves already at hand (RULES.md: won when every card
    is on a foundation, stuck when no move is legal) rather than asking the state to
    find them again."""
    if state.foundation_cards == state.total_cards:
        return game_pb2.WON
    return game_pb2.PLAYING if legal_moves else game_pb2.STUCK


def player_view(
    position: Position, legal_moves: Sequence[patience.Move] | None = None
) -> game_pb2.PlayerView:
    """The player's view; pass the position's legal moves if they are already known."""
    view = game_pb2.PlayerView()
    fill_player_view(view, position, legal_moves)
    return view


def fill_player_view(
    view: game_pb2.PlayerView,
    position: Position,
    legal_moves: Sequence[patience.Move] | None = None,
) -> None:
    """Writes the player's view into an empty PlayerView (for example a reply's own
    field, which saves copying a finished view into it)."""
    state = position.state
    if legal_moves is None:
        legal_moves = state.legal_moves()
    status = status_of(state, legal_moves)
    view.variant = state.variant.id
    view.options.extend(sorted(state.options))
    view.status = status  # type: ignore[assignment]
    counters = view.counters
    counters.moves_made = state.moves_made
    counters.foundation_cards = state.foundation_cards
    counters.redeals_left = state.redeals_left
    counters.stock_size = state.stock_size
    counters.total_cards = state.total_cards
    if status != game_pb2.PLAYING or not position.deal_secret:
        view.deal = str(state.deal)
    add_pile = view.piles.add
    names = CARD_NAMES
    for (pile_id, kind), cards in zip(_LAYOUT_OF[state.variant.id].piles, state.piles, strict=True):
        if kind == game_pb2.STOCK:
            add_pile(id=pile_id, kind=kind, size=len(cards))
        else:
            add_pile(id=pile_id, kind=kind, cards=[names[card] for card in cards], size=len(cards))
    add_moves(view.legal_moves, legal_moves)
