"""La Belle Lucie: 18 fans, down in suit one card at a time, no refill, two redeals."""

from __future__ import annotations

from functools import partial

import patience
import pytest
from patience import CardMoved, Status
from pysol_cards.cards import createCards
from pysol_cards.random import shuffle as pysol_shuffle
from pysol_cards.random_base import RandomBase

from tests.oracle import (
    assert_applies,
    assert_rejected,
    card,
    card_multiset,
    cards,
    changed,
    check_lucie_redeal,
    legal_texts,
    names,
    new_game_as_dealt,
    pile_ids,
    position,
    shuffled_pack,
)

V = "la-belle-lucie"
TABLEAU = pile_ids("t", 18)
pos = partial(position, V)


# --- the deal -------------------------------------------------------------------------

# RULES.md check vectors, word for word.
CHECK_VECTORS = {
    1: "JD KS 4S | 2D 9D TH | 9H QD 8H | JC JS 2C | 5D AS JH | 7H AH 7D | 7C 3C 6D | "
    "5H 4C 8S | KD 5C 8D | KC TS QS | 9S QH 6C | 5S 4H 3D | AD AC 8C | QC 4D TC | "
    "KH 7S 6S | 3H 3S 9C | 2S TD 2H | 6H",
    123456789012: "7S 9D 6C | 2C 5S 9H | 8C 7H TS | TC KS 6H | AD 6S 5H | 9S 3C JH | "
    "5D 4D QS | 4H KH 3D | TH 6D JS | 2D 2H QD | 9C KD 3H | 2S 3S 8D | JC 4C JD | "
    "KC AH AS | 5C TD 8S | QH 7D 7C | AC QC 8H | 4S",
}


@pytest.mark.parametrize("deal", sorted(CHECK_VECTORS))
def test_rules_check_vectors(deal: int) -> None:
    state = patience.get_variant(V).new_game(deal)
    fans = [cards(fan) for fan in CHECK_VECTORS[deal].split("|")]
    assert [state.pile(t) for t in TABLEAU] == fans


@pytest.mark.parametrize("deal", [0, 1, 2, 617, 31999, 32000, 32001, 10**12 + 7, 10**20])
def test_deal_matches_rules(deal: int) -> None:
    state = new_game_as_dealt(V, deal)
    assert [len(state.pile(t)) for t in TABLEAU] == [3] * 17 + [1]
    assert (state.deal, state.draws, state.redeals_left, state.moves_made) == (deal, 51, 2, 0)
    assert (state.foundation_cards, state.stock_size, state.total_cards) == (0, 0, 52)
    assert state.status is Status.PLAYING


@pytest.mark.parametrize("deal", [1, 2, 5, 31999, 32001, 123456789012, 10**20])
def test_own_shuffle_agrees_with_pysol_cards(deal: int) -> None:
    """The tests' shuffle is checked against the pysol_cards oracle (PySolFC's own)."""
    for packs in (1, 2):
        oracle = shuffle(createCards(packs), deal)
        assert shuffled_pack(packs, deal) == oracle


def shuffle(pack: list[object], deal: int) -> list[int]:
    shuffled = pysol_shuffle(pack, deal, RandomBase.DEALS_PYSOLFC)
    return [c.suit * 13 + c.rank - 1 for c in shuffled]


# --- moves ----------------------------------------------------------------------------

BASE = dict(
    t={
        "t1": "KD 4C",
        "t2": "QS 7H",
        "t3": "8D 8H",
        "t4": "8S",
        "t5": "",
        "t6": "JH AS",
        "t7": "9H",
    },
    f={"f1": "3C", "f2": "-", "f3": "3H", "f4": "-"},
)


@pytest.fixture
def base() -> patience.State:
    return pos(**BASE)


@pytest.mark.parametrize(
    ("move", "effect"),
    [
        ("t1-f1", {"t1": "KD", "f1": "AC2C3C4C"}),
        ("t6-f2", {"t6": "JH", "f2": "AS"}),
        ("t2-t3", {"t2": "QS", "t3": "8D8H7H"}),
        ("t3-t7", {"t3": "8D", "t7": "9H8H"}),
    ],
)
def test_legal_moves(base: patience.State, move: str, effect: dict[str, str]) -> None:
    after = assert_applies(base, move)
    assert changed(base, after) == effect
    assert after.redeals_left == base.redeals_left
    assert after.draws == base.draws


@pytest.mark.parametrize(
    ("move", "rule"),
    [
        ("t3-t2", "wrong_rank"),  # 8H on 7H: builds down, not up
        ("t2-t7", "wrong_rank"),  # 7H on 9H
        ("t2-t4", "wrong_suit"),  # 7H on 8S
        ("t1-f3", "wrong_suit"),  # 4C on 3H
        ("t6-f4", "wrong_suit"),  # AS on the empty diamond foundation
        ("t4-f2", "wrong_rank"),  # 8S on the empty spade foundation
        ("t2-f3", "wrong_rank"),  # 7H on 3H
        ("t2-t5", "empty_pile_never_filled"),
        ("t5-t2", "empty_source"),
        ("t2-t3/2", "too_many_cards"),
        ("t2-t3/3", "too_many_cards"),
        ("t6-f2/2", "too_many_cards"),
        ("f1-t1", "not_a_source"),
        ("f3-f1", "not_a_source"),
        ("t1-t1", "same_pile"),
        ("t1-t19", "unknown_pile"),
        ("t1-f5", "unknown_pile"),
        ("t1-r1", "unknown_pile"),
        ("t1-waste", "unknown_pile"),
        ("stock-t1", "unknown_pile"),
        ("deal", "no_stock"),
        ("withdraw t1", "no_withdraw"),
    ],
)
def test_illegal_moves(base: patience.State, move: str, rule: str) -> None:
    assert_rejected(base, move, rule)


def test_event_of_a_transfer(base: patience.State) -> None:
    after, events = base.apply_with_events(patience.Move.parse("t2-t3"))
    assert after == base.apply(patience.Move.parse("t2-t3"))
    assert events == (CardMoved(card("7H"), "t2", 1, "t3", 2),)


# --- status and counters ----------------------------------------------------------------

ALL_BUT_HEARTS = {"f1": "KC", "f2": "KS", "f3": "4H", "f4": "KD"}


def test_won_game_takes_no_move() -> None:
    state = pos()
    assert state.status is Status.WON
    assert state.foundation_cards == 52
    assert state.legal_moves() == ()
    assert_rejected(state, "t1-f1", "game_over")
    assert_rejected(state, "redeal", "game_over")


def test_stuck_without_redeals_and_redeal_only_with_one() -> None:
    layout = {"t1": "5H 7H", "t2": "6H 9H", "t3": "8H TH JH QH KH"}
    stuck = pos(t=layout, f=ALL_BUT_HEARTS, n=0, dump=None)
    assert stuck.status is Status.STUCK
    assert stuck.legal_moves() == ()
    assert_rejected(stuck, "t2-t1", {"game_over", "wrong_rank"})
    one_left = pos(t=layout, f=ALL_BUT_HEARTS, n=1, dump=None)
    assert one_left.status is Status.PLAYING
    assert legal_texts(one_left) == {"redeal"}


def test_playing_to_the_end_counts_moves_and_foundation_cards() -> None:
    state = pos(t={"t1": "7H 6H 5H", "t2": "KH QH JH TH 9H 8H"}, f=ALL_BUT_HEARTS, n=0, dump=None)
    assert legal_texts(state) == {"t1-f3"}
    assert state.foundation_cards == 43
    for expected, src in enumerate(["t1"] * 3 + ["t2"] * 6, start=1):
        state = assert_applies(state, f"{src}-f3")
        assert state.moves_made == 300 + expected
        assert state.foundation_cards == 43 + expected
        assert state.status is (Status.WON if expected == 9 else Status.PLAYING)
    assert state.legal_moves() == ()


# --- redeals ---------------------------------------------------------------------------

REDEAL_LAYOUT = {
    "t1": "9H 2D",
    "t2": "5S",
    "t5": "QD JD TD",
    "t9": "3S 7S",
    "t18": "KH 4S 6S",
}


@pytest.mark.parametrize(
    ("deal", "redeals_left", "draws"),
    [(1, 2, 51), (123456789012, 2, 51), (40000, 1, 102), (7, 1, 97), (31999, 1, 99)],
)
def test_redeal_of_a_position_matches_rules(deal: int, redeals_left: int, draws: int) -> None:
    """The shuffle continues the generator after `draws` draws."""
    check_lucie_redeal(pos(t=REDEAL_LAYOUT, deal=deal, n=redeals_left, draws=draws))


def test_redeal_sizes_and_counters_from_new_game() -> None:
    state = patience.get_variant(V).new_game(1)
    after = assert_applies(state, "redeal")
    assert [len(after.pile(t)) for t in TABLEAU] == [3] * 17 + [1]
    assert card_multiset(after) == card_multiset(state)
    assert (after.redeals_left, after.draws, after.moves_made) == (1, 102, 1)
    assert after != state
    assert state.apply(patience.Move.redeal()) == after  # deterministic


@pytest.mark.parametrize("deal", [1, 31999, 10**15])
def test_redeal_of_a_new_game_matches_rules(deal: int) -> None:
    """All 52 cards gathered t1..t18 and shuffled as they lie (no rank-major reordering,
    which belongs to the start order only)."""
    check_lucie_redeal(patience.get_variant(V).new_game(deal))


@pytest.mark.parametrize("count", [1, 2, 3, 4, 10, 11, 12, 13, 50])
def test_redeal_pass_sizes(count: int) -> None:
    """With n cards: passes to the first n//3, (n+1)//3 and (n+2)//3 fans."""
    highest_first = [suit * 13 + rank for suit in (3, 2, 1, 0) for rank in range(12, -1, -1)]
    state = pos(t={"t1": names(highest_first[:count])}, dump=None)
    after = assert_applies(state, "redeal")
    passes = (count // 3, (count + 1) // 3, (count + 2) // 3)
    sizes = [sum(1 for p in passes if i < p) for i in range(18)]
    assert [len(after.pile(t)) for t in TABLEAU] == sizes
    assert after.draws == state.draws + count - 1
    assert card_multiset(after) == card_multiset(state)


def test_two_redeals_then_none() -> None:
    state = patience.get_variant(V).new_game(42)
    once = check_lucie_redeal(state)
    twice = check_lucie_redeal(once)
    assert (twice.redeals_left, twice.moves_made) == (0, 2)
    assert_rejected(twice, "redeal", "no_redeals_left")
    assert "redeal" not in legal_texts(twice)


def test_redeal_is_listed_while_redeals_remain(base: patience.State) -> None:
    assert "redeal" in legal_texts(base)
    assert "redeal" not in legal_texts(pos(**BASE, n=0))
    assert_rejected(pos(**BASE, n=0), "redeal", "no_redeals_left")
