"""The nine games' shapes as RULES.md describes them: piles, foundations, redeals."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import SUITS

UP, DOWN = "up", "down"
ACES_ONE_PACK = tuple((s, UP) for s in "CSHD")
ACES_TWO_PACKS = tuple((s, UP) for s in "CCSSHHDD")
ACE_AND_KING = tuple((s, UP) for s in "CSHD") + tuple((s, DOWN) for s in "CSHD")


@dataclass(frozen=True)
class Shape:
    packs: int
    tableau: int
    reserve: int
    foundations: tuple[tuple[str, str], ...]
    stock: bool
    redeals: int
    tableau_layout: str

    @property
    def pack_size(self) -> int:
        return 52 * self.packs

    def pile_ids(self) -> tuple[str, ...]:
        ids = [f"t{i}" for i in range(1, self.tableau + 1)]
        ids += [f"r{i}" for i in range(1, self.reserve + 1)]
        ids += [f"f{i}" for i in range(1, len(self.foundations) + 1)]
        if self.stock:
            ids += ["stock", "waste"]
        return tuple(ids)


SHAPES: dict[str, Shape] = {
    "cody": Shape(2, 26, 8, ACE_AND_KING, False, 0, "fan"),
    "little-billee": Shape(2, 24, 8, ACE_AND_KING, False, 2, "fan"),
    "usk": Shape(1, 10, 0, ACES_ONE_PACK, False, 1, "column"),
    "la-belle-lucie": Shape(1, 18, 0, ACES_ONE_PACK, False, 2, "fan"),
    "house-in-the-wood": Shape(2, 35, 0, ACES_TWO_PACKS, False, 2, "fan"),
    "house-on-the-hill": Shape(2, 35, 0, ACE_AND_KING, False, 2, "fan"),
    "napoleon-at-st-helena": Shape(2, 10, 0, ACES_TWO_PACKS, True, 0, "column"),
    "the-fifteen": Shape(2, 15, 0, ACE_AND_KING, False, 0, "column"),
    "bisley": Shape(1, 13, 0, ACE_AND_KING, False, 0, "column"),
}


def foundation_run(suit: str, direction: str, top: int) -> tuple[int, ...]:
    """The cards of a foundation whose top card has rank `top` (0: empty)."""
    s = SUITS.index(suit)
    if direction == UP:
        return tuple(s * 13 + r - 1 for r in range(1, top + 1))
    return tuple(s * 13 + r - 1 for r in range(13, top - 1, -1)) if top else ()


LUCIE_FAMILY = ("la-belle-lucie", "house-in-the-wood", "house-on-the-hill")
