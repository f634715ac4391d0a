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
from patience.solver import Outlook, outlook
from solitaire.v1 import game_pb2

from patience_engine.codec import Position
from patience_engine.encoding import SPEED_PATH, PileLayout, ReplyWriter
from patience_engine.memo import Memo

_PILE_KINDS: Mapping[str, int] = {
    "tableau": game_pb2.PILE_KIND_TABLEAU,
    "reserve": game_pb2.PILE_KIND_RESERVE,
    "foundation": game_pb2.PILE_KIND_FOUNDATION,
    "stock": game_pb2.PILE_KIND_STOCK,
    "waste": game_pb2.PILE_KIND_WASTE,
}
_LAYOUTS: Mapping[str, int] = {
    "fan": game_pb2.LAYOUT_FAN,
    "column": game_pb2.LAYOUT_COLUMN,
    "cell": game_pb2.LAYOUT_CELL,
    "stack": game_pb2.LAYOUT_STACK,
}
_DIRECTIONS: Mapping[str, int] = {"up": game_pb2.DIRECTION_UP, "down": game_pb2.DIRECTION_DOWN}
_STATUS: Mapping[patience.Status, int] = {
    patience.Status.PLAYING: game_pb2.GAME_STATUS_PLAYING,
    patience.Status.WON: game_pb2.GAME_STATUS_WON,
    patience.Status.STUCK: game_pb2.GAME_STATUS_STUCK,
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


VARIANT_MESSAGES: Mapping[str, game_pb2.Variant] = {
    variant_id: variant_message(variant) for variant_id, variant in patience.VARIANTS.items()
}


def _layout(variant: patience.Variant) -> PileLayout:
    kinds = {pile["id"]: _PILE_KINDS[pile["kind"]] for pile in variant.describe()["piles"]}
    return PileLayout.of(variant.pile_ids, [kinds[pile_id] for pile_id in variant.pile_ids])


_LAYOUT_OF: Mapping[str, PileLayout] = {
    variant_id: _layout(variant) for variant_id, variant in patience.VARIANTS.items()
}


_OUTLOOKS: Mapping[Outlook, int] = {
    Outlook.OPEN: game_pb2.OUTLOOK_OPEN,
    Outlook.WON: game_pb2.OUTLOOK_WON,
    Outlook.STUCK: game_pb2.OUTLOOK_STUCK,
    Outlook.CYCLING: game_pb2.OUTLOOK_CYCLING,
}


def status_of(state: patience.State, legal_moves: Sequence[patience.Move]) -> int:
    """The GameStatus, from legal moves already at hand (RULES.md: won when every card
    is on a foundation, stuck when no move is legal) rather than asking the state to
    find them again."""
    if state.foundation_cards == state.total_cards:
        return game_pb2.GAME_STATUS_WON
    return game_pb2.GAME_STATUS_PLAYING if legal_moves else game_pb2.GAME_STATUS_STUCK


def player_view_bytes(
    position: Position,
    legal_moves: Sequence[patience.Move] | None = None,
    writer: ReplyWriter = SPEED_PATH,
) -> bytes:
    """The serialized player's view; pass the position's legal moves if already known."""
    state = position.state
    if legal_moves is None:
        legal_moves = state.legal_moves()
    status = status_of(state, legal_moves)
    shown = status != game_pb2.GAME_STATUS_PLAYING or not position.deal_secret
    return writer.player_view(
        state,
        _LAYOUT_OF[state.variant.id],
        status=status,
        deal=str(state.deal) if shown else "",
        legal_moves=legal_moves,
        # OUTLOOK_LOST is the gateway's to set, once a search proved the game lost.
        outlook=_OUTLOOKS[outlook(state, legal_moves)],
    )


# Views by state bytes. A view is a pure function of the state, and the state a reply
# carries is the one whose view is asked for next (GetPlayerView after ApplyMove, or a
# client polling), so the view written for a reply is remembered with its state. Each
# writer has a table of its own: a process that runs the reference serves no view the
# speed path wrote.
_VIEWS: dict[ReplyWriter, Memo[bytes, bytes]] = {}
_VIEWS_PER_WRITER = 1024


def view_of_state(data: bytes, position: Position, writer: ReplyWriter = SPEED_PATH) -> bytes:
    """The serialized view of `position`, whose serialized state is `data`."""
    views = _VIEWS.get(writer)
    if views is None:
        views = _VIEWS[writer] = Memo(_VIEWS_PER_WRITER)
    view = views.get(data)
    if view is None:
        view = player_view_bytes(position, writer=writer)
        views.put(data, view)
    return view


def player_view(position: Position, writer: ReplyWriter = SPEED_PATH) -> game_pb2.PlayerView:
    """The player's view as a message."""
    return game_pb2.PlayerView.FromString(player_view_bytes(position, writer=writer))
