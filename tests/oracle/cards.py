"""Cards as RULES.md writes them: rank then suit, e.g. ``"TH"``; codes are
``suit * 13 + rank - 1`` with suits C S H D (written out again here on purpose)."""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "A23456789TJQK"
SUITS = "CSHD"


def card(text: str) -> int:
    """`"TH"` -> the card code `suit * 13 + rank - 1` (written out again here on purpose)."""
    if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise ValueError(f"not a card: {text!r}")
    return SUITS.index(text[1]) * 13 + RANKS.index(text[0])


def cards(text: str) -> tuple[int, ...]:
    """`"5H 6H"` or `"5H6H"` -> card codes, in the order written; `""`/`"-"` is empty."""
    squeezed = text.replace(" ", "").replace("|", "")
    if squeezed in ("", "-"):
        return ()
    if len(squeezed) % 2:
        raise ValueError(f"odd card string: {text!r}")
    return tuple(card(squeezed[i : i + 2]) for i in range(0, len(squeezed), 2))


def name(code: int) -> str:
    return RANKS[code % 13] + SUITS[code // 13]


def names(pile: Iterable[int]) -> str:
    return "".join(name(c) for c in pile) or "-"


def rank_of(code: int) -> int:
    return code % 13 + 1


def suit_of(code: int) -> int:
    return code // 13


def is_red_card(code: int) -> bool:
    return suit_of(code) in (2, 3)


def full_pack(packs: int) -> list[int]:
    return [c for _ in range(packs) for c in range(52)]
