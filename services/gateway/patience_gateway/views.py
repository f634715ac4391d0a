"""Engine messages to the JSON the gateway sends (shapes described in `models`).

Written by hand rather than with json_format: this runs on every move and a direct
walk over the few fields is several times faster. Only fields of the engine's
PlayerView are read, so nothing hidden (stock order, generator draws, the sealed
state) can reach a response. Repeated fields are copied with `[:]`, which makes the
list in one step where `list(...)` iterates the container.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from patience_engine.client import GameReply
from solitaire.v1 import game_pb2

# Indexed by the protobuf enum numbers; index 0 (UNSPECIFIED) never comes from the engine.
_STATUS = ("unspecified", "playing", "won", "stuck")
_PILE_KIND = ("unspecified", "tableau", "reserve", "foundation", "stock", "waste")
_MOVE_KIND = ("unspecified", "transfer", "deal", "redeal", "withdraw")
_LAYOUT = ("unspecified", "fan", "column", "cell", "stack")
_DIRECTION = (None, "up", "down")

OVER = frozenset({"won", "stuck"})


def status_name(status: int) -> str:
    return _STATUS[status]


def move_json(move: game_pb2.Move) -> dict[str, Any]:
    return {
        "notation": move.notation,
        "kind": _MOVE_KIND[move.kind],
        "source": move.source,
        "target": move.target,
        "count": move.count,
        "columns": move.columns[:],
    }


def moves_json(moves: Iterable[game_pb2.Move]) -> list[dict[str, Any]]:
    return [move_json(move) for move in moves]


def game_json(
    game_id: str, version: int, view: game_pb2.PlayerView, open_deal: str = ""
) -> dict[str, Any]:
    """The game's JSON. `open_deal`: the number of a random deal whose end was taken
    back, which the view keeps showing from then on (the engine's view would hide it
    again while the game is played)."""
    counters = view.counters
    return {
        "id": game_id,
        "version": version,
        "variant": view.variant,
        "options": view.options[:],
        "status": _STATUS[view.status],
        "deal": open_deal or view.deal or None,
        "replayed": bool(open_deal),
        "piles": [
            {
                "id": pile.id,
                "kind": _PILE_KIND[pile.kind],
                "cards": pile.cards[:],
                "size": pile.size,
            }
            for pile in view.piles
        ],
        "counters": {
            "moves_made": counters.moves_made,
            "foundation_cards": counters.foundation_cards,
            "redeals_left": counters.redeals_left,
            "stock_size": counters.stock_size,
            "total_cards": counters.total_cards,
        },
        # Notation only: a client sends these back as they are, and the structured
        # form (GET .../legal-moves) would triple the size and the cost of every answer.
        "legal_moves": [move.notation for move in view.legal_moves],
    }


def move_result_json(
    game_id: str, version: int, reply: GameReply, open_deal: str = ""
) -> dict[str, Any]:
    body = game_json(game_id, version, reply.view, open_deal)
    body["move"] = move_json(reply.applied[-1])
    body["events"] = [
        {
            "card": e.card,
            "source": e.source,
            "source_index": e.source_index,
            "target": e.target,
            "target_index": e.target_index,
        }
        for e in reply.events
    ]
    return body


def variant_summary_json(variant: game_pb2.Variant) -> dict[str, Any]:
    return {
        "id": variant.id,
        "name": variant.name,
        "packs": variant.packs,
        "redeals": variant.redeals,
        "options": [{"name": o.name, "description": o.description} for o in variant.options],
    }


def variant_json(variant: game_pb2.Variant) -> dict[str, Any]:
    body = variant_summary_json(variant)
    body["summary"] = variant.summary
    body["piles"] = [
        {
            "id": pile.id,
            "kind": _PILE_KIND[pile.kind],
            "layout": _LAYOUT[pile.layout],
            "suit": pile.suit or None,
            "direction": _DIRECTION[pile.direction],
        }
        for pile in variant.piles
    ]
    return body
