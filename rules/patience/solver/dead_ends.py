"""Dead ends: positions proven lost without a search.

For one-pack games that move one card at a time, build in suit and never refill an
empty pile (La Belle Lucie once its redeals are used, and Bisley), two checks:

- *A card that can never leave its pile*: every card it may be built on lies under it
  in the same pile, and every foundation that could take it needs a card that lies
  under it first. It never reaches a foundation: lost. Cached per pile.
- *The relaxed game* (:class:`Relaxation`): a game where more is allowed; when even that
  cannot bring every card home, the real game cannot either.

For the other games without reserve cells (Usk, The House in the Wood and The House on
the Hill once no redeal is left, Napoleon at St Helena, The Fifteen once its withdraw is
past), a looser relaxed game (:class:`LooseRelaxation`) that allows for two packs, runs,
empty piles that take cards, and a stock.
"""

from __future__ import annotations

from collections.abc import Callable

from ..building import BuildRule
from .model import EMPTY, Model, Position

_IN_SUIT = (BuildRule.DOWN_IN_SUIT, BuildRule.UP_OR_DOWN_IN_SUIT)


def dead_end_check(model: Model) -> Callable[[Position], bool] | None:
    """The dead-end test of the model's game, or None where none is proven."""
    return _strict_check(model) or _loose_check(model)


def _strict_check(model: Model) -> Callable[[Position], bool] | None:
    """The stuck card and the relaxed game of one-pack games that build in suit one
    card at a time and never refill a pile, where they are sound."""
    if (
        model.total != 52
        or model.build not in _IN_SUIT
        or model.runs
        or model.fills
        or model.ncells
        or model.has_stock
    ):
        return None
    stuck = _PileCache(_stuck_card_check(model))
    relaxation = Relaxation(model)
    redeals = model.redeals > 0

    def dead(pos: Position) -> bool:
        if redeals and pos[5] > 0:
            return False  # a redeal deals the piles again
        for pile in pos[0]:
            if len(pile) > 1 and stuck(pile):
                return True
        return relaxation.hopeless(pos)

    return dead


def _stuck_card_check(model: Model) -> Callable[[bytes], bool]:
    parents = model.parents
    # needs[c]: for each foundation that can take c, the cards it takes before c
    needs: list[list[frozenset[int]]] = [[] for _ in range(52)]
    for order in model.found_next:
        for place, c in enumerate(order):
            if c >= 0:
                needs[c].append(frozenset(order[:place]))

    def has_stuck_card(pile: bytes) -> bool:
        below: set[int] = set()
        for card in pile:
            if (
                below
                and all(p in below for p in parents[card])
                and all(not below.isdisjoint(need) for need in needs[card])
            ):
                return True
            below.add(card)
        return False

    return has_stuck_card


class _PileCache:
    """A verdict per pile (bytes), computed once: piles recur across positions."""

    def __init__(self, check: Callable[[bytes], bool], limit: int = 200_000) -> None:
        self.check = check
        self.limit = limit
        self.known: dict[bytes, bool] = {}

    def __call__(self, pile: bytes) -> bool:
        known = self.known
        verdict = known.get(pile)
        if verdict is None:
            if len(known) >= self.limit:
                known.clear()
            verdict = known[pile] = self.check(pile)
        return verdict


class Relaxation:
    """A necessary condition for a win in one-pack games that build in suit one card at a
    time and never refill an empty pile (and have no redeal left): play a relaxed game
    where a card that has once been uncovered stays available forever, and a card may
    leave its pile whenever one of the cards it builds on has been uncovered (never
    mind what covers it since) or its foundation wants it. Everything possible in the
    real game is possible here, so when even the relaxed game cannot bring every card
    home, the position is lost."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.targets = model.parents
        self.where = model.where
        self._templates: dict[bytes, tuple[bytes, bytes]] = {}

    def hopeless(self, pos: Position) -> bool:
        tab, _, found, _, _, _, _ = pos
        model = self.model
        orders = model.found_next
        targets = self.targets
        # per card: 0 still covered, 1 uncovered (available for good), 2 home; and
        # whether a foundation takes it next
        template = self._templates.get(found)
        if template is None:
            template = self._template(found)
        # lists rather than bytearrays: the compiled module indexes them natively
        state = list(template[0])
        is_next = list(template[1])
        ptr = list(found)
        pile_of = [0] * 52
        for i, pile in enumerate(tab):
            for c in pile:
                pile_of[c] = i
        depth = [len(p) for p in tab]
        waiting: dict[int, list[int]] = {}
        todo = list(range(len(tab)))
        where = self.where
        while todo:
            i = todo.pop()
            pile = tab[i]
            d = depth[i]
            while d:
                card = pile[d - 1]
                if state[card] == 0:
                    state[card] = 1
                    if is_next[card]:
                        # send it home, and the cards that follow it as far as available
                        for j, place in where[card]:
                            if ptr[j] == place:
                                order = orders[j]
                                c = card
                                n = place
                                while c >= 0 and state[c] == 1:
                                    state[c] = 2
                                    is_next[c] = 0
                                    todo.append(pile_of[c])
                                    n += 1
                                    c = order[n]
                                ptr[j] = n
                                if c >= 0:
                                    is_next[c] = 1
                                break
                    woken = waiting.pop(card, None)
                    if woken:
                        todo.extend(woken)
                if state[card] == 2:
                    d -= 1
                    continue
                for t in targets[card]:
                    if state[t] == 1:
                        break
                else:
                    for t in targets[card]:
                        if state[t] == 0:
                            waiting.setdefault(t, []).append(i)
                    break
                d -= 1  # left for a card it builds on
            depth[i] = d
        return sum(ptr) < model.total

    def _template(self, found: bytes) -> tuple[bytes, bytes]:
        orders = self.model.found_next
        state = bytearray(52)
        is_next = bytearray(52)
        for j, n in enumerate(found):
            for c in orders[j][:n]:
                state[c] = 2
            if orders[j][n] >= 0:
                is_next[orders[j][n]] = 1
        if len(self._templates) > 100_000:
            self._templates.clear()
        template = self._templates[found] = (bytes(state), bytes(is_next))
        return template


def _loose_check(model: Model) -> Callable[[Position], bool] | None:
    """The looser relaxed game's test, where it is sound: no reserve cells, some
    building (else nothing leaves a pile but to a foundation, which it tells no better),
    no redeal left, and no withdraw to come."""
    if model.ncells or not model.builds:
        return None
    relaxation = LooseRelaxation(model)
    redeals = model.redeals > 0
    withdraws = bool(model.withdraw_row)

    def dead(pos: Position) -> bool:
        if redeals and pos[5] > 0:
            return False  # a redeal deals the piles again
        if withdraws and not any(pos[2]):
            return False  # a withdraw takes a card from under others
        return relaxation.hopeless(pos)

    return dead


class LooseRelaxation:
    """A necessary condition for a win in a game without reserve cells, with no redeal
    left and no withdraw to come: a relaxed game in which a card, once uncovered, stays
    available for good, nothing is ever put on a card, and

    - every card of the stock counts as uncovered (it can be dealt at any time), and
      the stock never covers the waste;
    - a foundation takes its next card whenever a copy of it has been uncovered (the
      foundations of one order, two packs' aces of a suit, only while more copies have
      been uncovered than they took in the relaxed game);
    - the top card of a pile's part goes away (uncovering the card under it) when more
      foundations of an order that takes it have taken every card before it than had
      taken it in the position; or it *can move*: one of the cards it may be built on
      has been uncovered (on a foundation since or not), or an empty pile takes it and
      a pile has been emptied;
    - in a game that moves runs, a run at the top of a part whose head can move goes
      away as a part of its own, its cards in their order (the card under the head is
      uncovered, the run's own are not);
    - a pile is emptied when its bottom card went away.

    Every card uncovered is needed for a win; the relaxed game makes every move it
    allows until none is left (each only widens what it allows, so the order does not
    matter), and where a card is left covered no line wins.

    Why it is a relaxation. Take a line of the real game from the position; the cards
    of a pile in the position are its *own*. Invariant along the line: every card
    uncovered in the real game since the position (a pile's top, the waste's top, a
    card dealt) is uncovered in the relaxed game; each part of a pile's own cards that
    the real game keeps together (on their pile or moved away as a run) is a run of
    parts of the relaxed game, or lies within one part whose cards under it went away;
    for each order, the real foundations that got past any place are no more than the
    relaxed ones (at the first place where they were more, a relaxed foundation stopped
    with fewer copies of its next card uncovered than the real ones took); a pile
    emptied in the real game is emptied in the relaxed one. A real move takes the top
    card of such a part, alone or heading a run: to a foundation whose order had not
    taken it that far, onto a card the real game uncovered, or to an empty pile; the
    relaxed game lets the same card go with the same cards above it, or less. Cards put
    on a pile cover its cards in the real game only. So a won line uncovers every card
    in the relaxed game too."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.parents = model.parents
        self.where = model.where
        self.orders = model.found_next
        self.group_of = model.group_of
        self.groups = len(model.found_groups)
        # homes[card]: for each order that takes the card, its foundations and the place
        homes: list[list[tuple[tuple[int, ...], int]]] = [[] for _ in range(52)]
        for members in model.found_groups:
            for place, card in enumerate(self.orders[members[0]]):
                if card >= 0:
                    homes[card].append((members, place))
        self.homes = tuple(tuple(h) for h in homes)
        self.runs = model.runs
        self.fits = model.fits
        self.fills = model.fills
        self.from_tableau = model.takes_from_tableau
        self.from_waste = model.takes_from_waste

    def hopeless(self, pos: Position) -> bool:
        tab, cells, found, stock, waste, _, _ = pos
        piles = (*tab, waste) if waste else tab
        ntab = len(tab)
        # lists rather than bytearrays: the compiled module indexes them natively
        uncovered = [0] * 52
        for card in stock:
            uncovered[card] += 1
        for card in cells:
            if card != EMPTY:
                uncovered[card] += 1
        for pile in piles:
            if pile:
                uncovered[pile[-1]] += 1
        ptr = list(found)
        taken = [[0] * 52 for _ in range(self.groups)]  # copies taken, per order
        orders = self.orders
        group_of = self.group_of
        where = self.where

        def advance(j: int) -> None:
            order = orders[j]
            took = taken[group_of[j]]
            n = ptr[j]
            card = order[n]
            while card >= 0 and uncovered[card] > took[card]:
                took[card] += 1
                n += 1
                card = order[n]
            ptr[j] = n

        for j in range(len(ptr)):
            advance(j)
        parents = self.parents
        homes = self.homes
        runs = self.runs
        fits = self.fits
        fills = self.fills
        emptied = fills and not all(tab)
        vacated = [not pile for pile in tab]
        # the parts of piles: [pile, bottom, top] (indices into the pile), each with its
        # top card uncovered and the others not
        parts = [[i, 0, len(pile) - 1] for i, pile in enumerate(piles) if pile]
        changed = True
        while changed:
            changed = False
            for part in parts:
                i, bottom, top = part
                if top == bottom and (bottom or i >= ntab or not fills or vacated[i]):
                    continue
                pile = piles[i]
                takes = self.from_tableau if i < ntab else self.from_waste
                # the lowest card above the part's bottom that can go away with the
                # part's cards above it, and whether the bottom one can
                lowest = top + 1
                whole = False
                card = pile[top]
                for members, place in homes[card]:
                    ahead = 0
                    for j in members:
                        if ptr[j] >= place:
                            ahead += 1
                        if found[j] > place:
                            ahead -= 1
                    if ahead > 0:
                        if top > bottom:
                            lowest = top
                        else:
                            whole = True
                        break
                head = top
                while True:
                    goes = emptied and card in takes
                    if not goes:
                        for parent in parents[card]:
                            if uncovered[parent]:
                                goes = True
                                break
                    if goes:
                        if head > bottom:
                            lowest = head
                        else:
                            whole = True
                    if runs and head > bottom and i < ntab and card in fits[pile[head - 1]]:
                        head -= 1
                        card = pile[head]
                        continue
                    break
                if whole and not bottom and i < ntab and not vacated[i]:
                    vacated[i] = changed = True  # the pile is emptied, the part elsewhere
                    emptied = fills
                if lowest > top:
                    continue
                changed = True
                part[2] = lowest - 1
                under = pile[lowest - 1]
                uncovered[under] += 1
                for j, place in where[under]:
                    if ptr[j] == place:
                        advance(j)
                if lowest < top:
                    parts.append([i, lowest, top])
        return any(top > bottom for _, bottom, top in parts)
