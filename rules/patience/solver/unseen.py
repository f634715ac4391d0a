"""What a player has not seen, and arrangements of it consistent with what was seen.

A player sees every card of every pile but the stock (all of these games deal face up),
the stock's size, the foundations and the redeals left (RULES.md, "Hidden information").
Two things are hidden:

- the order of the stock (Napoleon at St Helena): which cards it holds follows from what
  was seen (the packs less every card in sight), their order does not;
- the shuffles of later redeals (the La Belle Lucie family), which come from the game's
  generator: any order of the gathered cards is as likely as any other.

An *arrangement* is one way the hidden part can be: an order of the stock's cards, or a
generator for the shuffles to come (a deal number whose stream makes them). Here they
are made from the **seen position only**: the cards in sight, the foundations, the
stock's size and the redeals left, never the stock's order, the deal number or the
generator's draws. So everything computed from them (a fair hint) is the same for two
states that look the same to the player, whatever their hidden parts.

Each arrangement comes with the solver's :class:`~patience.solver.policy.Policy` for it
and a state of it (a state of the same rules with the same cards in sight), which the
exact search (:func:`~patience.solver.search.solve`) takes as it takes any state.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter
from dataclasses import dataclass

from ..cards import Card, start_order
from ..deals import MAX_DEAL, MS_DEALS, Generator, shuffle
from ..variant import RuleSet, State, rules_of
from .model import EMPTY, Model, Position
from .policy import Policy, policy_for

# Arrangements searched by a fair hint (hints.py).
SAMPLES = 8


def hides_cards(state: State) -> bool:
    """Whether the player cannot see part of ``state``: a stock with cards in it, or a
    shuffled redeal still to come. Games with neither (Bisley, Cody, Little Billee, Usk,
    The Fifteen, and the La Belle Lucie family once its redeals are used) are open."""
    rules = rules_of(state)
    if rules.stock >= 0 and state.stock_size > 0:
        return True
    redeal = rules.redeal
    return redeal is not None and redeal.shuffle and state.redeals_left > 0


@dataclass(frozen=True)
class Arrangement:
    """One arrangement of the hidden part: a state with it, and the policy to search it."""

    state: State
    policy: Policy


@dataclass(frozen=True)
class Arrangements:
    """The arrangements a fair hint searches: ``every`` when they are all there are (a
    stock of a few cards), else a sample of them."""

    items: tuple[Arrangement, ...]
    every: bool


def seen_key(state: State) -> bytes:
    """The position as the player sees it, as bytes: the variant and its options, each
    pile in sight, the foundations, the stock's size and the redeals left. Nothing
    hidden goes in (the stock's order, the deal number, the generator's draws), nor the
    number of moves made, so positions that look the same have the same key."""
    rules = rules_of(state)
    return _seen_bytes(rules, Model(rules).position(state))


def seen_digest(rules: RuleSet, pos: Position) -> bytes:
    """:func:`seen_key` of the position ``pos`` of ``rules``, as a 6-byte digest: what a
    hint's line names its positions by (hints.py). A line is looked up by the digest of
    the game's position: a stranger taken for one of its positions needs a digest shared
    with one of a few thousand (chance below 2^-36)."""
    return hashlib.blake2b(_seen_bytes(rules, pos), digest_size=6).digest()


def _seen_bytes(rules: RuleSet, pos: Position) -> bytes:
    tab, cells, found, stock, waste, redeals, _ = pos
    name = ",".join([rules.variant.id, *sorted(rules.options)]).encode()
    parts = [name, *tab, cells, found, waste, bytes((len(stock), redeals))]
    return b"\xff".join(len(p).to_bytes(2, "little") + p for p in parts)


def unseen_cards(rules: RuleSet, pos: Position) -> list[Card]:
    """The cards the player has not seen, in order of their codes: the packs less every
    card in sight (piles, cells, waste, foundations)."""
    tab, cells, found, _, waste, _, _ = pos
    model = Model(rules)
    left = Counter(start_order(rules.packs))
    seen: Counter[int] = Counter()
    for pile in tab:
        seen.update(pile)
    seen.update(c for c in cells if c != EMPTY)
    seen.update(waste)
    for j, n in enumerate(found):
        seen.update(model.found_cards[j][n])
    left.subtract(seen)
    return sorted(left.elements())


def arrangements(state: State, count: int = SAMPLES) -> Arrangements:
    """Up to ``count`` arrangements of what ``state`` hides (:func:`hides_cards` must
    hold), made from what the player sees only (module docstring). A stock with at most
    ``count`` distinct orders gives each of them once (``every``); otherwise each
    arrangement is drawn with a generator seeded from the seen position."""
    rules = rules_of(state)
    key = seen_key(state)
    pos = Model(rules).position(state)
    tab, cells, found, stock, waste, redeals, _ = pos
    deals = _sample_deals(key, count)
    if rules.stock >= 0 and stock:
        cards = unseen_cards(rules, pos)
        if len(cards) != len(stock):  # not a state of these rules' packs
            raise ValueError("the cards in sight do not leave the stock's size unseen")
        orders, every = _stock_orders(cards, deals, count)
        model = Model(rules)
        policy = policy_for(model)
        items = tuple(
            Arrangement(
                model.state((tab, cells, found, bytes(order), waste, redeals, 0), 0, 0),
                policy,
            )
            for order in orders
        )
        return Arrangements(items, every)
    # Shuffled redeals: a generator per arrangement, the deal number's stream.
    made = []
    for deal in deals:
        model = Model(rules, deal)
        sample = model.state((tab, cells, found, stock, waste, redeals, 0), deal, 0)
        made.append(Arrangement(sample, policy_for(model)))
    return Arrangements(tuple(made), False)


def without_hidden(state: State) -> Arrangement:
    """The seen position with what is hidden taken away: the stock emptied (no deal
    left to make) and, where redeals shuffle, no redeal left. Every line of play from it
    is a line of the real game that turns up no hidden card (dealing and redealing are
    never forced), so what its search finds holds whatever the hidden cards are: a
    winning line wins the real game; the most cards it brings home, the real game can
    bring home without dealing or redealing."""
    rules = rules_of(state)
    model = Model(rules)
    tab, cells, found, _, waste, redeals, _ = model.position(state)
    redeal = rules.redeal
    if redeal is not None and redeal.shuffle:
        redeals = 0
    plain = model.state((tab, cells, found, b"", waste, redeals, 0), 0, 0)
    return Arrangement(plain, policy_for(model))


def _sample_deals(key: bytes, count: int) -> list[int]:
    """``count`` deal numbers of the Mersenne Twister range, drawn from the seen key."""
    span = MAX_DEAL - MS_DEALS
    return [
        MS_DEALS
        + int.from_bytes(hashlib.blake2b(key + bytes((i,)), digest_size=8).digest(), "little")
        % span
        for i in range(count)
    ]


def _stock_orders(cards: list[Card], deals: list[int], count: int) -> tuple[list[list[Card]], bool]:
    """Orders of the stock's cards: every distinct one when there are at most ``count``,
    else one shuffle of them per deal number."""
    if _distinct_orders(cards) <= count:
        return [list(order) for order in sorted(set(itertools.permutations(cards)))], True
    orders = []
    for deal in deals:
        order = list(cards)
        shuffle(order, Generator(deal))
        orders.append(order)
    return orders, False


def _distinct_orders(cards: list[Card]) -> int:
    """How many distinct orders the cards have (twins of two-pack games are alike)."""
    total = math.factorial(len(cards))
    for n in Counter(cards).values():
        total //= math.factorial(n)
    return total
