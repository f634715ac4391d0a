"""What a tableau pile accepts: build rules, fill rules for empty piles, runs."""

from __future__ import annotations

import enum
from collections.abc import Sequence

from .cards import KING, Card, is_red, rank, suit


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


class FillRule(enum.Enum):
    """What an empty tableau pile takes."""

    NEVER = "stays empty"
    ANY_CARD = "takes any available card"
    KING_ONLY = "takes only a king, or a run headed by a king"
    WASTE_ONLY = "takes only the waste's top card"

    def refusal(self, head: Card, from_waste: bool) -> str | None:
        """The rule code that refuses ``head`` (the first card moved), or None."""
        if self is FillRule.ANY_CARD:
            return None
        if self is FillRule.KING_ONLY:
            return None if rank(head) == KING else "empty_pile_needs_king"
        if self is FillRule.WASTE_ONLY:
            return None if from_waste else "empty_pile_from_waste_only"
        return "empty_pile_never_filled"


def run_length(pile: Sequence[Card], rule: BuildRule) -> int:
    """How many cards at the top of ``pile`` form a run: each fits onto the one below."""
    length = 1 if pile else 0
    fits = rule.fits
    for i in range(len(pile) - 1, 0, -1):
        if not fits(pile[i], pile[i - 1]):
            break
        length += 1
    return length
