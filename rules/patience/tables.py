"""A declaration's rules compiled into lookup tables, which the hot path reads.

Pile kinds become small ints. The build rule becomes, for each top card, the cards it
takes (``wants``, ``fits``). The fill rule becomes, for each kind of source pile and each
card, whether an empty tableau pile takes that card or a run headed by it (``takes``)
and otherwise the rule code that refuses it (``refusals``). The foundations become the
card each takes next. :class:`Tables` holds all of them for one declaration, with its
pile indices and counts. The rules' moves (``RuleSet``, variant.py), validation, the
notation and the solver read these tables and never the declaration's rules themselves,
so that each rule is decided here, once.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .building import BuildRule, FillRule
from .cards import Card
from .declaration import Declaration
from .moves import Move, MoveKind
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


# Where a transfer goes, once the source and target kinds allow it (Tables.routes).
TO_FOUNDATION: Final = 0
TO_TABLEAU: Final = 1
TO_CELL: Final = 2


class Tables:
    """One declaration (a variant with its options applied) compiled: its pile indices,
    counts and rules as the tables above, read by everything that plays, checks, writes
    or searches a state of it."""

    __slots__ = (
        "build",
        "cells",
        "deal_pattern",
        "declaration",
        "empty_takes",
        "fill",
        "fill_refusals",
        "fills",
        "fits",
        "found_next",
        "found_of",
        "foundations",
        "index",
        "kinds",
        "moves",
        "opening_stock",
        "packs",
        "pile_ids",
        "redeal",
        "redeals",
        "routes",
        "runs",
        "sources",
        "stock",
        "tableau",
        "total",
        "wants",
        "waste",
        "withdraw_row",
    )

    def __init__(self, declaration: Declaration) -> None:
        self.declaration = declaration
        ids = declaration.pile_ids
        self.pile_ids = ids
        self.index = {pile_id: i for i, pile_id in enumerate(ids)}
        self.kinds = tuple(KIND_CODES[declaration.pile_kind(pile_id)] for pile_id in ids)
        self.tableau = tuple(i for i, k in enumerate(self.kinds) if k == TABLEAU)
        self.cells = tuple(i for i, k in enumerate(self.kinds) if k == RESERVE)
        self.foundations = tuple(i for i, k in enumerate(self.kinds) if k == FOUNDATION)
        self.stock = self.index.get("stock", -1)
        self.waste = self.index.get("waste", -1)
        self.sources = tuple(i for i, k in enumerate(self.kinds) if k in (TABLEAU, RESERVE, WASTE))
        self.packs = declaration.packs
        self.total = declaration.total_cards
        self.deal_pattern = pattern = declaration.deal_pattern
        # The cards the opening deal leaves in the stock.
        self.opening_stock = self.total - sum(len(p) for p in pattern.passes)
        if pattern.aces_to_foundations:
            self.opening_stock -= 4 * self.packs
        self.build = declaration.build
        self.fill = declaration.fill
        self.runs = declaration.runs_move
        self.redeals = declaration.redeals
        self.redeal = declaration.redeal
        self.withdraw_row = declaration.withdraw_row

        found = foundation_table(len(ids), self.foundations, declaration.foundations)
        self.found_next = found.next_card  # [pile][cards on it]: the card it takes next, or -1
        self.found_of = found.of_card  # the foundations of each card's suit
        self.wants, self.fits = build_table(declaration.build)
        # empty_takes[source kind]: the cards (or heads of runs) an empty tableau pile
        # takes from a pile of that kind; fill_refusals[source kind][card]: the rule
        # code of one it does not take (None where it does).
        self.empty_takes, self.fill_refusals = fill_table(declaration.fill)
        # Whether an empty tableau pile ever takes a card at all.
        self.fills = declaration.build is not BuildRule.NONE and any(self.empty_takes)
        self.routes = tuple(
            tuple(self._route(self.kinds[s], self.kinds[t]) for t in range(len(ids)))
            for s in range(len(ids))
        )
        self.moves = tuple(
            tuple(Move(MoveKind.TRANSFER, source, target) for target in ids) for source in ids
        )

    def _route(self, source: int, target: int) -> int | str:
        """Where a transfer between these pile kinds goes, or the rule it breaks."""
        if target in (STOCK, WASTE):
            return "not_a_target"
        if target == FOUNDATION:
            return TO_FOUNDATION
        if target == TABLEAU:
            # A reserve card aimed at a fan says why in the reserve's own terms, even
            # where fans never take cards: that is the more specific rule.
            if source == RESERVE:
                return "reserve_to_foundation_only"
            return "not_a_target" if self.build is BuildRule.NONE else TO_TABLEAU
        if source == RESERVE:
            return "not_a_target"
        return TO_CELL if source == TABLEAU else "reserve_from_tableau_only"
