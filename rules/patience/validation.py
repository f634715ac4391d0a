"""Checking a state's parts from outside data: only positions that play can reach.

`validated_parts` (behind ``State.from_parts``) checks everything; `trusted_parts`
(behind ``State.from_trusted_parts``) only the shape, for data whose integrity is
proven elsewhere. Both check against the compiled tables of the variant with its
options, and give back the piles as tuples and the count of foundation cards, from
which the compiled rules build the state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import chain
from typing import Final

from .cards import ACE, CARD_NAMES, CARDS_PER_PACK, Card, rank
from .deals import MAX_DEAL
from .errors import InvalidState
from .tables import Tables

Piles = tuple[tuple[Card, ...], ...]


def validated_parts(
    tables: Tables,
    piles: Sequence[Sequence[Card]],
    redeals_left: int,
    moves_made: int,
    deal: int,
    draws: int,
) -> tuple[Piles, int]:
    """The piles, and the cards on the foundations, of a position that play can reach;
    :class:`InvalidState` otherwise."""
    cards = _pile_tuples(tables, piles)
    _check_cards(tables, cards)
    _check_foundations(tables, cards)
    for cell in tables.cells:
        if len(cards[cell]) > 1:
            raise InvalidState("BAD_CELL", f"{tables.pile_ids[cell]} holds more than one card")
    return _counted(tables, cards, redeals_left, moves_made, deal, draws)


def trusted_parts(
    tables: Tables,
    piles: Sequence[Sequence[Card]],
    redeals_left: int,
    moves_made: int,
    deal: int,
    draws: int,
) -> tuple[Piles, int]:
    """The parts of a state known to describe a reachable position, checked for shape only.

    Kept: what the rules need in order to run at all on the state: the pile count,
    card codes in 0..51 and as many cards as the variant holds, foundations no longer
    than a suit, the deal number and the counters in range (the draws bound keeps a
    redeal from replaying an endless random stream). Skipped: which cards there are,
    the order on the foundations, the reserve cells' single card, and the types of
    the values (the caller vouches that they are ints).
    """
    cards = _pile_tuples(tables, piles)
    if sum(map(len, cards)) != tables.total or not _CODES.issuperset(chain.from_iterable(cards)):
        raise InvalidState(
            "WRONG_CARDS",
            f"{tables.declaration.id} holds {tables.total} cards, each a code in 0..51",
        )
    for f in tables.foundations:
        if len(cards[f]) > RANKS_PER_SUIT:
            raise InvalidState("BAD_FOUNDATION", f"{tables.pile_ids[f]} holds more than a suit")
    return _counted(tables, cards, redeals_left, moves_made, deal, draws)


def _counted(
    tables: Tables,
    cards: Piles,
    redeals_left: int,
    moves_made: int,
    deal: int,
    draws: int,
) -> tuple[Piles, int]:
    """The piles and the foundation cards, once the deal number and counters are in range
    (both ways of reading a state end here)."""
    _check_deal(deal)
    _check_counters(tables, cards, redeals_left, moves_made, draws)
    return cards, sum(len(cards[f]) for f in tables.foundations)


RANKS_PER_SUIT: Final = 13
_CODES: Final = frozenset(range(CARDS_PER_PACK))


def _pile_tuples(tables: Tables, piles: Sequence[Sequence[Card]]) -> Piles:
    if len(piles) != len(tables.pile_ids):
        raise InvalidState(
            "WRONG_PILE_COUNT",
            f"{tables.declaration.id} has {len(tables.pile_ids)} piles, got {len(piles)}",
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


def _check_cards(tables: Tables, piles: Piles) -> None:
    # The usual case costs one sort: exactly the full set, every card a plain int.
    # Anything else (a wrong card, a bool or an int subclass) takes the slow path below,
    # which accepts int subclasses and says precisely what is wrong.
    cards = list(chain.from_iterable(piles))
    packs = tables.packs
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
            f"{tables.declaration.id} holds every card {packs} time(s): " + "; ".join(parts),
        )


def _check_foundations(tables: Tables, piles: Piles) -> None:
    aces_dealt = tables.deal_pattern.aces_to_foundations
    for f in tables.foundations:
        pile = piles[f]
        order = tables.found_next[f]
        if pile != order[: len(pile)]:
            raise InvalidState(
                "BAD_FOUNDATION",
                f"{tables.pile_ids[f]} must hold a run from {CARD_NAMES[order[0]]} "
                "in its suit and direction",
            )
        if aces_dealt and rank(order[0]) == ACE and not pile:
            raise InvalidState(
                "BAD_FOUNDATION", f"{tables.pile_ids[f]} holds its ace from the deal on"
            )


def _check_counters(
    tables: Tables,
    piles: Piles,
    redeals_left: int,
    moves_made: int,
    draws: int,
) -> None:
    for name, value in (("redeals_left", redeals_left), ("moves_made", moves_made)):
        if not _is_int(value) or value < 0:
            raise InvalidState("BAD_COUNTER", f"{name} must be a whole number >= 0")
    if not _is_int(draws) or draws < 0:
        raise InvalidState("BAD_COUNTER", "draws must be a whole number >= 0")
    if redeals_left > tables.redeals:
        raise InvalidState(
            "BAD_COUNTER", f"redeals_left must lie in 0..{tables.redeals}, got {redeals_left}"
        )
    used = tables.redeals - redeals_left
    opening_draws = tables.total - 1
    shuffles = tables.redeal is not None and tables.redeal.shuffle
    if shuffles and used:
        # Every redeal shuffles the tableau of its time, which was at least as large
        # as today's (cards never return to the tableau) and at most the whole pack.
        tableau = sum([len(piles[t]) for t in tables.tableau])
        low = opening_draws + used * max(tableau - 1, 0)
        high = opening_draws + used * (tables.total - 1)
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
    if tables.stock >= 0:
        opening_stock = tables.opening_stock
        stock, waste = len(piles[tables.stock]), len(piles[tables.waste])
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
