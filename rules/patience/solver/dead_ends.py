"""Dead ends: positions proven lost without a search.

Two checks, both for one-pack games that move one card at a time, build in suit and
never refill an empty pile (La Belle Lucie once its redeals are used, and Bisley), where
they are sound:

- *A card that can never leave its pile*: every card it may be built on lies under it
  in the same pile, and every foundation that could take it needs a card that lies
  under it first. It never reaches a foundation: lost. Cached per pile.
- *The relaxed game* (:class:`Relaxation`): a game where more is allowed; when even that
  cannot bring every card home, the real game cannot either.
"""

from __future__ import annotations

from collections.abc import Callable

from ..building import BuildRule
from .model import Model, Position

_IN_SUIT = (BuildRule.DOWN_IN_SUIT, BuildRule.UP_OR_DOWN_IN_SUIT)


def dead_end_check(model: Model) -> Callable[[Position], bool] | None:
    """The dead-end test of the model's game, or None where none is proven."""
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
        state = bytearray(template[0])
        is_next = bytearray(template[1])
        ptr = bytearray(found)
        pile_of = bytearray(52)
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
