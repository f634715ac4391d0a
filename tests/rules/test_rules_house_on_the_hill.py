"""The House on the Hill: two packs, 35 fans, builds up or down in suit; an ace and a king
foundation of each suit; two redeals as La Belle Lucie."""

from __future__ import annotations

from functools import partial

import patience
import pytest
from patience import Status

from tests.oracle import (
    assert_applies,
    assert_rejected,
    card_multiset,
    changed,
    check_lucie_redeal,
    legal_texts,
    new_game_as_dealt,
    pile_ids,
    position,
)

V = "house-on-the-hill"
TABLEAU = pile_ids("t", 35)
pos = partial(position, V)


@pytest.mark.parametrize("deal", [0, 1, 31999, 32000, 55555555555, 10**20])
def test_deal_matches_rules(deal: int) -> None:
    state = new_game_as_dealt(V, deal)
    assert [len(state.pile(t)) for t in TABLEAU] == [3] * 34 + [2]
    assert (state.draws, state.redeals_left, state.moves_made) == (103, 2, 0)
    assert (state.foundation_cards, state.total_cards) == (0, 104)


# --- moves ----------------------------------------------------------------------------

BASE = dict(
    t={
        "t1": "QD 5H",
        "t2": "9S 6H",
        "t3": "4H",
        "t4": "8D 5H",
        "t5": "",
        "t6": "7S 7C",
        "t7": "KS",
        "t8": "6S",
        "t9": "AS",
        "t10": "KH",
        "t11": "AH",
    },
    # f1..f4 up C S H D; f5..f8 down C S H D
    f={"f1": "6C", "f2": "-", "f3": "3H", "f4": "-", "f5": "8C", "f6": "-", "f7": "-", "f8": "-"},
)


@pytest.fixture
def base() -> patience.State:
    return pos(**BASE)


@pytest.mark.parametrize(
    ("move", "effect"),
    [
        ("t1-t2", {"t1": "QD", "t2": "9S6H5H"}),  # down in suit
        ("t1-t3", {"t1": "QD", "t3": "4H5H"}),  # up in suit
        ("t3-t1", {"t3": "-", "t1": "QD5H4H"}),
        ("t2-t4", {"t2": "9S", "t4": "8D5H6H"}),
        ("t6-f1", {"t6": "7S", "f1": "AC2C3C4C5C6C7C"}),  # 7C fits both clubs foundations
        ("t6-f5", {"t6": "7S", "f5": "KCQCJCTC9C8C7C"}),
        ("t7-f6", {"t7": "-", "f6": "KS"}),  # a king starts its down-foundation
        ("t9-f2", {"t9": "-", "f2": "AS"}),
        ("t3-f3", {"t3": "-", "f3": "AH2H3H4H"}),
        ("t10-f7", {"t10": "-", "f7": "KH"}),
    ],
)
def test_legal_moves(base: patience.State, move: str, effect: dict[str, str]) -> None:
    after = assert_applies(base, move)
    assert changed(base, after) == effect


@pytest.mark.parametrize(
    ("move", "rule"),
    [
        ("t1-t4", "wrong_rank"),  # 5H on the other 5H
        ("t1-t8", "wrong_suit"),  # 5H on 6S
        ("t10-t11", "wrong_rank"),  # KH on AH: ranks never wrap
        ("t11-t10", "wrong_rank"),  # AH on KH
        ("t7-f2", "wrong_rank"),  # KS on the empty up-foundation of spades
        ("t9-f6", "wrong_rank"),  # AS on the empty down-foundation of spades
        ("t7-f7", "wrong_suit"),  # KS on the empty hearts down-foundation
        ("t9-f4", "wrong_suit"),  # AS on the empty diamonds up-foundation
        ("t11-f7", "wrong_rank"),  # AH on an empty down-foundation
        ("t11-f3", "wrong_rank"),  # AH on 3H
        ("t1-f3", "wrong_rank"),  # 5H on 3H
        ("t1-t5", "empty_pile_never_filled"),
        ("t5-t1", "empty_source"),
        ("t1-t2/2", "too_many_cards"),
        ("f1-t5", "not_a_source"),
        ("f5-f1", "not_a_source"),
        ("t1-t1", "same_pile"),
        ("t36-t1", "unknown_pile"),
        ("t1-f9", "unknown_pile"),
        ("deal", "no_stock"),
        ("withdraw t1 t2", "no_withdraw"),
    ],
)
def test_illegal_moves(base: patience.State, move: str, rule: str) -> None:
    assert_rejected(base, move, rule)


def test_down_foundation_runs_to_the_ace() -> None:
    """Both copies of a suit end on foundations: one up to the king, one down to the ace."""
    state = pos(t={"t1": "AH"}, f={"f3": "KH", "f7": "2H"}, dump=None)
    assert_rejected(state, "t1-f3", "wrong_rank")
    won = assert_applies(state, "t1-f7")
    assert won.status is Status.WON and won.foundation_cards == 104


# --- status ----------------------------------------------------------------------------


def test_won_game_takes_no_move() -> None:
    state = pos()
    assert state.status is Status.WON and state.legal_moves() == ()
    assert_rejected(state, "t1-t2", "game_over")


def test_stuck_and_redeal_only() -> None:
    layout = {"t1": "5H 3H", "t2": "2H 4H AH"}
    found = {"f3": "KH", "f7": "6H"}
    stuck = pos(t=layout, f=found, n=0, dump=None)
    assert stuck.status is Status.STUCK and stuck.legal_moves() == ()
    one_left = pos(t=layout, f=found, n=1, dump=None)
    assert legal_texts(one_left) == {"redeal"}


# --- redeals ---------------------------------------------------------------------------


def test_redeal_from_new_game() -> None:
    state = patience.get_variant(V).new_game(33333)
    after = check_lucie_redeal(state)
    assert [len(after.pile(t)) for t in TABLEAU] == [3] * 34 + [2]
    assert card_multiset(after) == card_multiset(state)


@pytest.mark.parametrize("deal", [2, 10**19])
def test_redeals_of_a_position_match_rules(deal: int) -> None:
    state = pos(t={"t2": "9D 8D", "t7": "QS", "t20": "5C 2H JH KD"}, deal=deal, n=1)
    once = check_lucie_redeal(state)
    assert once.redeals_left == 0
    assert_rejected(once, "redeal", "no_redeals_left")
