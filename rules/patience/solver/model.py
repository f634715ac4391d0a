"""The solver's compact position and its move generation, derived from a RuleSet.

A :class:`Position` is a plain tuple: each tableau pile and the stock and waste as
``bytes`` (one card code per byte, bottom card first), the reserve cells as ``bytes`` with
:data:`EMPTY` for an empty cell, the foundations as their lengths only (a foundation's
cards follow from its fixed suit and direction), then redeals left and generator draws.
Moves are small tuples of ints. Everything here follows the rules library's tables
(``RuleSet.found_next``, ``wants``, ``empty_takes``, runs, redeal, withdraw row), and
the tests check that :meth:`Model.legal_moves` and :meth:`Model.apply` agree with the
library move for move on random positions. A state is read through its public
attributes and the rules it follows (``patience.variant.rules_of``), and made back with
``RuleSet.trusted_state``.
"""

from __future__ import annotations

from typing import Final

from ..building import BuildRule
from ..cards import Card
from ..deals import Generator, shuffle
from ..moves import Move
from ..tables import TABLEAU, WASTE
from ..variant import RuleSet, State

EMPTY: Final = 255  # an empty reserve cell

# Move kinds. A move is (kind, source, target, count) with pile indices in RuleSet order;
# a withdraw is (WITHDRAW, first column, second column or -1, 1).
TRANSFER: Final = 0
DEAL: Final = 1
REDEAL: Final = 2
WITHDRAW: Final = 3

SolverMove = tuple[int, int, int, int]
Position = tuple[tuple[bytes, ...], bytes, bytes, bytes, bytes, int, int]
# tableau piles, cells, foundation lengths, stock, waste, redeals left, draws

DEAL_MOVE: Final[SolverMove] = (DEAL, -1, -1, 1)
REDEAL_MOVE: Final[SolverMove] = (REDEAL, -1, -1, 1)


class Model:
    """One variant with its options, as the solver sees it."""

    def __init__(self, rules: RuleSet, deal: int = 0) -> None:
        """``deal``: the deal number, which shuffled redeals draw from."""
        self.rules = rules
        self.deal = deal
        self.pile_ids = rules.pile_ids
        self.ntab = len(rules.tableau)
        self.ncells = len(rules.cells)
        self.nfound = len(rules.foundations)
        self.cell_base = self.ntab
        self.found_base = self.ntab + self.ncells
        self.stock_index = rules.stock
        self.waste_index = rules.waste
        self.has_stock = rules.stock >= 0
        self.total = rules.total
        self.build = rules.build
        # What an empty tableau pile takes: nothing at all unless `fills`; else the cards
        # (or heads of runs) from a tableau pile, and the cards from the waste.
        self.fills = rules.fills
        self.takes_from_tableau = rules.empty_takes[TABLEAU]
        self.takes_from_waste = rules.empty_takes[WASTE]
        self.runs = rules.runs
        self.redeal = rules.redeal
        self.redeals = rules.redeals if rules.redeal is not None else 0
        self.shuffles = rules.redeal is not None and rules.redeal.shuffle
        self.withdraw_row = rules.withdraw_row
        # found_next[j][length]: the card foundation j takes next (-1 when complete)
        self.found_next: tuple[tuple[int, ...], ...] = tuple(
            rules.found_next[f] for f in rules.foundations
        )
        self.found_cards: tuple[tuple[bytes, ...], ...] = tuple(
            tuple(bytes(order[:n]) for n in range(14)) for order in self.found_next
        )
        self.wants: tuple[tuple[Card, ...], ...] = rules.wants
        self.fits: tuple[frozenset[Card], ...] = rules.fits
        self.builds = rules.build is not BuildRule.NONE
        # foundations of the same suit and direction: interchangeable (two-pack games)
        groups: dict[int, list[int]] = {}
        for j, order in enumerate(self.found_next):
            groups.setdefault(order[0], []).append(j)
        self.found_groups: tuple[tuple[int, ...], ...] = tuple(tuple(g) for g in groups.values())
        self.found_interchangeable = any(len(g) > 1 for g in self.found_groups)
        group_of = [0] * self.nfound
        for g, members in enumerate(self.found_groups):
            for j in members:
                group_of[j] = g
        self.group_of = tuple(group_of)
        # parents[c]: the cards that c may be built on
        parents: list[list[int]] = [[] for _ in range(52)]
        for top, wanted in enumerate(self.wants):
            for c in wanted:
                parents[c].append(top)
        self.parents = tuple(tuple(p) for p in parents)
        # where[c]: (foundation, place in its order) for each foundation that takes c
        where: list[list[tuple[int, int]]] = [[] for _ in range(52)]
        for j, order in enumerate(self.found_next):
            for place, c in enumerate(order):
                if c >= 0:
                    where[c].append((j, place))
        self.where = tuple(tuple(w) for w in where)
        self._perms: dict[tuple[int, int], tuple[int, ...]] = {}

    # ------------------------------------------------------------ conversion

    def position(self, state: State) -> Position:
        """The solver's position of a library state of this model's rules."""
        piles = state.piles
        tab = tuple(bytes(piles[t]) for t in range(self.ntab))
        cells = bytes(piles[c][0] if piles[c] else EMPTY for c in self.rules.cells)
        found = bytes(len(piles[f]) for f in self.rules.foundations)
        stock = bytes(piles[self.stock_index]) if self.has_stock else b""
        waste = bytes(piles[self.waste_index]) if self.has_stock else b""
        return (tab, cells, found, stock, waste, state.redeals_left, state.draws)

    def state(self, pos: Position, deal: int, moves_made: int) -> State:
        """A library state of this position (trusted: the solver's own output)."""
        tab, cells, found, stock, waste, redeals, draws = pos
        piles: list[tuple[Card, ...]] = [tuple(p) for p in tab]
        piles += [(c,) if c != EMPTY else () for c in cells]
        piles += [tuple(self.found_cards[j][n]) for j, n in enumerate(found)]
        if self.has_stock:
            piles += [tuple(stock), tuple(waste)]
        return self.rules.trusted_state(
            tuple(piles),
            redeals_left=redeals,
            moves_made=moves_made,
            deal=deal,
            draws=draws,
            foundation_cards=sum(found),
        )

    def library_move(self, move: SolverMove) -> Move:
        kind, source, target, count = move
        ids = self.pile_ids
        if kind == TRANSFER:
            return Move.transfer(ids[source], ids[target], count)
        if kind == DEAL:
            return Move.deal()
        if kind == REDEAL:
            return Move.redeal()
        columns = (ids[source],) if target < 0 else (ids[source], ids[target])
        return Move.withdraw(*columns)

    def solver_move(self, move: Move) -> SolverMove:
        """The inverse of :meth:`library_move` for a move of this variant's piles."""
        index = self.rules.index
        if move.kind.name == "TRANSFER":
            return (TRANSFER, index[move.source], index[move.target], move.count)
        if move.kind.name == "DEAL":
            return DEAL_MOVE
        if move.kind.name == "REDEAL":
            return REDEAL_MOVE
        columns = [index[c] for c in move.columns]
        return (WITHDRAW, columns[0], columns[1] if len(columns) > 1 else -1, 1)

    # ------------------------------------------------------------ foundations

    def is_won(self, pos: Position) -> bool:
        return sum(pos[2]) == self.total

    # ------------------------------------------------------------ moves

    def legal_moves(self, pos: Position) -> list[SolverMove]:
        """Every legal move, as the rules library lists them (in another order)."""
        tab, cells, found, _, waste, _, _ = pos
        if sum(found) == self.total:
            return []
        fn = self.found_next
        fbase = self.found_base
        fwant: dict[int, list[int]] = {}
        for j in range(self.nfound):
            want = fn[j][found[j]]
            if want >= 0:
                fwant.setdefault(want, []).append(fbase + j)
        twant: dict[int, list[int]] = {}
        empties: list[int] = []
        if self.builds:
            wants = self.wants
            for i, pile in enumerate(tab):
                if pile:
                    for w in wants[pile[-1]]:
                        twant.setdefault(w, []).append(i)
                else:
                    empties.append(i)
        if not self.fills:
            empties = []
        from_tableau = self.takes_from_tableau
        empty_cells = [self.cell_base + k for k, c in enumerate(cells) if c == EMPTY]
        out: list[SolverMove] = []
        for i, pile in enumerate(tab):
            if not pile:
                continue
            card = pile[-1]
            for f in fwant.get(card, ()):
                out.append((TRANSFER, i, f, 1))
            for t in twant.get(card, ()):
                out.append((TRANSFER, i, t, 1))
            if empties and card in from_tableau:
                for t in empties:
                    if t != i:
                        out.append((TRANSFER, i, t, 1))
            for c in empty_cells:
                out.append((TRANSFER, i, c, 1))
            if self.runs and len(pile) > 1:
                self._runs(i, pile, twant, empties, out)
        for k, card in enumerate(cells):
            if card != EMPTY:
                for f in fwant.get(card, ()):
                    out.append((TRANSFER, self.cell_base + k, f, 1))
        if waste:
            card = waste[-1]
            w = self.waste_index
            for f in fwant.get(card, ()):
                out.append((TRANSFER, w, f, 1))
            for t in twant.get(card, ()):
                out.append((TRANSFER, w, t, 1))
            if empties and card in self.takes_from_waste:
                for t in empties:
                    out.append((TRANSFER, w, t, 1))
        out.extend(self.other_moves(pos))
        return out

    def other_moves(self, pos: Position) -> list[SolverMove]:
        """The moves that are not transfers: deal, redeal, withdraw, where legal."""
        tab, _, found, stock, _, redeals, _ = pos
        out: list[SolverMove] = []
        if stock:
            out.append(DEAL_MOVE)
        if redeals > 0:
            out.append(REDEAL_MOVE)
        if self.withdraw_row and not any(found):
            out.extend(self.withdraws(tab))
        return out

    def _runs(
        self,
        source: int,
        pile: bytes,
        twant: dict[int, list[int]],
        empties: list[int],
        out: list[SolverMove],
    ) -> None:
        fits = self.fits
        size = len(pile)
        from_tableau = self.takes_from_tableau
        for count in range(2, size + 1):
            head = pile[size - count]
            if pile[size - count + 1] not in fits[head]:
                return
            for t in twant.get(head, ()):
                out.append((TRANSFER, source, t, count))
            if empties and head in from_tableau:
                for t in empties:
                    if t != source:
                        out.append((TRANSFER, source, t, count))

    def withdraws(self, tab: tuple[bytes, ...]) -> list[SolverMove]:
        """The Fifteen's withdraws, when no foundation is started (the caller checks)."""
        if any(p and p[-1] % 13 in (0, 12) for p in tab):
            return []
        row = self.withdraw_row - 1
        found = [i for i, p in enumerate(tab) if len(p) > row + 1 and p[row] % 13 in (0, 12)]
        out: list[SolverMove] = []
        for n, first in enumerate(found):
            out.append((WITHDRAW, first, -1, 1))
            for second in found[n + 1 :]:
                if tab[first][row] % 13 != tab[second][row] % 13:
                    out.append((WITHDRAW, first, second, 1))
        return out

    # ------------------------------------------------------------ apply

    def apply(self, pos: Position, move: SolverMove) -> Position:
        """The position after a legal move (not checked: moves come from legal_moves)."""
        kind, source, target, count = move
        tab, cells, found, stock, waste, redeals, draws = pos
        if kind == TRANSFER:
            ntab = self.ntab
            if source < ntab:
                pile = tab[source]
                moved = pile[-count:]
                new_tab = list(tab)
                new_tab[source] = pile[:-count]
            elif source == self.waste_index:
                moved = waste[-1:]
                waste = waste[:-1]
                new_tab = list(tab)
            else:  # a reserve cell
                k = source - self.cell_base
                moved = cells[k : k + 1]
                cells = cells[:k] + bytes((EMPTY,)) + cells[k + 1 :]
                new_tab = list(tab)
            if target < ntab:
                new_tab[target] = new_tab[target] + moved
            elif target >= self.found_base:
                j = target - self.found_base
                found = found[:j] + bytes((found[j] + 1,)) + found[j + 1 :]
            else:
                k = target - self.cell_base
                cells = cells[:k] + moved + cells[k + 1 :]
            return (tuple(new_tab), cells, found, stock, waste, redeals, draws)
        if kind == DEAL:
            return (tab, cells, found, stock[:-1], waste + stock[-1:], redeals, draws)
        if kind == REDEAL:
            redealt, draws = self._redealt(tab, draws)
            return (redealt, cells, found, stock, waste, redeals - 1, draws)
        return self._withdrawn(pos, source, target)

    def _redealt(self, tab: tuple[bytes, ...], draws: int) -> tuple[tuple[bytes, ...], int]:
        redeal = self.redeal
        assert redeal is not None
        order = redeal.gather(tab)
        if self.shuffles:
            n = len(order)
            perm = self._permutation(n, draws)
            order = [order[k] for k in perm]
            draws += max(n - 1, 0)
        dealt: list[list[int]] = [[] for _ in tab]
        for pile, (old_pile, old_index) in redeal.deal(order, len(tab)):
            dealt[pile].append(tab[old_pile][old_index])
        return tuple(bytes(p) for p in dealt), draws

    def _permutation(self, n: int, draws: int) -> tuple[int, ...]:
        """Where the shuffle of ``n`` cards after ``draws`` draws takes each place from."""
        key = (n, draws)
        perm = self._perms.get(key)
        if perm is None:
            order = list(range(n))
            shuffle(order, Generator(self.deal, draws))
            perm = self._perms[key] = tuple(order)
        return perm

    def _withdrawn(self, pos: Position, first: int, second: int) -> Position:
        tab, cells, found, stock, waste, redeals, draws = pos
        row = self.withdraw_row - 1
        new_tab = list(tab)
        new_found = bytearray(found)
        for column in (first, second):
            if column < 0:
                continue
            pile = new_tab[column]
            card = pile[row]
            new_tab[column] = pile[:row] + pile[row + 1 :]
            for j in range(self.nfound):
                if self.found_next[j][new_found[j]] == card:
                    new_found[j] += 1
                    break
        return (tuple(new_tab), cells, bytes(new_found), stock, waste, redeals, draws)
