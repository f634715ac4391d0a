"""Deal numbers and the shuffle (PySolFC-compatible, see docs/rules.md "Deals").

Deal numbers 0..31999 use the Microsoft-compatible linear congruential generator,
larger ones Python's Mersenne Twister seeded with the number. Both are reduced to
"draws": one draw picks a position in 0..n. The generator state of a game is fully
described by (deal number, draws consumed), which is what a state stores.
"""

from __future__ import annotations

import random
import secrets
from typing import Final, TypeVar

from .cards import CARDS_PER_PACK, Card, start_order
from .errors import BadDealNumber

MAX_DEAL: Final = 10**20
MS_DEALS: Final = 32_000  # deal numbers below this use the Microsoft-compatible generator
RANDOM_DEAL_LOW: Final = 10**16  # a deal drawn at random lies in RANDOM_DEAL_LOW..MAX_DEAL

T = TypeVar("T")

_MS_MULTIPLIER: Final = 214_013
_MS_INCREMENT: Final = 2_531_011
_MS_MASK: Final = (1 << 33) - 1


def check_deal_number(deal: object) -> int:
    """The deal number itself, or :class:`BadDealNumber`."""
    if isinstance(deal, bool) or not isinstance(deal, int):
        raise BadDealNumber(f"a deal number is a whole number, got {deal!r}")
    if not 0 <= deal <= MAX_DEAL:
        raise BadDealNumber(f"deal numbers run from 0 to 10^20, got {deal}")
    return deal


def random_deal_number() -> int:
    """A deal number from the operating system's random source."""
    return RANDOM_DEAL_LOW + secrets.randbelow(MAX_DEAL - RANDOM_DEAL_LOW + 1)


class Generator:
    """The deal's random stream; ``draw(n)`` gives a position in 0..n."""

    __slots__ = ("_ms_state", "_mt", "draws")

    def __init__(self, deal: int, draws: int = 0) -> None:
        check_deal_number(deal)
        self.draws = 0
        if deal < MS_DEALS:
            self._ms_state = deal
            self._mt: random.Random | None = None
        else:
            self._ms_state = 0
            self._mt = random.Random(deal)
        for _ in range(draws):
            self.draw(1)

    def draw(self, n: int) -> int:
        self.draws += 1
        if self._mt is not None:
            return int(self._mt.random() * (n + 1))
        self._ms_state = (self._ms_state * _MS_MULTIPLIER + _MS_INCREMENT) & _MS_MASK
        return ((self._ms_state >> 16) & 0x7FFF) % (n + 1)


def shuffle(cards: list[T], generator: Generator) -> None:
    """Fisher-Yates from the end, in place: uses ``len(cards) - 1`` draws."""
    for n in range(len(cards) - 1, 0, -1):
        j = generator.draw(n)
        cards[n], cards[j] = cards[j], cards[n]


def rank_major(cards: list[Card]) -> list[Card]:
    """The Microsoft order of one pack: for each rank A..K, its C, D, H, S card."""
    return [cards[r + s * 13] for r in range(13) for s in (0, 3, 2, 1)]


def shuffled_stock(packs: int, deal: int) -> tuple[list[Card], int]:
    """The shuffled stock of deal ``deal`` (last element = top card) and the draws used."""
    generator = Generator(deal)
    cards = start_order(packs)
    if deal < MS_DEALS and len(cards) == CARDS_PER_PACK:
        cards = rank_major(cards)
    shuffle(cards, generator)
    return cards, generator.draws
