"""Cards as small integers: ``suit * 13 + (rank - 1)``, suits C S H D."""

from __future__ import annotations

from typing import Final

from .errors import NotationError

Card = int

SUITS: Final = "CSHD"
RANKS: Final = "A23456789TJQK"
ACE: Final = 1
KING: Final = 13
CARDS_PER_PACK: Final = 52

CARD_NAMES: Final[tuple[str, ...]] = tuple(r + s for s in SUITS for r in RANKS)
_CARD_CODES: Final[dict[str, Card]] = {name: code for code, name in enumerate(CARD_NAMES)}


def rank(card: Card) -> int:
    """1 (ace) .. 13 (king)."""
    return card % 13 + 1


def suit(card: Card) -> int:
    """0 clubs, 1 spades, 2 hearts, 3 diamonds."""
    return card // 13


def is_red(card: Card) -> bool:
    """Hearts and diamonds (codes 26..51) are red."""
    return card >= 26


def card_name(card: Card) -> str:
    """``"JD"``, ``"AS"``, ``"TH"``."""
    if not 0 <= card < CARDS_PER_PACK:
        raise ValueError(f"no card has code {card}")
    return CARD_NAMES[card]


def parse_card(text: str) -> Card:
    """The card named by rank then suit, e.g. ``"JD"``."""
    code = _CARD_CODES.get(text)
    if code is None:
        raise NotationError(
            f"expected a card as rank (one of {RANKS}) then suit (one of {SUITS}), got {text!r}"
        )
    return code


def start_order(packs: int) -> list[Card]:
    """The unshuffled stock: for each pack, C S H D, each from A to K."""
    return list(range(CARDS_PER_PACK)) * packs


def parse_cards(text: str) -> tuple[Card, ...]:
    """Cards written together, bottom card first (``JDKS4S``), read back."""
    if len(text) % 2:
        raise NotationError(f"expected cards written as pairs like JDKS4S, got {text!r}")
    return tuple(parse_card(text[i : i + 2]) for i in range(0, len(text), 2))
