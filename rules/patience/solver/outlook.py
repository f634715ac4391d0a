"""The outlook: what can still come of a game, told without a search.

:func:`outlook` answers WON (every card home), STUCK (no legal move), CYCLING or OPEN.

CYCLING: legal moves remain, but only moves between the tableau, the cells and the waste,
and they go round in circles. It is told by listing every position reachable from the
state (with the solver's model, whose moves are exactly the rules library's: the tests
hold them to it), giving up as OPEN past :data:`CYCLE_LIMIT` positions or as soon as one
of them has a move to a foundation, a deal, a redeal or a withdraw.

Why CYCLING means lost. The positions listed form a set S that holds the state and is
closed: every legal move of every position in S leads to a position in S, so every
position reachable from the state is in S. No position in S has a move to a foundation,
so no move made from any of them changes the foundations: each position in S has exactly
the state's cards on the foundations, which is not all of them (the state is not won).
So no position reachable from the state is won, and no line of play wins.

It costs next to nothing in the common case: a position with a move to a foundation, a
deal, a redeal or a withdraw among its legal moves (which the caller usually has at hand)
is OPEN without any listing. Every position of a set found closed is CYCLING too (its
reachable positions are in the set, which has no progress move), so each process
remembers the positions of the closed sets it found (the last :data:`REMEMBERED`): a game
that goes on shuttling after its first CYCLING is told so again by one look-up, not a
listing per move. The listing reads only cards the player sees (deals,
redeals and withdraws end it), so a view that shows CYCLING reveals nothing hidden.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Sequence

from ..moves import Move, MoveKind
from ..variant import RuleSet, State, rules_of
from .model import TRANSFER, Model, Position

# Positions listed at most before answering OPEN. Cycling positions of these games close
# within a few dozen positions; a larger set is almost always one with progress further on.
CYCLE_LIMIT = 300
# Positions of closed sets remembered per variant; older ones are forgotten first.
REMEMBERED = 4096


class Outlook(enum.Enum):
    OPEN = "open"  # not known to be lost
    WON = "won"  # every card is on a foundation
    STUCK = "stuck"  # no legal move
    CYCLING = "cycling"  # legal moves remain, none of them ever leads to progress


def outlook(
    state: State, legal_moves: Sequence[Move] | None = None, *, limit: int = CYCLE_LIMIT
) -> Outlook:
    """The outlook of ``state``; pass its legal moves when they are at hand already."""
    if state.foundation_cards == state.total_cards:
        return Outlook.WON
    if legal_moves is None:
        legal_moves = state.legal_moves()
    if not legal_moves:
        return Outlook.STUCK
    for move in legal_moves:
        if move.kind is not MoveKind.TRANSFER or move.target[0] == "f":
            return Outlook.OPEN
    listing = _listing_of(rules_of(state))
    return Outlook.CYCLING if listing.closes(listing.model.position(state), limit) else Outlook.OPEN


@functools.cache
def _listing_of(rules: RuleSet) -> _Listing:
    # The deal only matters to redeals that shuffle, which the listing never makes.
    return _Listing(Model(rules))


# A position as remembered across listings: its key within a listing (`_key`) with the
# foundations, stock, redeals left and draws, which a listing never changes.
_Remembered = tuple[object, ...]


class _Listing:
    """The listing for one variant (with its options), and the positions of the closed
    sets it found, most recent last."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.cycling: dict[_Remembered, None] = {}

    def closes(self, start: Position, limit: int) -> bool:
        """Whether the positions reachable from ``start`` are at most ``limit`` and none
        has a move other than a transfer between the tableau, the cells and the waste."""
        fixed = (start[2], start[3], start[5], start[6])
        start_key = _key(start)
        if (start_key, *fixed) in self.cycling:
            return True
        model = self.model
        found_base = model.found_base
        seen = {start_key}
        frontier = [start]
        while frontier:
            pos = frontier.pop()
            for move in model.legal_moves(pos):
                if move[0] != TRANSFER or move[2] >= found_base:
                    return False
                child = model.apply(pos, move)
                key = _key(child)
                if key not in seen:
                    if len(seen) >= limit:
                        return False
                    seen.add(key)
                    frontier.append(child)
        self._remember(seen, fixed)
        return True

    def _remember(
        self, closed: set[tuple[tuple[bytes, ...], bytes, bytes]], fixed: tuple[object, ...]
    ) -> None:
        cycling = self.cycling
        for key in closed:
            cycling[(key, *fixed)] = None
        for _ in range(len(cycling) - REMEMBERED):
            del cycling[next(iter(cycling))]


def _key(pos: Position) -> tuple[tuple[bytes, ...], bytes, bytes]:
    """The position up to the order of its columns and of its cells. Every position
    listed has no redeal left (a redeal would be a legal move, which ends the listing),
    so no rule tells one column from another, and positions that differ only in that
    order have the same moves, up to that order, to positions that again differ only so.
    The foundations and the stock are those of the state throughout (no move changes
    them), so only the waste is kept with the piles."""
    return tuple(sorted(pos[0])), bytes(sorted(pos[1])), pos[4]
