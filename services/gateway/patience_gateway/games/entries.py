"""A game's history as the store keeps it: one entry per change.

An entry is one change: a move, or the safe moves of an autoplay (after a move, or on
their own), kept as their notations joined by ENTRY_SEPARATOR (no notation holds it),
so that undo takes the whole change back and redo plays it again.
"""

from __future__ import annotations

from collections.abc import Iterable

from solitaire.v1 import game_pb2

ENTRY_SEPARATOR = ","
# A restart's entry: the game back at its deal (`change.restart`). Replaying a history,
# the moves before the last restart lead nowhere: the game goes on from the deal.
RESTART_ENTRY = "restart"


def entry_moves(entries: Iterable[bytes | str]) -> list[str]:
    """The moves of history entries, in order."""
    moves: list[str] = []
    for entry in entries:
        text = entry.decode() if isinstance(entry, bytes) else entry
        moves += text.split(ENTRY_SEPARATOR)
    return moves


def history_entry(applied: Iterable[game_pb2.Move]) -> str:
    """The entry of a change: the notations of the moves it applied."""
    return ENTRY_SEPARATOR.join(move.notation for move in applied)
