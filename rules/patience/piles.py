"""Pile kinds, how piles are laid out on the table, and foundation layouts."""

from __future__ import annotations

import enum
from typing import NamedTuple

from .cards import SUITS


class PileKind(enum.Enum):
    TABLEAU = "tableau"
    RESERVE = "reserve"
    FOUNDATION = "foundation"
    STOCK = "stock"
    WASTE = "waste"


class Layout(enum.Enum):
    """How a client draws a pile: overlapping fan or column, a one-card cell, a stack."""

    FAN = "fan"
    COLUMN = "column"
    CELL = "cell"
    STACK = "stack"


class Direction(enum.Enum):
    UP = "up"  # from the ace
    DOWN = "down"  # from the king


class Foundation(NamedTuple):
    """A foundation pile: its fixed suit (0..3) and building direction."""

    suit: int
    direction: Direction

    @property
    def suit_letter(self) -> str:
        return SUITS[self.suit]


def aces_up(packs: int) -> tuple[Foundation, ...]:
    """Ace foundations: C S H D (two packs: C C S S H H D D), built up."""
    return tuple(Foundation(s, Direction.UP) for s in range(4) for _ in range(packs))


def aces_and_kings() -> tuple[Foundation, ...]:
    """An ace and a king of each suit: f1..f4 C S H D up, f5..f8 C S H D down."""
    return tuple(Foundation(s, d) for d in (Direction.UP, Direction.DOWN) for s in range(4))


def numbered(prefix: str, count: int) -> tuple[str, ...]:
    """``numbered("t", 3) == ("t1", "t2", "t3")``."""
    return tuple(f"{prefix}{i}" for i in range(1, count + 1))
