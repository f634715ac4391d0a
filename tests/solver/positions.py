"""Small positions near the end of a game, and a plain search over the rules library
that decides them without any of the solver's shortcuts (the tests' oracle)."""

from __future__ import annotations

import random
from collections import deque
from typing import Any

import patience
from patience import State

from tests.oracle import position

LUCIE_FAMILY = ("la-belle-lucie", "house-in-the-wood", "house-on-the-hill")

# The House in the Wood, no redeal left: both fours of hearts lie under a king of hearts,
# which never moves; the fives shuttle between the sixes for ever.
SHUTTLE = {
    "t1": "4H KH 5H",
    "t2": "4H KH",
    "t3": "QH JH TH 9H 8H 7H 6H 5H",
    "t4": "QH JH TH 9H 8H 7H 6H",
}


def shuttle(**changes: Any) -> State:
    """The shuttling position above, with ``changes`` to what ``position`` is given."""
    settings: dict[str, Any] = {"t": SHUTTLE, "f": {"f5": "3H", "f6": "3H"}, "n": 0}
    settings.update(changes)
    return position("house-in-the-wood", dump=None, **settings)


def small_position(variant_id: str, rng: random.Random, out: int) -> State:
    """A valid position with about ``out`` cards off the foundations, dealt at random to
    the tableau (and the cells, stock and waste where the game has them); the redeals
    left at random. Built through ``State.from_parts``, which checks it."""
    variant = patience.get_variant(variant_id)
    options = ("fill_from_waste_only",) if variant.options and rng.random() < 0.3 else ()
    rules = variant.ruleset(frozenset(options))
    ids = variant.pile_ids
    piles: list[list[int]] = [[] for _ in ids]
    founds = list(rules.foundations)
    for f in founds:
        piles[f] = [c for c in rules.found_next[f] if c >= 0]
    if variant.packs == 1 and len(founds) == 8:  # Bisley: the two ends of a suit meet
        for up, down in zip(founds[:4], founds[4:], strict=True):
            meet = rng.randint(1, 13)
            piles[up] = piles[up][:meet]
            piles[down] = piles[down][: 13 - meet]
    keep_ace = variant.deal_pattern.aces_to_foundations
    loose: list[int] = []
    # cards of few suits, so that they block each other more often
    sources = rng.sample(founds, k=rng.randint(1, 3))
    for _ in range(out * 4):
        if len(loose) >= out:
            break
        f = rng.choice(sources if rng.random() < 0.8 else founds)
        if len(piles[f]) > (1 if keep_ace and rules.found_next[f][0] % 13 == 0 else 0):
            loose.append(piles[f].pop())
    if rng.random() < 0.5:
        loose.reverse()  # the cards the foundations want first at the bottom: blocked
    else:
        rng.shuffle(loose)
    tableau = list(rules.tableau)
    used = rng.sample(tableau, k=min(len(tableau), rng.randint(2, max(2, len(loose)))))
    for card in loose:
        where = rng.random()
        empty_cells = [c for c in rules.cells if not piles[c]]
        if empty_cells and where < 0.4:
            piles[rng.choice(empty_cells)].append(card)
        elif rules.stock >= 0 and where < 0.5:
            piles[rng.choice((rules.stock, rules.waste))].append(card)
        else:
            piles[rng.choice(used)].append(card)
    redeals_left = rng.randint(0, rules.redeals)
    spent = rules.redeals - redeals_left
    draws = rules.total - 1
    if variant_id in LUCIE_FAMILY and spent:
        draws += spent * (rules.total - 1)
    return State.from_parts(
        variant,
        piles,
        options=options,
        redeals_left=redeals_left,
        moves_made=1000,
        deal=rng.randrange(10**6),
        draws=draws,
    )


class TooBig(Exception):
    """The plain search met more positions than it was allowed."""


def plain_verdict(state: State, limit: int = 200_000) -> bool:
    """Whether some line wins from ``state``: every legal move of the rules library from
    every position reached, breadth first, with no shortcut: positions are told apart by
    every pile in order, the redeals left and the generator's draws (only the move count,
    which no rule reads, is left out). soundness.exact_graph is the same search, keeping
    the whole graph."""

    def key(s: State) -> tuple[object, ...]:
        return (s.piles, s.redeals_left, s.draws)

    seen = {key(state)}
    queue = deque([state])
    while queue:
        current = queue.popleft()
        if current.foundation_cards == current.total_cards:
            return True
        for move in current.legal_moves():
            child = current.apply(move)
            k = key(child)
            if k not in seen:
                if len(seen) >= limit:
                    raise TooBig(str(state))
                seen.add(k)
                queue.append(child)
    return False


def replay(state: State, line: tuple[patience.Move, ...]) -> State:
    """Play ``line`` through the rules library, each move checked legal first."""
    for number, move in enumerate(line):
        assert move in state.legal_moves(), f"move {number} ({move}) is not legal"
        state = state.apply(move)
    return state
