"""The game operations' answers: `Reply` (status, JSON body bytes, headers), as they
give it to the HTTP layer, and its bodies, built from the engine's messages and typed
by `shapes` (which mypy checks key by key, and which the OpenAPI document publishes).

The bodies are written by hand rather than with json_format: this runs on every move,
and a direct walk over the few fields is several times faster. Only fields of the
engine's PlayerView are read, so nothing hidden (stock order, generator draws, the
sealed state) can reach a response. Repeated fields are copied with `[:]`, which makes the
list in one step where `list(...)` iterates the container.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson
from patience_contract.client import GameReply
from solitaire.v1 import engine_pb2, game_pb2

from patience_gateway.games import shapes
from patience_gateway.games.enums import (
    DIRECTION,
    GAME_STATUS,
    HINT_KIND,
    LAYOUT,
    MOVE_KIND,
    OUTLOOK,
    PILE_KIND,
    VERDICT,
)
from patience_gateway.games.preconditions import etag
from patience_gateway.records import days
from patience_gateway.records.record import GIVEN_UP
from patience_gateway.records.shapes import RecordShape


@dataclass(slots=True)
class Reply:
    """An answer ready to send: status, JSON body bytes (none for 204 and 304) and
    headers."""

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


def json_bytes(body: Mapping[str, Any]) -> bytes:
    """A body as compact JSON. orjson: a tenth of the stdlib's time on a game view. It
    refuses what the stdlib writes escaped (a lone surrogate) or at all (an integer past
    64 bits); the bodies built here hold neither, but such a body would still be
    answered, not failed."""
    try:
        return orjson.dumps(body)
    except orjson.JSONEncodeError:
        return json.dumps(body, separators=(",", ":")).encode()


def created_headers() -> dict[str, str]:
    """The headers of a new game's answer (version 1, never cached: it holds the token)."""
    return {"ETag": etag(1), "Cache-Control": "no-store"}


# Indexed by the protobuf enum numbers. Index 0 (unspecified) never comes from the
# engine; where it would, these stand for it.
_STATUS = GAME_STATUS.by_number("unspecified")
_PILE_KIND = PILE_KIND.by_number("unspecified")
_MOVE_KIND = MOVE_KIND.by_number("unspecified")
_LAYOUT = LAYOUT.by_number("unspecified")
_DIRECTION = DIRECTION.by_number(None)
# An engine that does not fill the outlook in: read from the status (`outlook_name`).
_OUTLOOK = OUTLOOK.by_number("")
# A hint with no kind tells nothing to play; a search with no verdict did not decide.
_HINT_KIND = HINT_KIND.by_number("none")
_VERDICT = VERDICT.by_number("unknown")

_PLAYING = game_pb2.GAME_STATUS_PLAYING
_OPEN = _OUTLOOK[game_pb2.OUTLOOK_OPEN]
_PROVEN_LOST = _OUTLOOK[game_pb2.OUTLOOK_LOST]
# The statuses of a game that is over.
WON = _STATUS[game_pb2.GAME_STATUS_WON]
STUCK = _STATUS[game_pb2.GAME_STATUS_STUCK]
OVER = frozenset({WON, STUCK})
# The outlooks of a game that can no longer be won.
HOPELESS = frozenset({_OUTLOOK[game_pb2.OUTLOOK_CYCLING], _PROVEN_LOST})
# The hint kinds that name a move to play (all but `lost` and `none`), and the one that
# proves the game lost.
_HINT_NO_MOVE = (
    engine_pb2.HINT_KIND_UNSPECIFIED,
    engine_pb2.HINT_KIND_LOST,
    engine_pb2.HINT_KIND_NONE,
)
_HINT_WITH_MOVE = frozenset(
    _HINT_KIND[number] for number in engine_pb2.HintKind.values() if number not in _HINT_NO_MOVE
)
HINT_LOST = _HINT_KIND[engine_pb2.HINT_KIND_LOST]


def status_name(status: int) -> str:
    return _STATUS[status]


def outlook_name(view: game_pb2.PlayerView, proven_lost: bool = False) -> str:
    """The view's outlook; `proven_lost`: a search proved this version lost, which the
    engine cannot know (it keeps nothing between calls). A game over, or cycling, says so
    rather than `lost`: that is the more telling answer."""
    name: str = _OUTLOOK[view.outlook] or (
        _OPEN if view.status == _PLAYING else _STATUS[view.status]
    )
    return _PROVEN_LOST if proven_lost and name == _OPEN else name


def visible_deal(deal: str | None, daily: str | None) -> str | None:
    """The deal number a player may be shown: a daily deal's only once its day is over
    (the engine shows a hidden number at the game's end; the day may still run)."""
    if daily is not None and not days.over(daily):
        return None
    return deal


def move_json(move: game_pb2.Move) -> shapes.Move:
    return {
        "notation": move.notation,
        "kind": _MOVE_KIND[move.kind],
        "source": move.source,
        "target": move.target,
        "count": move.count,
        "columns": move.columns[:],
    }


def moves_json(moves: Iterable[game_pb2.Move]) -> list[shapes.Move]:
    return [move_json(move) for move in moves]


def game_json(
    game_id: str,
    version: int,
    view: game_pb2.PlayerView,
    open_deal: str = "",
    *,
    record: RecordShape,
    proven_lost: bool = False,
    autoplay: bool = False,
) -> shapes.Game:
    """The game's JSON. `open_deal`: the number of a random deal whose end was taken
    back, which the view keeps showing from then on (the engine's view would hide it
    again while the game is played). `record`: the game's record (the store keeps it,
    beside the state). `proven_lost`: a hint proved this version lost. `autoplay`: the
    game's setting (the store keeps it, not the state)."""
    counters = view.counters
    return {
        "id": game_id,
        "version": version,
        "variant": view.variant,
        "options": view.options[:],
        "status": _STATUS[view.status],
        "deal": visible_deal(open_deal or view.deal or None, record["daily"]),
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
            "position": counters.moves_made,
            "foundation_cards": counters.foundation_cards,
            "redeals_left": counters.redeals_left,
            "stock_size": counters.stock_size,
            "total_cards": counters.total_cards,
        },
        # Notation only: a client sends these back as they are, and the structured
        # form (GET .../legal-moves) would triple the size and the cost of every answer.
        # A game given up (resigned, abandoned) takes no more moves: none are listed.
        "legal_moves": (
            [] if record["outcome"] in GIVEN_UP else [move.notation for move in view.legal_moves]
        ),
        "outlook": outlook_name(view, proven_lost),
        "autoplay": autoplay,
        "record": record,
    }


def created_json(game: shapes.Game, token: str | None) -> shapes.CreatedGame:
    """A new game's answer: its view and its owner token (none for a player's game: the
    player's access token opens it)."""
    return {**game, "token": token}


def hint_json(game_id: str, version: int, hint: engine_pb2.HintResponse) -> shapes.Hint:
    kind = _HINT_KIND[hint.kind]
    has_move = kind in _HINT_WITH_MOVE and hint.HasField("move")
    return {
        "id": game_id,
        "version": version,
        "kind": kind,
        "move": move_json(hint.move) if has_move else None,
        "verdict": _VERDICT[hint.verdict],
        "positions": hint.positions,
        "milliseconds": hint.milliseconds,
        "arrangements": hint.arrangements,
        "winning_arrangements": hint.winning_arrangements,
        "lost_arrangements": hint.lost_arrangements,
        "every_arrangement": hint.every_arrangement,
    }


def no_hint_json(game_id: str, version: int, proven_lost: bool) -> shapes.Hint:
    """The hint of a game given up (resigned, proven lost, abandoned): nothing to play,
    nothing searched (an empty HintResponse but for its kind and verdict)."""
    verdict = engine_pb2.VERDICT_LOST if proven_lost else engine_pb2.VERDICT_UNKNOWN
    none = engine_pb2.HintResponse(kind=engine_pb2.HINT_KIND_NONE, verdict=verdict)
    return hint_json(game_id, version, none)


def legal_moves_json(
    game_id: str, version: int, moves: Iterable[game_pb2.Move]
) -> shapes.LegalMoves:
    return {"id": game_id, "version": version, "moves": moves_json(moves)}


def move_result_json(
    game_id: str,
    version: int,
    reply: GameReply,
    open_deal: str,
    *,
    record: RecordShape,
    autoplay: bool,
) -> shapes.MoveResult:
    """A move's answer: the move, then the safe moves played with it (the game's autoplay
    setting; a redo plays a change again as it was first made)."""
    return {
        **game_json(game_id, version, reply.view, open_deal, record=record, autoplay=autoplay),
        "move": move_json(reply.applied[0]),
        "autoplayed": moves_json(reply.applied[1:]),
        "events": events_json(reply.events),
    }


def autoplay_json(
    game_id: str,
    version: int,
    reply: engine_pb2.AutoplayResponse,
    open_deal: str,
    *,
    record: RecordShape,
    proven_lost: bool,
    autoplay: bool,
) -> shapes.AutoplayResult:
    game = game_json(
        game_id,
        version,
        reply.view,
        open_deal,
        record=record,
        proven_lost=proven_lost,
        autoplay=autoplay,
    )
    return {**game, "moves": moves_json(reply.applied), "events": events_json(reply.events)}


def events_json(events: Iterable[game_pb2.CardMoved]) -> list[shapes.CardMoved]:
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


def variant_summary_json(variant: game_pb2.Variant) -> shapes.VariantSummary:
    return {
        "id": variant.id,
        "name": variant.name,
        "packs": variant.packs,
        "redeals": variant.redeals,
        "options": [{"name": o.name, "description": o.description} for o in variant.options],
    }


def variant_json(variant: game_pb2.Variant) -> shapes.Variant:
    return {
        **variant_summary_json(variant),
        "summary": variant.summary,
        "piles": [
            {
                "id": pile.id,
                "kind": _PILE_KIND[pile.kind],
                "layout": _LAYOUT[pile.layout],
                "suit": pile.suit or None,
                "direction": _DIRECTION[pile.direction],
            }
            for pile in variant.piles
        ],
    }
