"""What a tableau pile accepts: build rules, fill rules for empty piles, runs.

Declarations only: the compiled rules (tables.py) turn each rule into per-card tables
once, and every move, legal-move list and solver step reads those tables.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from .cards import KING, Card, is_red, rank, suit
from .piles import PileKind


class BuildRule(enum.Enum):
    """How cards are placed on a non-empty tableau pile."""

    NONE = "never takes cards"
    DOWN_IN_SUIT = "down in suit"
    UP_OR_DOWN_IN_SUIT = "up or down in suit"
    DOWN_ALTERNATE_COLOUR = "down in alternate colour"

    def wanted(self, top: Card) -> tuple[Card, ...]:
        """Every card that may be placed on ``top``, in code order."""
        return tuple(card for card in range(52) if self.fits(card, top))

    def fits(self, card: Card, top: Card) -> bool:
        difference = rank(top) - rank(card)
        if self is BuildRule.DOWN_IN_SUIT:
            return suit(card) == suit(top) and difference == 1
        if self is BuildRule.UP_OR_DOWN_IN_SUIT:
            return suit(card) == suit(top) and difference in (1, -1)
        if self is BuildRule.DOWN_ALTERNATE_COLOUR:
            return is_red(card) != is_red(top) and difference == 1
        return False

    def misfit(self, card: Card, top: Card) -> str:
        """The rule code that ``card`` on ``top`` breaks (it must not fit)."""
        if self in (BuildRule.DOWN_IN_SUIT, BuildRule.UP_OR_DOWN_IN_SUIT):
            if suit(card) != suit(top):
                return "wrong_suit"
        elif self is BuildRule.DOWN_ALTERNATE_COLOUR and is_red(card) == is_red(top):
            return "wrong_colour"
        return "wrong_rank"


@dataclass(frozen=True, eq=False)
class FillRule:
    """What an empty tableau pile takes: one row of the fill table below.

    ``takes(head, source)`` says whether the pile takes ``head`` (the card moved, or the
    first card of a run moved as a unit) when it comes from a pile of kind ``source``;
    ``refusal`` is the rule code of a move it does not take. The compiled rules turn the
    row into per-card tables once (``RuleSet.empty_takes``, ``RuleSet.fill_refusals``),
    which the rules' moves and the solver read: a new kind of fill rule is one new row.
    """

    description: str  # completes "an empty tableau pile ..."
    takes: Callable[[Card, PileKind], bool]
    refusal: str = ""  # unused by a rule that takes every card

    NEVER: ClassVar[FillRule]
    ANY_CARD: ClassVar[FillRule]
    KING_ONLY: ClassVar[FillRule]
    WASTE_ONLY: ClassVar[FillRule]

    def __repr__(self) -> str:
        return f"<FillRule {self.description}>"


# The fill table: the rules of the nine games.
FillRule.NEVER = FillRule("stays empty", lambda head, source: False, "empty_pile_never_filled")
FillRule.ANY_CARD = FillRule("takes any available card", lambda head, source: True)
FillRule.KING_ONLY = FillRule(
    "takes only a king, or a run headed by a king",
    lambda head, source: rank(head) == KING,
    "empty_pile_needs_king",
)
FillRule.WASTE_ONLY = FillRule(
    "takes only the waste's top card",
    lambda head, source: source is PileKind.WASTE,
    "empty_pile_from_waste_only",
)
