"""Helpers for the rules tests: an independent reading of RULES.md.

Everything here is derived from the specification, not from the library: the
shuffle, the dealing patterns and the foundation layout are written out again so
that the tests compare the library against a second implementation. Positions are
built in the state notation (`patience.parse_state`) from a partial description;
the cards the description leaves out are placed somewhere harmless (see
`position`).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import patience
import pytest
from hypothesis import strategies as st
from patience import IllegalMove, Move, State

RANKS = "A23456789TJQK"
SUITS = "CSHD"

VARIANT_IDS = (
    "cody",
    "little-billee",
    "usk",
    "la-belle-lucie",
    "house-in-the-wood",
    "house-on-the-hill",
    "napoleon-at-st-helena",
    "the-fifteen",
    "bisley",
)


# --- cards ---------------------------------------------------------------------------


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


# --- the nine games as RULES.md describes them ---------------------------------------

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


def full_pack(packs: int) -> list[int]:
    return [c for _ in range(packs) for c in range(52)]


# --- the shuffle of RULES.md "Deals" ---------------------------------------------------


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


# --- building positions --------------------------------------------------------------


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


LUCIE_FAMILY = ("la-belle-lucie", "house-in-the-wood", "house-on-the-hill")


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


# --- asserting moves ---------------------------------------------------------------


def as_move(move: str | Move) -> Move:
    return Move.parse(move) if isinstance(move, str) else move


def legal_texts(state: State) -> set[str]:
    return {str(m) for m in state.legal_moves()}


def assert_rejected(state: State, move: str | Move, rule: str | set[str]) -> IllegalMove:
    """The move is illegal for `rule` (or one of a set), and the state is as it was."""
    mv = as_move(move)
    text = state.to_notation()
    copy = patience.parse_state(text)
    returned: object = "nothing raised"
    with pytest.raises(IllegalMove) as info:
        returned = state.apply(mv)
    assert returned == "nothing raised"  # apply raised before returning anything
    rules = {rule} if isinstance(rule, str) else rule
    assert info.value.rule in rules, f"{mv}: rule {info.value.rule!r}, expected {rules}"
    assert str(info.value) and info.value.code
    assert state == copy and state.to_notation() == text and hash(state) == hash(copy)
    assert not state.is_legal(mv)
    assert mv not in state.legal_moves()
    return info.value


def assert_applies(state: State, move: str | Move) -> State:
    """The move is listed, legal, applies, keeps every card and counts as one move."""
    mv = as_move(move)
    text = state.to_notation()
    assert mv in state.legal_moves(), f"{mv} not in {sorted(legal_texts(state))}"
    assert state.is_legal(mv)
    after = state.apply(mv)
    assert state.to_notation() == text
    assert after.moves_made == state.moves_made + 1
    assert card_multiset(after) == card_multiset(state)
    return after


def changed(before: State, after: State) -> dict[str, str]:
    """The piles that differ, written as card strings."""
    b, a = piles_by_id(before), piles_by_id(after)
    return {pid: names(a[pid]) for pid in b if a[pid] != b[pid]}


# --- enumerating candidate moves ------------------------------------------------------


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


# --- Hypothesis strategies ----------------------------------------------------------

deal_numbers = st.one_of(
    st.integers(min_value=0, max_value=31999),
    st.integers(min_value=32000, max_value=10**20),
)


@dataclass(frozen=True)
class Walk:
    """A random game: `states[i + 1] == states[i].apply(moves[i])`."""

    states: tuple[State, ...]
    moves: tuple[Move, ...]

    @property
    def last(self) -> State:
        return self.states[-1]


@st.composite
def played_games(draw: st.DrawFn, variant_id: str, max_moves: int = 16) -> Walk:
    """A new game (either deal range; Napoleon with or without its option) and a random
    walk of legal moves from it. The walk is steered by one drawn seed: Hypothesis
    shrinks the deal, the length and the seed, and each example stays cheap."""
    deal = draw(deal_numbers, label="deal")
    options: tuple[str, ...] = ()
    if variant_id == "napoleon-at-st-helena" and draw(st.booleans(), label="option"):
        options = ("fill_from_waste_only",)
    length = draw(st.integers(0, max_moves), label="length")
    rng = random.Random(draw(st.integers(0, 2**32 - 1), label="seed"))
    state = patience.get_variant(variant_id).new_game(deal, options=options)
    states, moves = [state], []
    for _ in range(length):
        legal = state.legal_moves()
        if not legal:
            break
        move = rng.choice(legal)
        state = state.apply(move)
        states.append(state)
        moves.append(move)
    return Walk(tuple(states), tuple(moves))


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


def check_lucie_redeal(state: State) -> State:
    """Redeal in the La Belle Lucie family and compare with RULES.md: gather t1..tN bottom
    to top, shuffle with the generator after `draws` draws, three passes; foundations,
    counters and the generator's position follow."""
    after = assert_applies(state, "redeal")
    ids = state.variant.pile_ids
    tableau = [p for p in ids if p.startswith("t")]
    before = [state.pile(p) for p in tableau]
    count = sum(len(p) for p in before)
    expected = lucie_redeal(before, state.deal, state.draws)
    assert {p: names(after.pile(p)) for p in tableau} == {
        p: names(fan) for p, fan in zip(tableau, expected, strict=True)
    }
    assert after.draws == state.draws + max(count - 1, 0)
    assert after.redeals_left == state.redeals_left - 1
    assert [after.pile(p) for p in ids if p[0] == "f"] == [
        state.pile(p) for p in ids if p[0] == "f"
    ]
    assert after.deal == state.deal
    return after


# --- an independent oracle of the legal moves (RULES.md, written out again) ----------------

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
