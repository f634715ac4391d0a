"""An independent oracle of the moves (RULES.md, written out again): every legal move of
a state, the piles after a move, and candidate moves, legal or not, to try on the library."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence

from patience import Move, State

from .cards import is_red_card, name, rank_of, suit_of
from .deals import lucie_redeal
from .games import SHAPES, UP, Shape
from .positions import piles_by_id


def candidate_moves(state: State, max_count: int = 1) -> list[Move]:
    """Every transfer between two pile ids (counts 1..max_count), deal, redeal, and for
    The Fifteen every withdraw of one or two columns."""
    ids = state.variant.pile_ids
    moves = [Move.deal(), Move.redeal()]
    for src in ids:
        for dst in ids:
            for count in range(1, max_count + 1):
                moves.append(Move.transfer(src, dst, count=count))
    moves += [Move.transfer("t99", ids[0]), Move.transfer(ids[0], "f99")]
    tableau = [p for p in ids if p.startswith("t")]
    moves += [Move.withdraw(a) for a in tableau[:3]]
    if state.variant.id == "the-fifteen":
        moves += [Move.withdraw(a) for a in tableau[3:]]
        moves += [Move.withdraw(a, b) for i, a in enumerate(tableau) for b in tableau[i + 1 :]]
    return moves


def random_moves(state: State, rng: random.Random, count: int) -> list[Move]:
    """Moves of every kind between real and made-up pile ids, mostly illegal ones."""
    ids = [*state.variant.pile_ids, "t0", "r9", "f9", "stock", "waste"]
    tableau = [p for p in state.variant.pile_ids if p[0] == "t"]
    moves = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.8:
            count_ = 1 if rng.random() < 0.6 else rng.randint(2, 14)
            moves.append(Move.transfer(rng.choice(ids), rng.choice(ids), count=count_))
        elif roll < 0.9:
            moves.append(Move.withdraw(*rng.sample(tableau, rng.randint(1, 2))))
        else:
            moves.append(rng.choice([Move.deal(), Move.redeal()]))
    return moves


BUILDING = {
    "cody": None,
    "little-billee": None,
    "usk": "alternate-down",
    "la-belle-lucie": "suit-down",
    "house-in-the-wood": "suit-down",
    "house-on-the-hill": "suit-up-or-down",
    "napoleon-at-st-helena": "suit-down",
    "the-fifteen": "suit-up-or-down",
    "bisley": "suit-up-or-down",
}
EMPTY_TAKES = {
    "cody": "nothing",
    "little-billee": "nothing",
    "usk": "king",
    "la-belle-lucie": "nothing",
    "house-in-the-wood": "nothing",
    "house-on-the-hill": "nothing",
    "napoleon-at-st-helena": "any",
    "the-fifteen": "any",
    "bisley": "nothing",
}


def _builds_on(variant_id: str, moving: int, under: int) -> bool:
    rule = BUILDING[variant_id]
    same_suit = suit_of(moving) == suit_of(under)
    step = rank_of(moving) - rank_of(under)
    if rule == "alternate-down":
        return is_red_card(moving) != is_red_card(under) and step == -1
    if rule == "suit-down":
        return same_suit and step == -1
    if rule == "suit-up-or-down":
        return same_suit and abs(step) == 1
    return False


def _is_run(variant_id: str, run: Sequence[int]) -> bool:
    return all(_builds_on(variant_id, b, a) for a, b in itertools.pairwise(run))


def _fits_foundation(shape: Shape, index: int, pile: Sequence[int], moving: int) -> bool:
    suit, direction = shape.foundations[index]
    if name(moving)[1] != suit:
        return False
    wanted = len(pile) + 1 if direction == UP else 13 - len(pile)
    return rank_of(moving) == wanted


def fifteen_withdraws(piles: Mapping[str, Sequence[int]]) -> set[str]:
    """RULES.md: while no foundation is started and no available card is an ace or a
    king, withdraw an ace, a king, or one of each from the sixth row (not a top card)."""
    tableau = [f"t{i}" for i in range(1, 16)]
    if any(piles[f"f{i}"] for i in range(1, 9)):
        return set()
    if any(piles[t] and rank_of(piles[t][-1]) in (1, 13) for t in tableau):
        return set()
    found = [t for t in tableau if len(piles[t]) > 6 and rank_of(piles[t][5]) in (1, 13)]
    pairs = {
        f"withdraw {a} {b}"
        for i, a in enumerate(found)
        for b in found[i + 1 :]
        if {rank_of(piles[a][5]), rank_of(piles[b][5])} == {1, 13}
    }
    return {f"withdraw {t}" for t in found} | pairs


def oracle_moves(state: State) -> set[str]:
    """Every legal move of a state, in notation, worked out from RULES.md alone."""
    vid = state.variant.id
    shape = SHAPES[vid]
    piles = piles_by_id(state)
    if sum(len(piles[p]) for p in piles if p[0] == "f") == shape.pack_size:
        return set()  # won
    moves: set[str] = set()
    withdraws = fifteen_withdraws(piles) if vid == "the-fifteen" else set()
    moves |= withdraws
    if shape.stock and piles["stock"]:
        moves.add("deal")
    if state.redeals_left > 0:
        moves.add("redeal")
    sources = [p for p in piles if p[0] in "tr" or p == "waste"]
    for src in sources:
        pile = piles[src]
        if not pile:
            continue
        counts = range(1, len(pile) + 1) if vid == "usk" and src[0] == "t" else (1,)
        for count in counts:
            run = pile[len(pile) - count :]
            if count > 1 and not _is_run(vid, run):
                break
            suffix = f"/{count}" if count > 1 else ""
            for dst, target in piles.items():
                if dst == src or dst in ("stock", "waste"):
                    continue
                if dst[0] == "f":
                    index = int(dst[1:]) - 1
                    if count == 1 and _fits_foundation(shape, index, target, run[0]):
                        moves.add(f"{src}-{dst}")
                elif dst[0] == "r":
                    if src[0] == "t" and not target and count == 1:
                        moves.add(f"{src}-{dst}")
                elif src[0] != "r":  # to the tableau; reserve cards only go to foundations
                    if target:
                        if _builds_on(vid, run[0], target[-1]):
                            moves.add(f"{src}-{dst}{suffix}")
                        continue
                    rule = EMPTY_TAKES[vid]
                    if rule == "any" and "fill_from_waste_only" in state.options:
                        rule = "waste" if src == "waste" else "nothing"
                    if rule in ("any", "waste") or (rule == "king" and rank_of(run[0]) == 13):
                        moves.add(f"{src}-{dst}{suffix}")
    return moves


def _usk_rows(gathered: list[int]) -> list[list[int]]:
    columns: list[list[int]] = [[] for _ in range(10)]
    width = 10
    while gathered:
        for column in columns[:width]:
            if gathered:
                column.append(gathered.pop(0))
        width -= 1
    return columns


def piles_after(state: State, move: Move) -> tuple[dict[str, tuple[int, ...]], int]:
    """The piles and the generator draws after a legal move, worked out from RULES.md."""
    piles = {pid: list(pile) for pid, pile in piles_by_id(state).items()}
    draws = state.draws
    tableau = [p for p in piles if p[0] == "t"]
    kind = move.kind.name
    if kind == "TRANSFER":
        run = piles[move.source][len(piles[move.source]) - move.count :]
        del piles[move.source][len(piles[move.source]) - move.count :]
        piles[move.target] += run
    elif kind == "DEAL":
        piles["waste"].append(piles["stock"].pop())
    elif kind == "WITHDRAW":
        for column in move.columns:
            withdrawn = piles[column].pop(5)
            offset = 1 if rank_of(withdrawn) == 1 else 5
            piles[f"f{suit_of(withdrawn) + offset}"].append(withdrawn)
    elif state.variant.id == "little-billee":
        gathered = [c for t in reversed(tableau) for c in piles[t]]
        for i, t in enumerate(tableau):
            piles[t] = gathered[4 * i : 4 * i + 4]
    elif state.variant.id == "usk":
        gathered = [c for t in reversed(tableau) for c in piles[t]]
        for t, column in zip(tableau, _usk_rows(gathered), strict=True):
            piles[t] = column
    else:  # the La Belle Lucie family
        count = sum(len(piles[t]) for t in tableau)
        fans = lucie_redeal([piles[t] for t in tableau], state.deal, state.draws)
        for t, fan in zip(tableau, fans, strict=True):
            piles[t] = fan
        draws += max(count - 1, 0)
    return {pid: tuple(pile) for pid, pile in piles.items()}, draws
