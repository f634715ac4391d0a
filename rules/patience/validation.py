"""Checking a state built from outside data: only positions that play can reach.

`validated_state` (behind ``State.from_parts``) checks everything; `trusted_state`
(behind ``State.from_trusted_parts``) only the shape, for data whose integrity is
proven elsewhere. Both check against the compiled rules of the variant with its
options, and build the state with ``RuleSet.trusted_state`` once the checks pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Final

from .cards import ACE, CARD_NAMES, CARDS_PER_PACK, Card, rank
from .compiled import ruleset
from .deals import MAX_DEAL
from .errors import InvalidState
from .ruleset import RuleSet
from .state import State
from .variant import Variant


def validated_state(
    variant: Variant,
    piles: Sequence[Sequence[Card]],
    *,
    options: Iterable[str],
    redeals_left: int,
    moves_made: int,
    deal: int,
    draws: int,
) -> State:
    rules = ruleset(variant, variant.option_set(options))
    cards = _pile_tuples(rules, piles)
    _check_cards(rules, cards)
    _check_foundations(rules, cards)
    for cell in rules.cells:
        if len(cards[cell]) > 1:
            raise InvalidState("BAD_CELL", f"{rules.pile_ids[cell]} holds more than one card")
    return _counted_state(rules, cards, redeals_left, moves_made, deal, draws)


def trusted_state(
    variant: Variant,
    piles: Sequence[Sequence[Card]],
    *,
    options: Iterable[str],
    redeals_left: int,
    moves_made: int,
    deal: int,
    draws: int,
) -> State:
    """A state from data known to describe a reachable position, checked for shape only.

    Kept: what the rules need in order to run at all on the state: the pile count,
    card codes in 0..51 and as many cards as the variant holds, foundations no longer
    than a suit, the deal number and the counters in range (the draws bound keeps a
    redeal from replaying an endless random stream). Skipped: which cards there are,
    the order on the foundations, the reserve cells' single card, and the types of
    the values (the caller vouches that they are ints).
    """
    rules = ruleset(variant, variant.option_set(options))
    cards = _pile_tuples(rules, piles)
    if sum(map(len, cards)) != rules.total or not _CODES.issuperset(chain.from_iterable(cards)):
        raise InvalidState(
            "WRONG_CARDS", f"{variant.id} holds {rules.total} cards, each a code in 0..51"
        )
    for f in rules.foundations:
        if len(cards[f]) > RANKS_PER_SUIT:
            raise InvalidState("BAD_FOUNDATION", f"{rules.pile_ids[f]} holds more than a suit")
    return _counted_state(rules, cards, redeals_left, moves_made, deal, draws)


def _counted_state(
    rules: RuleSet,
    cards: tuple[tuple[Card, ...], ...],
    redeals_left: int,
    moves_made: int,
    deal: int,
    draws: int,
) -> State:
    """The state, once its deal number and counters are in range (both ways of reading
    a state end here)."""
    _check_deal(deal)
    _check_counters(rules, cards, redeals_left, moves_made, draws)
    return rules.trusted_state(
        cards,
        redeals_left=redeals_left,
        moves_made=moves_made,
        deal=deal,
        draws=draws,
        foundation_cards=sum(len(cards[f]) for f in rules.foundations),
    )


RANKS_PER_SUIT: Final = 13
_CODES: Final = frozenset(range(CARDS_PER_PACK))


def _pile_tuples(rules: RuleSet, piles: Sequence[Sequence[Card]]) -> tuple[tuple[Card, ...], ...]:
    if len(piles) != len(rules.pile_ids):
        raise InvalidState(
            "WRONG_PILE_COUNT",
            f"{rules.variant.id} has {len(rules.pile_ids)} piles, got {len(piles)}",
        )
    # tuple() of a tuple is the tuple itself, so callers that pass tuples pay nothing
    return tuple(map(tuple, piles))


def _check_deal(deal: int) -> None:
    if not _is_int(deal) or not 0 <= deal <= MAX_DEAL:
        raise InvalidState("BAD_DEAL", f"deal numbers run from 0 to 10^20, got {deal!r}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# By pack count: every card code `packs` times, sorted (a complete set of cards).
_FULL_SETS: dict[int, list[Card]] = {}


def _full_set(packs: int) -> list[Card]:
    full = _FULL_SETS.get(packs)
    if full is None:
        full = _FULL_SETS[packs] = sorted(list(range(CARDS_PER_PACK)) * packs)
    return full


def _check_cards(rules: RuleSet, piles: tuple[tuple[Card, ...], ...]) -> None:
    # The usual case costs one sort: exactly the full set, every card a plain int.
    # Anything else (a wrong card, a bool or an int subclass) takes the slow path below,
    # which accepts int subclasses and says precisely what is wrong.
    cards = list(chain.from_iterable(piles))
    packs = rules.packs
    if set(map(type, cards)) <= {int} and sorted(cards) == _full_set(packs):
        return
    counts: Counter[Card] = Counter()
    for pile in piles:
        for card in pile:
            if not _is_int(card) or not 0 <= card < 52:
                raise InvalidState("WRONG_CARDS", f"{card!r} is not a card code (0..51)")
        counts.update(pile)
    missing = [c for c in range(52) if counts[c] < packs]
    extra = [c for c in range(52) if counts[c] > packs]
    if missing or extra:
        parts = []
        if missing:
            parts.append("missing " + " ".join(CARD_NAMES[c] for c in missing))
        if extra:
            parts.append("too many " + " ".join(CARD_NAMES[c] for c in extra))
        raise InvalidState(
            "WRONG_CARDS",
            f"{rules.variant.id} holds every card {packs} time(s): " + "; ".join(parts),
        )


def _check_foundations(rules: RuleSet, piles: tuple[tuple[Card, ...], ...]) -> None:
    aces_dealt = rules.deal_pattern.aces_to_foundations
    for f in rules.foundations:
        pile = piles[f]
        order = rules.found_next[f]
        if pile != order[: len(pile)]:
            raise InvalidState(
                "BAD_FOUNDATION",
                f"{rules.pile_ids[f]} must hold a run from {CARD_NAMES[order[0]]} "
                "in its suit and direction",
            )
        if aces_dealt and rank(order[0]) == ACE and not pile:
            raise InvalidState(
                "BAD_FOUNDATION", f"{rules.pile_ids[f]} holds its ace from the deal on"
            )


def _check_counters(
    rules: RuleSet,
    piles: tuple[tuple[Card, ...], ...],
    redeals_left: int,
    moves_made: int,
    draws: int,
) -> None:
    for name, value in (("redeals_left", redeals_left), ("moves_made", moves_made)):
        if not _is_int(value) or value < 0:
            raise InvalidState("BAD_COUNTER", f"{name} must be a whole number >= 0")
    if not _is_int(draws) or draws < 0:
        raise InvalidState("BAD_COUNTER", "draws must be a whole number >= 0")
    if redeals_left > rules.redeals:
        raise InvalidState(
            "BAD_COUNTER", f"redeals_left must lie in 0..{rules.redeals}, got {redeals_left}"
        )
    used = rules.redeals - redeals_left
    opening_draws = rules.total - 1
    shuffles = rules.redeal is not None and rules.redeal.shuffle
    if shuffles and used:
        # Every redeal shuffles the tableau of its time, which was at least as large
        # as today's (cards never return to the tableau) and at most the whole pack.
        tableau = sum([len(piles[t]) for t in rules.tableau])
        low = opening_draws + used * max(tableau - 1, 0)
        high = opening_draws + used * (rules.total - 1)
        if not low <= draws <= high:
            raise InvalidState(
                "BAD_COUNTER",
                f"after {used} redeal(s) with {tableau} tableau cards, draws must lie "
                f"in {low}..{high}, got {draws}",
            )
    elif draws != opening_draws:
        raise InvalidState(
            "BAD_COUNTER", f"draws must be {opening_draws} (the opening shuffle), got {draws}"
        )
    dealt = 0
    if rules.stock >= 0:
        opening_stock = rules.opening_stock
        stock, waste = len(piles[rules.stock]), len(piles[rules.waste])
        dealt = opening_stock - stock
        if dealt < 0 or waste > dealt:
            raise InvalidState(
                "WRONG_CARDS", f"the stock and waste cannot hold {stock} and {waste} cards"
            )
    if moves_made < used + dealt:
        raise InvalidState(
            "BAD_COUNTER",
            f"{used} redeal(s) and {dealt} card(s) dealt need at least {used + dealt} moves",
        )
