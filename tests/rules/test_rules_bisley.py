"""Bisley: one pack, the aces start on f1..f4, thirteen columns (4 of 3, 9 of 4), up or
down in suit, empty columns stay empty; kings start f5..f8 and build down; the two
foundations of a suit may meet anywhere."""

from __future__ import annotations

from functools import partial

import patience
import pytest
from patience import Status

from tests.oracle import (
    assert_applies,
    assert_rejected,
    cards,
    changed,
    legal_texts,
    new_game_as_dealt,
    pile_ids,
    position,
    rank_of,
    shuffled_pack,
)

V = "bisley"
TABLEAU = pile_ids("t", 13)
pos = partial(position, V)


# --- the deal -------------------------------------------------------------------------


@pytest.mark.parametrize("deal", [0, 1, 2, 31999, 32000, 31415926535, 10**20])
def test_deal_matches_rules(deal: int) -> None:
    state = new_game_as_dealt(V, deal)
    assert [len(state.pile(t)) for t in TABLEAU] == [3] * 4 + [4] * 9
    assert [state.pile(f) for f in ("f1", "f2", "f3", "f4")] == [
        cards("AC"),
        cards("AS"),
        cards("AH"),
        cards("AD"),
    ]
    assert all(not state.pile(f) for f in ("f5", "f6", "f7", "f8"))
    assert (state.foundation_cards, state.total_cards, state.draws) == (4, 52, 51)
    assert (state.redeals_left, state.moves_made) == (0, 0)


@pytest.mark.parametrize("deal", [1, 40000])
def test_rows_keep_the_shuffled_order_without_the_aces(deal: int) -> None:
    """Three rows over t1..t13 then a row over t5..t13, from the top of the shuffled pack."""
    order = [c for c in reversed(shuffled_pack(1, deal)) if rank_of(c) != 1]
    state = patience.get_variant(V).new_game(deal)
    rows = [[state.pile(t)[r] for t in TABLEAU] for r in range(3)]
    rows.append([state.pile(t)[3] for t in TABLEAU[4:]])
    assert [c for row in rows for c in row] == order


# --- moves ----------------------------------------------------------------------------

BASE = dict(
    t={
        "t1": "6C",
        "t2": "9H KS",
        "t3": "5H",
        "t4": "6H",
        "t5": "4H",
        "t6": "7H",
        "t7": "6D",
        "t8": "",
        "t9": "2H",
        "t10": "QD 3D",
    },
    # f1..f4 up C S H D, f5..f8 down C S H D
    f={"f1": "5C", "f2": "AS", "f3": "AH", "f4": "AD", "f5": "7C", "f6": "-", "f7": "-", "f8": "-"},
)


@pytest.fixture
def base() -> patience.State:
    return pos(**BASE)


@pytest.mark.parametrize(
    ("move", "effect"),
    [
        ("t1-f1", {"t1": "-", "f1": "AC2C3C4C5C6C"}),  # the last club meets ...
        ("t1-f5", {"t1": "-", "f5": "KCQCJCTC9C8C7C6C"}),  # ... on either foundation
        ("t2-f6", {"t2": "9H", "f6": "KS"}),  # an available king starts its foundation
        ("t9-f3", {"t9": "-", "f3": "AH2H"}),
        ("t3-t4", {"t3": "-", "t4": "6H5H"}),  # down in suit
        ("t3-t5", {"t3": "-", "t5": "4H5H"}),  # up in suit
        ("t6-t4", {"t6": "-", "t4": "6H7H"}),
    ],
)
def test_legal_moves(base: patience.State, move: str, effect: dict[str, str]) -> None:
    after = assert_applies(base, move)
    assert changed(base, after) == effect


@pytest.mark.parametrize(
    ("move", "rule"),
    [
        ("t3-t6", "wrong_rank"),  # 5H on 7H
        ("t3-t7", "wrong_suit"),  # 5H on 6D
        ("t2-f2", "wrong_rank"),  # KS on AS
        ("t2-f7", "wrong_suit"),  # KS on the empty hearts down-foundation
        ("t9-f4", "wrong_suit"),  # 2H on AD
        ("t10-f4", "wrong_rank"),  # 3D on AD
        ("t3-f7", "wrong_rank"),  # 5H on an empty down-foundation
        ("t3-f3", "wrong_rank"),  # 5H on AH
        ("t3-t8", "empty_pile_never_filled"),
        ("t2-t8", "empty_pile_never_filled"),  # not even a king
        ("t8-t3", "empty_source"),
        ("t2-f6/2", "too_many_cards"),
        ("t10-t7/2", "too_many_cards"),
        ("f1-t8", "not_a_source"),
        ("f5-t1", "not_a_source"),
        ("t1-t1", "same_pile"),
        ("t1-t14", "unknown_pile"),
        ("t1-f9", "unknown_pile"),
        ("t1-r1", "unknown_pile"),
        ("deal", "no_stock"),
        ("redeal", "no_redeal"),
        ("withdraw t2", "no_withdraw"),
    ],
)
def test_illegal_moves(base: patience.State, move: str, rule: str) -> None:
    assert_rejected(base, move, rule)


def test_both_foundations_of_a_suit_take_the_meeting_card() -> None:
    state = pos(**BASE)
    assert {"t1-f1", "t1-f5"} <= legal_texts(state)
    up = assert_applies(state, "t1-f1")
    assert up.pile("f1")[-1] == up.pile("f5")[-1] - 1  # 6C up meets 7C down
    assert not [m for m in legal_texts(up) if m.endswith(("-f1", "-f5"))]


def test_foundations_may_meet_low() -> None:
    """The king's foundation may run down past the middle: to the 2, leaving only the ace
    (which started on its own foundation)."""
    state = pos(t={"t1": "2S"}, f={"f2": "AS", "f6": "3S"})
    after = assert_applies(state, "t1-f6")
    assert after.pile("f6")[-1] == cards("2S")[0] and after.pile("f2") == cards("AS")


# --- status ----------------------------------------------------------------------------


def test_won_game_takes_no_move() -> None:
    state = pos()
    assert state.status is Status.WON and state.legal_moves() == ()
    assert state.foundation_cards == 52
    assert_rejected(state, "t1-t2", "game_over")


def test_stuck() -> None:
    state = pos(t={"t1": "5C 7C 6C"}, f={"f1": "4C", "f5": "8C"}, dump=None)
    assert state.status is Status.STUCK and state.legal_moves() == ()
    assert_rejected(state, "t1-f1", {"game_over", "wrong_rank"})


def test_playing_to_a_win() -> None:
    state = pos(t={"t1": "5C 7C", "t2": "6C"}, f={"f1": "4C", "f5": "8C"}, dump=None)
    assert legal_texts(state) == {"t1-f5", "t2-t1", "t1-t2"}
    state = assert_applies(state, "t1-f5")
    state = assert_applies(state, "t2-f5")
    state = assert_applies(state, "t1-f1")
    assert state.status is Status.WON and state.foundation_cards == 52
