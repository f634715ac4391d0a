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
from solitaire.v1 import engine_pb2, game_pb2

# Indexed by the protobuf enum numbers; index 0 (UNSPECIFIED) never comes from the engine.
_STATUS = ("unspecified", "playing", "won", "stuck")
_PILE_KIND = ("unspecified", "tableau", "reserve", "foundation", "stock", "waste")
_MOVE_KIND = ("unspecified", "transfer", "deal", "redeal", "withdraw")
_LAYOUT = ("unspecified", "fan", "column", "cell", "stack")
_DIRECTION = (None, "up", "down")
# Outlook by enum number; index 0 (an engine that does not fill the field in) is read
# from the status instead (`outlook_name`).
_OUTLOOK = ("", "open", "won", "stuck", "cycling", "lost")
_HINT_KIND = ("none", "winning", "best-effort", "lost", "none")
_VERDICT = ("unknown", "won", "lost", "unknown")

OVER = frozenset({"won", "stuck"})


def status_name(status: int) -> str:
    return _STATUS[status]


def outlook_name(view: game_pb2.PlayerView, proven_lost: bool = False) -> str:
    """The view's outlook; `proven_lost`: a search proved this version lost, which the
    engine cannot know (it keeps nothing between calls). A game over, or cycling, says so
    rather than `lost`: that is the more telling answer."""
    name = _OUTLOOK[view.outlook] or ("open" if view.status == 1 else _STATUS[view.status])
    return "lost" if proven_lost and name == "open" else name


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
    game_id: str,
    version: int,
    view: game_pb2.PlayerView,
    open_deal: str = "",
    *,
    proven_lost: bool = False,
    autoplay: bool = False,
) -> dict[str, Any]:
    """The game's JSON. `open_deal`: the number of a random deal whose end was taken
    back, which the view keeps showing from then on (the engine's view would hide it
    again while the game is played). `proven_lost`: a hint proved this version lost.
    `autoplay`: the game's setting (the store keeps it, not the state)."""
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
        "outlook": outlook_name(view, proven_lost),
        "autoplay": autoplay,
    }


def hint_json(game_id: str, version: int, hint: engine_pb2.HintResponse) -> dict[str, Any]:
    kind = _HINT_KIND[hint.kind]
    has_move = kind in ("winning", "best-effort") and hint.HasField("move")
    return {
        "id": game_id,
        "version": version,
        "kind": kind,
        "move": move_json(hint.move) if has_move else None,
        "verdict": _VERDICT[hint.verdict],
        "positions": hint.positions,
        "milliseconds": hint.milliseconds,
    }


def move_result_json(
    game_id: str, version: int, reply: GameReply, open_deal: str = "", *, autoplay: bool = False
) -> dict[str, Any]:
    """A move's answer: the move, then the safe moves played with it (the game's autoplay
    setting; a redo plays a change again as it was first made)."""
    body = game_json(game_id, version, reply.view, open_deal, autoplay=autoplay)
    body["move"] = move_json(reply.applied[0])
    body["autoplayed"] = moves_json(reply.applied[1:])
    body["events"] = events_json(reply.events)
    return body


def autoplay_json(
    game_id: str,
    version: int,
    reply: engine_pb2.AutoplayResponse,
    open_deal: str = "",
    *,
    proven_lost: bool = False,
    autoplay: bool = False,
) -> dict[str, Any]:
    body = game_json(
        game_id, version, reply.view, open_deal, proven_lost=proven_lost, autoplay=autoplay
    )
    body["moves"] = moves_json(reply.applied)
    body["events"] = events_json(reply.events)
    return body


def events_json(events: Iterable[game_pb2.CardMoved]) -> list[dict[str, Any]]:
    return [
        {
            "card": e.card,
            "source": e.source,
            "source_index": e.source_index,
            "target": e.target,
            "target_index": e.target_index,
        }
        for e in events
    ]


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
