"""Safe moves: foundation moves the search plays at once, without trying the others.

A move is *safe* when the position after it can be won whenever the position before it
can: playing it at once loses no win. A card X goes to a foundation F where it fits,
without a search, when:

- (R) no redeal is left, or X comes from a reserve cell. A redeal deals again what is
  left in the tableau (Little Billee and Usk in a fixed order, the La Belle Lucie family
  shuffled), so taking a card out of it changes every later deal; no move out of the
  tableau is proven safe while a redeal remains. Cells are never gathered.
- and either (D) the game has one pack, builds in suit (down, or up and down) and moves
  one card at a time (Bisley; La Belle Lucie once its redeals are used): every
  foundation move is safe;
- or (C) every card that could ever be built on X (each copy of it) is already on a
  foundation, and (T) the game has one pack, or X's twin is on a foundation, or another
  foundation of the same suit and direction wants X now.

Why (D). Take a line L that wins from the position P, and let P' be P with X on F. Play
L from P' card for card, skipping every move of a card that P' already has on a
foundation. Invariant: the foundations of P' hold every card that L's hold, and each
pile of L is the same pile of P' with, on top, some cards that P' has on its
foundations. Each move of L can be followed: a move of a card already home is skipped;
a move that puts a card Y on such a card T (home in P') puts Y next to T in its suit,
and as the pack holds one card of each kind, Y is then the next card of T's foundation
in P', where P' plays it; a move to a foundation finds the card home already or wanted
(the foundations of a suit hold a run from each end: holding more cards never makes the
next card of an end unavailable). So P' reaches the won position too.

Why (C) and (T). By (C) no card is ever put on X, so the only difference between L and
P' is X itself, wherever L moves it (a column top, the waste under newer cards, a cell);
those moves are skipped. L puts X or its twin on a foundation of its suit: if X on F,
P' is simply ahead; if the twin is home already, X can only go to F; if two
interchangeable foundations want X, L's first copy to either is matched by P' putting it
on the other. With an ace and a king foundation of a suit and the twin still out, which
copy ends at which end matters, and nothing is played at once.
"""

from __future__ import annotations

from ..building import BuildRule
from .model import DEAL, EMPTY, TRANSFER, Model, Position, SolverMove

_IN_SUIT = (BuildRule.DOWN_IN_SUIT, BuildRule.UP_OR_DOWN_IN_SUIT)


class SafeMoves:
    """The safe moves of one game."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.packs = model.total // 52
        self.every_foundation_move_safe = (
            self.packs == 1 and model.build in _IN_SUIT and not model.runs
        )
        self.has_redeal = model.redeals > 0
        self.where = model.where
        self.group_of = model.group_of

    def home(self, found: bytes, card: int) -> int:
        """How many copies of ``card`` are on the foundations."""
        return sum(1 for j, place in self.where[card] if found[j] > place)

    def is_safe(self, pos: Position, card: int, foundation: int, from_cell: bool) -> bool:
        """Whether ``card`` (which fits ``foundation``) is safe to play there now."""
        found = pos[2]
        if pos[5] > 0 and self.has_redeal and not from_cell:
            return False
        if self.every_foundation_move_safe:
            return True
        packs = self.packs
        for w in self.model.wants[card]:
            if self.home(found, w) < packs:
                return False
        if packs == 1 or self.home(found, card) >= 1:
            return True
        model = self.model
        group = model.found_groups[self.group_of[foundation]]
        return any(j != foundation and model.found_next[j][found[j]] == card for j in group)

    def settle(self, pos: Position) -> tuple[Position, list[SolverMove]]:
        """Play safe moves until none is left: the position and the moves played."""
        played: list[SolverMove] = []
        model = self.model
        fn = model.found_next
        nfound = model.nfound
        fbase = model.found_base
        while True:
            tab, cells, found, _, waste, _, _ = pos
            wanted = {fn[j][found[j]]: j for j in range(nfound - 1, -1, -1)}
            move: SolverMove | None = None
            for i, pile in enumerate(tab):
                if pile:
                    j = wanted.get(pile[-1])
                    if j is not None and self.is_safe(pos, pile[-1], j, False):
                        move = (TRANSFER, i, fbase + j, 1)
                        break
            if move is None and waste:
                j = wanted.get(waste[-1])
                if j is not None and self.is_safe(pos, waste[-1], j, False):
                    move = (TRANSFER, model.waste_index, fbase + j, 1)
            if move is None:
                for k, card in enumerate(cells):
                    if card != EMPTY:
                        j = wanted.get(card)
                        if j is not None and self.is_safe(pos, card, j, True):
                            move = (TRANSFER, model.cell_base + k, fbase + j, 1)
                            break
            if move is None:
                return pos, played
            played.append(move)
            pos = model.apply(pos, move)

    def settle_after(self, pos: Position, move: SolverMove) -> tuple[Position, list[SolverMove]]:
        """:meth:`settle` for the position that ``move`` led to from a settled one. A move
        onto a tableau pile changes no foundation, so only the card it uncovered (or, for a
        deal, the new waste card) can have become safe; other moves need the full look (a
        card moved to a reserve cell may be safe from there, where a redeal to come does
        not hold it back)."""
        kind, source, target, _ = move
        model = self.model
        if kind == TRANSFER and target < model.ntab:
            if source < model.ntab:
                pile = pos[0][source]
                if not pile:
                    return pos, []
                card = pile[-1]
            elif source == model.waste_index and pos[4]:
                card = pos[4][-1]
            else:
                return pos, []
        elif kind == DEAL:
            card = pos[4][-1]
        else:
            return self.settle(pos)
        found = pos[2]
        fn = model.found_next
        for j in range(model.nfound):
            if fn[j][found[j]] == card and self.is_safe(pos, card, j, False):
                return self.settle(pos)
        return pos, []
