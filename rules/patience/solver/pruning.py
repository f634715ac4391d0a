"""Which legal moves the search tries, and in what order.

**Moves never tried**, each because another move (or no move) does at least as well:

- a card to an empty reserve cell other than the first: cells are interchangeable, so
  the positions differ only in the order of the cells, which the key ignores;
- to the second of two foundations of the same suit and direction that both want the
  card (two-pack games): the same position under the key;
- while the columns are interchangeable (the game has no redeal, or none is left: a
  redeal gathers the piles in their order): a card to an empty column other than the
  first, and a pile's only card, or a run that is its whole pile, to an empty column
  (the same position under the key);
- in games where an empty pile is never refilled, while the columns are interchangeable:
  a pile's only card onto another pile. Staying put does as well: from the position
  with the card left alone, every line from the position after the move can be played
  card for card, the card and whatever is later built on it simply staying in its own
  pile, and the card it would have covered staying uncovered (nothing can use the
  emptied pile).

**Order** (the search finds wins sooner; it does not change what is proven): to the
foundations; onto other piles, those that uncover a card that the foundations want
first, then a card that can move on, then an emptied pile where empty piles take
cards, short piles first, cards from the waste among the first; to an empty pile; to
a reserve cell (by the same order); deal; redeal; withdraw. For the other searches beside
the first (search.py): ``RedealFirst``, the same with the redeal first, and
``Reversed``, with the moves other than to the foundations and deal, redeal and
withdraw in the reverse order.
"""

from __future__ import annotations

from collections.abc import Callable

from .model import EMPTY, REDEAL_MOVE, TRANSFER, Model, Position, SolverMove


class MoveChooser:
    """The moves worth trying in each position of one game, best first."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.has_redeal = model.redeals > 0
        self.never_fill = not model.fills
        self.ncells = model.ncells
        self.runs = model.runs
        self.group_of = model.group_of
        self.parents = model.parents
        self._found_wants: dict[bytes, dict[int, tuple[int, ...]]] = {}

    def __call__(self, pos: Position) -> list[SolverMove]:
        """The legal moves worth trying, best first: to the foundations, onto other
        piles, to an empty pile, to a reserve cell, deal, redeal, withdraw."""
        model = self.model
        tab, cells, found, _, waste, redeals, _ = pos
        if sum(found) == model.total:
            return []
        fixed = redeals == 0 or not self.has_redeal
        fw = self._found_wants.get(found)
        if fw is None:
            fw = self._wants_of(found)
        parents = self.parents
        on_top: dict[int, tuple[int, ...]] = {}
        empties: list[int] = []
        for i, pile in enumerate(tab):
            if pile:
                c = pile[-1]
                known = on_top.get(c)
                on_top[c] = (i,) if known is None else (*known, i)
            else:
                empties.append(i)
        if self.never_fill:
            empties = []
        elif fixed and empties:
            empties = empties[:1]
        from_tableau = model.takes_from_tableau
        sole_moves = not (fixed and self.never_fill)
        first_cell = -1
        if self.ncells:
            first_cell = cells.find(EMPTY)
            if first_cell >= 0:
                first_cell += model.cell_base
        to_found: list[SolverMove] = []
        builds: list[tuple[int, SolverMove]] = []
        to_empty: list[SolverMove] = []
        to_cell: list[tuple[int, SolverMove]] = []
        uncovers = self._uncovers
        for i, pile in enumerate(tab):
            if not pile:
                continue
            c = pile[-1]
            targets = fw.get(c)
            if targets:
                for t in targets:
                    to_found.append((TRANSFER, i, t, 1))
            size = len(pile)
            score = -1
            if sole_moves or size > 1:
                for parent in parents[c]:
                    piles = on_top.get(parent)
                    if piles:
                        if score < 0:
                            score = uncovers(pile, size - 1, fw, on_top)
                        for t in piles:
                            builds.append((score, (TRANSFER, i, t, 1)))
            if empties and c in from_tableau:
                for t in empties:
                    if t != i and (not fixed or size > 1):
                        to_empty.append((TRANSFER, i, t, 1))
            if first_cell >= 0:
                if score < 0:
                    score = uncovers(pile, size - 1, fw, on_top)
                to_cell.append((score, (TRANSFER, i, first_cell, 1)))
            if self.runs and size > 1 and c in model.fits[pile[-2]]:
                self._run_moves(i, pile, on_top, empties, fixed, fw, builds, to_empty)
        if self.ncells:
            cbase = model.cell_base
            for k, c in enumerate(cells):
                if c != EMPTY:
                    targets = fw.get(c)
                    if targets:
                        for t in targets:
                            to_found.append((TRANSFER, cbase + k, t, 1))
        if waste:
            w = model.waste_index
            c = waste[-1]
            targets = fw.get(c)
            if targets:
                for t in targets:
                    to_found.append((TRANSFER, w, t, 1))
            for parent in parents[c]:
                piles = on_top.get(parent)
                if piles:
                    for t in piles:
                        builds.append((_FROM_WASTE, (TRANSFER, w, t, 1)))
            if empties and c in model.takes_from_waste:
                for t in empties:
                    to_empty.append((TRANSFER, w, t, 1))
        out = to_found
        if builds:
            builds.sort(key=_first, reverse=True)
            out += [move for _, move in builds]
        out += to_empty
        if to_cell:
            to_cell.sort(key=_first, reverse=True)
            out += [move for _, move in to_cell]
        out.extend(model.other_moves(pos))
        return out

    def _uncovers(
        self,
        pile: bytes,
        rest: int,
        fw: dict[int, tuple[int, ...]],
        on_top: dict[int, tuple[int, ...]],
    ) -> int:
        """How promising it is to take cards off ``pile`` down to ``rest`` cards, by what
        that uncovers: a card the foundations want, then a card that can move on, then an
        emptied pile (where empty piles are of use), then anything else; short piles
        first. (Cards from the waste rank among the first: the stock moves on.)"""
        if rest == 0:
            return 0 if self.never_fill else 70
        uncovered = pile[rest - 1]
        if uncovered in fw:
            return 100 - rest
        for parent in self.parents[uncovered]:
            if parent in on_top:
                return 50 - rest
        return 30 - rest

    def _run_moves(
        self,
        source: int,
        pile: bytes,
        on_top: dict[int, tuple[int, ...]],
        empties: list[int],
        fixed: bool,
        fw: dict[int, tuple[int, ...]],
        builds: list[tuple[int, SolverMove]],
        to_empty: list[SolverMove],
    ) -> None:
        """Usk's runs of two cards or more (a run never goes to a foundation)."""
        fits = self.model.fits
        heads_to_empty = self.model.takes_from_tableau
        parents = self.parents
        size = len(pile)
        for count in range(2, size + 1):
            head = pile[size - count]
            if pile[size - count + 1] not in fits[head]:
                return
            for parent in parents[head]:
                for t in on_top.get(parent, ()):
                    score = self._uncovers(pile, size - count, fw, on_top)
                    builds.append((score, (TRANSFER, source, t, count)))
            if empties and head in heads_to_empty:
                for t in empties:
                    if t != source and (not fixed or count < size):
                        to_empty.append((TRANSFER, source, t, count))

    def _wants_of(self, found: bytes) -> dict[int, tuple[int, ...]]:
        """Card -> the foundations (piles) that take it now, one per interchangeable group."""
        model = self.model
        fn = model.found_next
        fbase = model.found_base
        group_of = self.group_of
        wants: dict[int, tuple[int, ...]] = {}
        for j in range(model.nfound):
            card = fn[j][found[j]]
            if card < 0:
                continue
            known = wants.get(card)
            if known is None:
                wants[card] = (fbase + j,)
            elif all(group_of[f - fbase] != group_of[j] for f in known):
                wants[card] = (*known, fbase + j)
        if len(self._found_wants) > 100_000:
            self._found_wants.clear()
        self._found_wants[found] = wants
        return wants


class RedealFirst:
    """The moves of ``moves`` with the redeal first where one is left: the order of a
    search beside the first (search.py), which tries each position's redeal before its
    other moves, where the first tries it after all of them."""

    def __init__(self, moves: Callable[[Position], list[SolverMove]]) -> None:
        self.moves = moves

    def __call__(self, pos: Position) -> list[SolverMove]:
        moves = self.moves(pos)
        if pos[5] > 0 and REDEAL_MOVE in moves:
            moves.remove(REDEAL_MOVE)
            moves.insert(0, REDEAL_MOVE)
        return moves


class Reversed:
    """The moves of ``moves`` with the transfers that do not go to a foundation in the
    reverse order (to an empty pile and the least promising builds first), the
    foundation moves still first and deal, redeal and withdraw still last: the order of
    a search beside the first (search.py)."""

    def __init__(self, moves: Callable[[Position], list[SolverMove]], found_base: int) -> None:
        self.moves = moves
        self.found_base = found_base

    def __call__(self, pos: Position) -> list[SolverMove]:
        moves = self.moves(pos)
        size = len(moves)
        first = 0
        while first < size and moves[first][0] == TRANSFER and moves[first][2] >= self.found_base:
            first += 1
        end = first
        while end < size and moves[end][0] == TRANSFER:
            end += 1
        if end - first > 1:
            moves[first:end] = moves[first:end][::-1]
        return moves


_FROM_WASTE = 60


def _first(item: tuple[int, SolverMove]) -> int:
    return item[0]
