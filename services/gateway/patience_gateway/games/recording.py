"""What a change does to the game's record, and what it reports to a player's records.

Each change computes the game's next record before it is written (`next_record`): its
counts and times, and its close when the change ends the game (won or stuck). The
record is written with the change, in its one script call; the change's answer carries
it. A player's game that ends also leaves an entry in its outbox (`ended_entry`), in
the same script call, which the drain carries to PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence

from solitaire.v1 import game_pb2

from patience_gateway.games import views
from patience_gateway.games.deps import OwnedGame
from patience_gateway.records.entries import ENDED, STARTED, Entry, GameFacts
from patience_gateway.records.record import MOVE, STUCK, WON, GameRecord

_ENDS = {views.WON: WON, views.STUCK: STUCK}


def next_record(
    game: OwnedGame,
    kind: str,
    now_ms: int,
    view: game_pb2.PlayerView | None = None,
    applied: Sequence[game_pb2.Move] = (),
) -> GameRecord:
    """The record after a change of `kind` (records.record: MOVE, AUTOPLAY, UNDO, REDO,
    RESTART) that leads to `view`; `applied`: the moves a move applied (the player's,
    then any safe moves played with it)."""
    if kind == MOVE and applied:
        first = applied[0].kind
        record = game.record.changed(
            kind,
            now_ms,
            moves=1,
            redeals=int(first == game_pb2.MOVE_KIND_REDEAL),
            deals=int(first == game_pb2.MOVE_KIND_DEAL),
            autoplayed=len(applied) > 1,
        )
    else:
        record = game.record.changed(kind, now_ms)
    if view is not None:
        ending = _ENDS.get(views.status_name(view.status))
        if ending is not None:
            record = record.ended(ending, now_ms)
    return record


def facts_of(
    game: OwnedGame, view: game_pb2.PlayerView, open_deal: str, *, claimed: bool = False
) -> GameFacts:
    """What an outbox entry says of the game, from its view: the deal number when the
    player may know it (chosen, or shown at the end)."""
    return GameFacts(
        game.id,
        game.owner,
        view.variant,
        list(view.options),
        game.category,
        open_deal or view.deal or None,
        claimed=claimed,
        replayed=bool(open_deal),
        daily=game.loaded.daily or None,
    )


def ended_entry(
    game: OwnedGame, record: GameRecord, view: game_pb2.PlayerView, open_deal: str = ""
) -> bytes:
    """The outbox entry of a player's game whose record this change closes; b""
    otherwise (an anonymous game, or a record that stays open or closed before)."""
    if not game.owner or not record.finished or game.record.finished:
        return b""
    return Entry(ENDED, facts_of(game, view, open_deal), record).encode()


def started_entry(facts: GameFacts, record: GameRecord) -> bytes:
    return Entry(STARTED, facts, record).encode()
