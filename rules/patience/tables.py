"""A declaration's rules compiled into lookup tables, which the hot path reads.

Pile kinds become small ints. The build rule becomes, for each top card, the cards it
takes (``wants``, ``fits``). The fill rule becomes, for each kind of source pile and each
card, whether an empty tableau pile takes that card or a run headed by it (``takes``)
and otherwise the rule code that refuses it (``refusals``). The foundations become the
card each takes next. The rules' moves (ruleset.py) and the solver read these tables and
never the declaration's rules themselves, so that each rule is decided here, once.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .building import BuildRule, FillRule
from .cards import Card
from .piles import Direction, Foundation, PileKind

# Pile kinds as small ints, in the order of PILE_KINDS.
TABLEAU: Final = 0
RESERVE: Final = 1
FOUNDATION: Final = 2
STOCK: Final = 3
WASTE: Final = 4
PILE_KINDS: Final = (
    PileKind.TABLEAU,
    PileKind.RESERVE,
    PileKind.FOUNDATION,
    PileKind.STOCK,
    PileKind.WASTE,
)
KIND_CODES: Final = {kind: code for code, kind in enumerate(PILE_KINDS)}

_CARDS: Final = range(52)


class BuildTable(NamedTuple):
    """What a non-empty tableau pile takes, by its top card."""

    wants: tuple[tuple[Card, ...], ...]  # every card that may go on it, in code order
    fits: tuple[frozenset[Card], ...]  # the same, as sets


class FillTable(NamedTuple):
    """What an empty tableau pile takes, by the kind code of the source pile."""

    takes: tuple[frozenset[Card], ...]  # the cards, or heads of runs, that it takes
    refusals: tuple[tuple[str | None, ...], ...]  # [kind][card]: None if taken, else the rule


class FoundationTable(NamedTuple):
    """Where foundations stand, by pile index."""

    next_card: tuple[tuple[Card, ...], ...]  # [pile][cards on it]: the card taken next, or -1
    of_card: tuple[tuple[int, ...], ...]  # [card]: the foundation piles of its suit


def build_table(build: BuildRule) -> BuildTable:
    wants = tuple(build.wanted(top) for top in _CARDS)
    return BuildTable(wants, tuple(frozenset(w) for w in wants))


def fill_table(fill: FillRule) -> FillTable:
    refusals = tuple(
        tuple(None if fill.takes(card, kind) else fill.refusal for card in _CARDS)
        for kind in PILE_KINDS
    )
    takes = tuple(frozenset(c for c in _CARDS if row[c] is None) for row in refusals)
    return FillTable(takes, refusals)


def foundation_table(
    piles: int, foundation_piles: tuple[int, ...], specs: tuple[Foundation, ...]
) -> FoundationTable:
    """For ``piles`` piles, of which ``foundation_piles`` are declared by ``specs``."""
    next_card: list[tuple[Card, ...]] = [() for _ in range(piles)]
    of_card: list[tuple[int, ...]] = [() for _ in _CARDS]
    for pile, spec in zip(foundation_piles, specs, strict=True):
        if spec.direction is Direction.UP:
            order = [spec.suit * 13 + r for r in range(13)]
        else:
            order = [spec.suit * 13 + 12 - r for r in range(13)]
        next_card[pile] = (*order, -1)
        for card in order:
            of_card[card] += (pile,)
    return FoundationTable(tuple(next_card), tuple(of_card))
