"""How cards are dealt: the opening deal patterns and the redeal mechanics.

Dealing takes cards from the end of the stock list (its top card). A *pass* gives
one card to each pile it names, in order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from .piles import numbered

T = TypeVar("T")

Position = tuple[int, int]  # (tableau pile number from 0, index from the pile's bottom)
Placement = tuple[int, T]  # (tableau pile number from 0, what is placed there)


@dataclass(frozen=True)
class DealPattern:
    """The opening deal: the passes in order, then what is left goes to the stock.

    ``aces_to_foundations`` first takes the aces out of the shuffled stock (keeping
    the order of the rest) and puts them on the ace foundations of their suits.
    """

    passes: tuple[tuple[str, ...], ...]
    aces_to_foundations: bool = False


def passes(prefix: str, *counts: int) -> tuple[tuple[str, ...], ...]:
    """One pass per count, each over the first ``count`` piles named ``prefix``1.."""
    return tuple(numbered(prefix, count) for count in counts)


def pile_span(prefix: str, first: int, last: int) -> tuple[str, ...]:
    """``pile_span("t", 5, 7) == ("t5", "t6", "t7")``."""
    return tuple(f"{prefix}{i}" for i in range(first, last + 1))


def thirds(cards: int) -> tuple[int, int, int]:
    """La Belle Lucie's three passes for ``cards`` cards: 52 -> 17, 17, 18."""
    return cards // 3, (cards + 1) // 3, (cards + 2) // 3


def shrinking_rows(piles: int, cards: int) -> tuple[int, ...]:
    """Rows of ``piles``, ``piles - 1``, ... cards, as far as ``cards`` go."""
    rows: list[int] = []
    width = piles
    while cards > 0 and width > 0:
        rows.append(min(width, cards))
        cards -= rows[-1]
        width -= 1
    return tuple(rows)


# --- Gathering the tableau for a redeal: positions in the order they are gathered.


def gather_first_pile_first(tableau: Sequence[Sequence[object]]) -> list[Position]:
    """t1, t2, ..., each pile from its bottom card to its top card."""
    return [(p, i) for p, pile in enumerate(tableau) for i in range(len(pile))]


def gather_last_pile_first(tableau: Sequence[Sequence[object]]) -> list[Position]:
    """tN, ..., t1, each pile from its bottom card to its top card."""
    last = len(tableau) - 1
    return [(last - p, i) for p, pile in enumerate(reversed(tableau)) for i in range(len(pile))]


# --- Dealing a gathered sequence again: (pile, item) in the order the cards are dealt.


def deal_in_fours(sequence: Sequence[T], piles: int) -> list[Placement[T]]:
    """In order, four at a time: t1 gets items 0..3 (item 0 at the bottom), t2 4..7, ..."""
    if len(sequence) > 4 * piles:
        raise ValueError("more cards than the piles hold")
    return [(i // 4, item) for i, item in enumerate(sequence)]


def deal_in_shrinking_rows(sequence: Sequence[T], piles: int) -> list[Placement[T]]:
    """In order, in rows: the first ``piles`` items to t1..tN, the next N-1 to t1..tN-1, ..."""
    placements: list[Placement[T]] = []
    start = 0
    for width in shrinking_rows(piles, len(sequence)):
        placements.extend((p, sequence[start + p]) for p in range(width))
        start += width
    if start != len(sequence):
        raise ValueError("more cards than the rows hold")
    return placements


def deal_in_thirds(sequence: Sequence[T], piles: int) -> list[Placement[T]]:
    """From the end of the sequence: passes over the first n//3, (n+1)//3, (n+2)//3 piles."""
    counts = thirds(len(sequence))
    if counts[2] > piles:
        raise ValueError("more cards than the fans hold")
    items = list(sequence)
    return [(p, items.pop()) for count in counts for p in range(count)]


@dataclass(frozen=True)
class Redeal:
    """A redeal: gather every tableau card, maybe shuffle them, deal them again."""

    gather: Callable[[Sequence[Sequence[object]]], list[Position]]
    deal: Callable[[Sequence[Position], int], list[Placement[Position]]]
    shuffle: bool = False
    description: str = ""
