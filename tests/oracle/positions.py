"""Positions built in the state notation (``patience.parse_state``) from a partial
description; the cards the description leaves out are placed somewhere harmless (see
:func:`position`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import patience
from patience import State

from .cards import RANKS, cards, full_pack, name, names, rank_of, suit_of
from .deals import expected_deal
from .games import LUCIE_FAMILY, SHAPES, UP, foundation_run


def position(
    variant_id: str,
    *,
    t: Mapping[str, str] | None = None,
    r: Mapping[str, str] | None = None,
    f: Mapping[str, str] | None = None,
    stock: str | None = None,
    waste: str = "",
    options: Sequence[str] = (),
    n: int | None = None,
    m: int = 300,
    deal: int = 1,
    draws: int | None = None,
    fill: bool = True,
    dump: str | None = "auto",
) -> State:
    """A valid position from a partial description, parsed from the state notation.

    `t`, `r`: pile id -> its cards bottom to top (`"9S 8H"`); `f`: foundation id -> its
    top card (`"5C"`) or `"-"`. Foundations not named are, with `fill`, built as far as
    the unused cards allow (up-foundations first), which leaves few cards over. Those go
    to `dump` ("auto": the last tableau pile not named; `None`: there must be none),
    lowest rank at the bottom, so the dump's top card is a high card that is not the
    next card of any foundation. `m` (moves made) defaults to a count large enough for
    any redeals and deals the position implies.
    """
    shape = SHAPES[variant_id]
    tableau = dict(t or {})
    reserve = dict(r or {})
    found = dict(f or {})
    pool = Counter(full_pack(shape.packs))
    piles: dict[str, tuple[int, ...]] = {pid: () for pid in shape.pile_ids()}

    def take(pile_cards: tuple[int, ...], where: str) -> tuple[int, ...]:
        for c in pile_cards:
            if pool[c] <= 0:
                raise ValueError(f"{name(c)} used too often ({where})")
            pool[c] -= 1
        return pile_cards

    for pid, text in {**tableau, **reserve}.items():
        piles[pid] = take(cards(text), pid)
    if stock is not None:
        piles["stock"] = take(cards(stock), "stock")
    if waste:
        piles["waste"] = take(cards(waste), "waste")
    for i, (suit, direction) in enumerate(shape.foundations, start=1):
        pid = f"f{i}"
        if pid in found:
            top = found[pid]
            rank = 0 if top == "-" else RANKS.index(top[0]) + 1
            if top != "-" and top[1] != suit:
                raise ValueError(f"{pid} holds {suit}, not {top}")
            piles[pid] = take(foundation_run(suit, direction, rank), pid)
    if fill:
        for i, (suit, direction) in enumerate(shape.foundations, start=1):
            pid = f"f{i}"
            if pid in found:
                continue
            run: list[int] = []
            for c in foundation_run(suit, direction, 13 if direction == UP else 1):
                if pool[c] <= 0:
                    break
                pool[c] -= 1
                run.append(c)
            piles[pid] = tuple(run)
    leftover = sorted(pool.elements(), key=lambda c: (rank_of(c), suit_of(c)))
    if leftover:
        if dump is None:
            raise ValueError(f"cards left over: {names(leftover)}")
        if dump == "auto":
            free = [f"t{i}" for i in range(shape.tableau, 0, -1) if f"t{i}" not in tableau]
            dump = free[0]
        piles[dump] = piles[dump] + tuple(leftover)
    text = notation(
        variant_id,
        piles,
        options=options,
        n=shape.redeals if n is None else n,
        m=m,
        deal=deal,
        draws=default_draws(variant_id, n) if draws is None else draws,
    )
    return patience.parse_state(text)


def default_draws(variant_id: str, redeals_left: int | None) -> int:
    """Draws consumed by the deal, plus a whole-pack shuffle per redeal used (Lucie family)."""
    shape = SHAPES[variant_id]
    used = shape.redeals - (shape.redeals if redeals_left is None else redeals_left)
    shuffles = used if variant_id in LUCIE_FAMILY else 0
    return (shape.pack_size - 1) * (1 + max(shuffles, 0))


def notation(
    variant_id: str,
    piles: Mapping[str, Sequence[int]],
    *,
    options: Sequence[str] = (),
    n: int,
    m: int = 0,
    deal: int = 1,
    draws: int,
) -> str:
    """The state notation of the contract, written out by hand."""
    shape = SHAPES[variant_id]
    ids = shape.pile_ids()
    head = variant_id + "".join("+" + o for o in options)
    fields = [head, "t:" + "/".join(names(piles[p]) for p in ids if p[0] == "t")]
    if shape.reserve:
        fields.append("r:" + "/".join(names(piles[p]) for p in ids if p[0] == "r"))
    fields.append(
        "f:" + "/".join(name(piles[p][-1]) if piles[p] else "-" for p in ids if p[0] == "f")
    )
    if shape.stock:
        fields.append("s:" + names(piles["stock"]))
        fields.append("w:" + names(piles["waste"]))
    fields += [f"n:{n}", f"m:{m}", f"d:{deal}/{draws}"]
    return " ".join(fields)


def piles_by_id(state: State) -> dict[str, tuple[int, ...]]:
    return dict(zip(state.variant.pile_ids, state.piles, strict=True))


def pile_ids(prefix: str, count: int) -> list[str]:
    """`pile_ids("t", 3)` -> `["t1", "t2", "t3"]`."""
    return [f"{prefix}{i}" for i in range(1, count + 1)]


def new_game_as_dealt(variant_id: str, deal: int) -> State:
    """A new game of `deal`, checked pile by pile against the hand-dealt `expected_deal`."""
    state = patience.get_variant(variant_id).new_game(deal)
    assert piles_by_id(state) == expected_deal(variant_id, deal)
    return state


def card_multiset(state: State) -> Counter[int]:
    return Counter(c for pile in state.piles for c in pile)
