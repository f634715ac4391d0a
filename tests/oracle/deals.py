"""The shuffle of RULES.md "Deals" and the opening deals and redeals, dealt by hand."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from .cards import full_pack, rank_of, suit_of
from .games import SHAPES


class Generator:
    """The deal generator: Microsoft-compatible below 32000, Mersenne Twister above."""

    def __init__(self, deal: int, draws: int = 0) -> None:
        self.deal = deal
        self.ms = deal < 32000
        self.x = deal
        self.mt = random.Random(deal)
        for _ in range(draws):
            self.draw(1)

    def draw(self, n: int) -> int:
        """A number in 0..n (one generator draw)."""
        if self.ms:
            self.x = (self.x * 214013 + 2531011) % 2**33
            return ((self.x >> 16) & 0x7FFF) % (n + 1)
        return int(self.mt.random() * (n + 1))

    def shuffle(self, seq: list[int]) -> list[int]:
        for n in range(len(seq) - 1, 0, -1):
            j = self.draw(n)
            seq[n], seq[j] = seq[j], seq[n]
        return seq


def shuffled_pack(packs: int, deal: int) -> list[int]:
    """The shuffled pack of a deal; the last element is the top card (dealt first)."""
    start = full_pack(packs)
    if packs == 1 and deal < 32000:
        start = [s * 13 + r for r in range(13) for s in (0, 3, 2, 1)]
    return Generator(deal).shuffle(start)


def _dealt_order(packs: int, deal: int) -> list[int]:
    """The cards in the order they come off the stock."""
    return list(reversed(shuffled_pack(packs, deal)))


def _passes(seq: list[int], piles: dict[str, list[int]], pass_targets: Iterable[str]) -> None:
    for pile_id in pass_targets:
        piles[pile_id].append(seq.pop(0))


def expected_deal(variant_id: str, deal: int) -> dict[str, tuple[int, ...]]:
    """Every pile of a new game, dealt by hand from RULES.md's description."""
    shape = SHAPES[variant_id]
    piles: dict[str, list[int]] = {pid: [] for pid in shape.pile_ids()}
    seq = _dealt_order(shape.packs, deal)
    t = [f"t{i}" for i in range(1, shape.tableau + 1)]
    if variant_id == "cody":
        _passes(seq, piles, t * 4)
    elif variant_id == "little-billee":
        _passes(seq, piles, [f"r{i}" for i in range(1, 9)])
        _passes(seq, piles, t * 4)
    elif variant_id == "usk":
        _passes(seq, piles, [pid for row in range(8) for pid in t[: 10 - row]])
    elif variant_id == "la-belle-lucie":
        _passes(seq, piles, t[:17] + t[:17] + t[:18])
    elif variant_id in ("house-in-the-wood", "house-on-the-hill"):
        _passes(seq, piles, t[:34] + t + t)
    elif variant_id == "napoleon-at-st-helena":
        _passes(seq, piles, t * 4)
        piles["stock"] = list(reversed(seq))
        seq = []
    elif variant_id == "the-fifteen":
        _passes(seq, piles, [t[i % 15] for i in range(104)])
    elif variant_id == "bisley":
        aces = [c for c in seq if rank_of(c) == 1]
        for ace in aces:
            piles[f"f{suit_of(ace) + 1}"].append(ace)
        seq = [c for c in seq if rank_of(c) != 1]
        _passes(seq, piles, t * 3 + t[4:])
    else:  # pragma: no cover - the table above lists every game
        raise KeyError(variant_id)
    assert not seq
    return {pid: tuple(pile) for pid, pile in piles.items()}


def lucie_redeal(tableau: Sequence[Sequence[int]], deal: int, draws: int) -> list[list[int]]:
    """The La Belle Lucie family redeal: gather t1..tN bottom to top, shuffle with the
    game's generator (continuing after `draws` draws), deal in three passes."""
    gathered = [c for pile in tableau for c in pile]
    Generator(deal, draws).shuffle(gathered)
    n = len(gathered)
    fans: list[list[int]] = [[] for _ in tableau]
    for size in (n // 3, (n + 1) // 3, (n + 2) // 3):
        for i in range(size):
            fans[i].append(gathered.pop())
    assert not gathered
    return fans
