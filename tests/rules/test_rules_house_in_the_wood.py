"""The House in the Wood: La Belle Lucie with two packs (35 fans, eight ace foundations)."""

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

V = "house-in-the-wood"
TABLEAU = pile_ids("t", 35)
FOUNDATIONS = pile_ids("f", 8)  # C C S S H H D D, all up from the ace
pos = partial(position, V)


# --- the deal -------------------------------------------------------------------------


@pytest.mark.parametrize("deal", [0, 1, 31999, 32000, 987654321, 10**20])
def test_deal_matches_rules(deal: int) -> None:
    state = new_game_as_dealt(V, deal)
    assert [len(state.pile(t)) for t in TABLEAU] == [3] * 34 + [2]
    assert (state.draws, state.redeals_left, state.moves_made) == (103, 2, 0)
    assert (state.foundation_cards, state.stock_size, state.total_cards) == (0, 0, 104)
    assert state.status is Status.PLAYING


# --- moves ----------------------------------------------------------------------------

BASE = dict(
    t={
        "t1": "QD 5H",
        "t2": "9S 6H",
        "t3": "4H",
        "t4": "8D 5H",
        "t5": "",
        "t6": "7S AC",
        "t7": "2C",
        "t8": "6S",
        "t9": "KD 7H",
    },
    f={f: "-" for f in FOUNDATIONS} | {"f5": "3H", "f6": "4H"},
)


@pytest.fixture
def base() -> patience.State:
    return pos(**BASE)


@pytest.mark.parametrize(
    ("move", "effect"),
    [
        ("t1-t2", {"t1": "QD", "t2": "9S6H5H"}),
        ("t4-t2", {"t4": "8D", "t2": "9S6H5H"}),  # the other 5H, same place
        ("t2-t9", {"t2": "9S", "t9": "KD7H6H"}),
        ("t6-f1", {"t6": "7S", "f1": "AC"}),  # either clubs foundation
        ("t6-f2", {"t6": "7S", "f2": "AC"}),
        ("t1-f6", {"t1": "QD", "f6": "AH2H3H4H5H"}),
        ("t3-f5", {"t3": "-", "f5": "AH2H3H4H"}),
    ],
)
def test_legal_moves(base: patience.State, move: str, effect: dict[str, str]) -> None:
    after = assert_applies(base, move)
    assert changed(base, after) == effect


@pytest.mark.parametrize(
    ("move", "rule"),
    [
        ("t1-t3", "wrong_rank"),  # 5H on 4H: down only
        ("t1-t4", "wrong_rank"),  # 5H on the other 5H
        ("t9-t2", "wrong_rank"),  # 7H on 6H
        ("t1-t8", "wrong_suit"),  # 5H on 6S
        ("t1-f5", "wrong_rank"),  # 5H on 3H
        ("t7-f1", "wrong_rank"),  # 2C on an empty clubs foundation
        ("t6-f3", "wrong_suit"),  # AC on an empty spades foundation
        ("t1-t5", "empty_pile_never_filled"),
        ("t5-t1", "empty_source"),
        ("t1-t2/2", "too_many_cards"),
        ("t1-t2/9", "too_many_cards"),
        ("f5-t1", "not_a_source"),
        ("t1-t1", "same_pile"),
        ("t1-t36", "unknown_pile"),
        ("t1-f9", "unknown_pile"),
        ("t1-r1", "unknown_pile"),
        ("deal", "no_stock"),
        ("withdraw t1", "no_withdraw"),
    ],
)
def test_illegal_moves(base: patience.State, move: str, rule: str) -> None:
    assert_rejected(base, move, rule)


def test_second_foundation_of_a_suit_needs_its_own_ace() -> None:
    state = pos(t={"t1": "2C", "t2": "AC"}, f={"f1": "AC", "f2": "-"})
    assert_applies(state, "t1-f1")
    assert_rejected(state, "t1-f2", "wrong_rank")
    assert_applies(state, "t2-f2")


# --- status ----------------------------------------------------------------------------


def test_won_game_takes_no_move() -> None:
    state = pos()
    assert state.status is Status.WON
    assert (state.foundation_cards, state.legal_moves()) == (104, ())
    assert_rejected(state, "redeal", "game_over")


def test_stuck_and_redeal_only() -> None:
    full = {f: ("K" + "CCSSHHDD"[i]) for i, f in enumerate(FOUNDATIONS)}
    found = full | {"f5": "4H", "f6": "4H"}
    layout = {
        "t1": "5H 7H",
        "t2": "6H 9H",
        "t3": "8H TH JH QH KH",
        "t4": "5H 8H KH",
        "t5": "6H 7H",
        "t6": "9H TH QH JH",
    }
    stuck = pos(t=layout, f=found, n=0, dump=None)
    assert stuck.status is Status.STUCK and stuck.legal_moves() == ()
    playing = pos(t=layout, f=found, n=2, dump=None)
    assert playing.status is Status.PLAYING and legal_texts(playing) == {"redeal"}


# --- redeals ---------------------------------------------------------------------------


def test_redeal_from_new_game() -> None:
    state = patience.get_variant(V).new_game(5)
    after = assert_applies(state, "redeal")
    assert [len(after.pile(t)) for t in TABLEAU] == [3] * 34 + [2]
    assert card_multiset(after) == card_multiset(state)
    assert (after.redeals_left, after.draws) == (1, 206)


@pytest.mark.parametrize("deal", [5, 3 * 10**17])
def test_two_redeals_match_rules_then_none(deal: int) -> None:
    state = pos(t={"t1": "5H 7H 9S", "t3": "KD", "t30": "2C 3C AS"}, deal=deal)
    twice = check_lucie_redeal(check_lucie_redeal(state))
    assert_rejected(twice, "redeal", "no_redeals_left")
