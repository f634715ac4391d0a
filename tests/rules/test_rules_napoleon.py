"""Napoleon at St Helena: two packs, ten columns of four, a stock dealt one card at a time
to the waste, down in suit, an empty column takes any available card (or, with the option
`fill_from_waste_only`, only the waste's top card); no redeal."""

from __future__ import annotations

from functools import partial

import patience
import pytest
from patience import CardMoved, Status

from tests.oracle import (
    assert_applies,
    assert_rejected,
    card,
    changed,
    legal_texts,
    names,
    new_game_as_dealt,
    pile_ids,
    position,
)

V = "napoleon-at-st-helena"
OPTION = "fill_from_waste_only"
TABLEAU = pile_ids("t", 10)
pos = partial(position, V)


# --- the deal -------------------------------------------------------------------------


@pytest.mark.parametrize("deal", [0, 1, 31999, 32000, 77777777, 10**20])
def test_deal_matches_rules(deal: int) -> None:
    state = new_game_as_dealt(V, deal)
    assert [len(state.pile(t)) for t in TABLEAU] == [4] * 10
    assert (state.stock_size, len(state.pile("waste")), state.total_cards) == (64, 0, 104)
    assert (state.draws, state.redeals_left, state.moves_made, state.foundation_cards) == (
        103,
        0,
        0,
        0,
    )
    assert "deal" in legal_texts(state)
    assert state.status is Status.PLAYING


def test_option_is_kept_in_the_state_and_its_notation() -> None:
    plain = patience.get_variant(V).new_game(3)
    strict = patience.get_variant(V).new_game(3, options=[OPTION])
    assert strict.options == frozenset({OPTION}) and plain.options == frozenset()
    assert strict.piles == plain.piles and strict != plain
    assert str(strict).startswith(f"{V}+{OPTION} ")
    assert patience.parse_state(str(strict)) == strict


def test_unknown_option_is_refused() -> None:
    with pytest.raises(patience.UnknownOption):
        patience.get_variant(V).new_game(3, options=["fill_from_anywhere"])


# --- moves ----------------------------------------------------------------------------

BASE = dict(
    t={
        "t1": "KD 6H",
        "t2": "7H",
        "t3": "",
        "t4": "9S 5C",
        "t5": "AC",
        "t6": "TD 2C",
    },
    # f1 f2 clubs, f3 f4 spades, f5 f6 hearts, f7 f8 diamonds
    f={
        "f1": "4C",
        "f2": "-",
        "f3": "-",
        "f4": "-",
        "f5": "4H",
        "f6": "-",
        "f7": "2D",
        "f8": "-",
    },
    stock="QC JC",
    waste="8S 6H",
)


def base(*options: str) -> patience.State:
    return pos(**BASE, options=options)


@pytest.mark.parametrize(
    ("move", "effect"),
    [
        ("deal", {"stock": "QC", "waste": "8S6HJC"}),
        ("waste-t2", {"waste": "8S", "t2": "7H6H"}),
        ("t1-t2", {"t1": "KD", "t2": "7H6H"}),
        ("waste-t3", {"waste": "8S", "t3": "6H"}),
        ("t1-t3", {"t1": "KD", "t3": "6H"}),  # any available card fills an empty column
        ("t4-f1", {"t4": "9S", "f1": "AC2C3C4C5C"}),
        ("t5-f2", {"t5": "-", "f2": "AC"}),  # the second clubs foundation
        ("t6-t3", {"t6": "TD", "t3": "2C"}),
    ],
)
def test_legal_moves(move: str, effect: dict[str, str]) -> None:
    state = base()
    after = assert_applies(state, move)
    assert changed(state, after) == effect


@pytest.mark.parametrize(
    ("move", "rule"),
    [
        ("t2-t1", "wrong_rank"),  # 7H on 6H
        ("t4-t1", "wrong_suit"),  # 5C on 6H
        ("waste-f5", "wrong_rank"),  # 6H on 4H
        ("t4-f5", "wrong_suit"),  # 5C on 4H
        ("t4-f2", "wrong_rank"),  # 5C on an empty clubs foundation
        ("t5-f3", "wrong_suit"),  # AC on an empty spades foundation
        ("t6-f1", "wrong_rank"),  # 2C on 4C
        ("t1-t3/2", "too_many_cards"),
        ("waste-t2/2", "too_many_cards"),
        ("t3-t2", "empty_source"),
        ("stock-t3", "not_a_source"),
        ("stock-waste", "not_a_source"),
        ("f1-t3", "not_a_source"),
        ("t2-stock", "not_a_target"),
        ("t2-waste", "not_a_target"),
        ("waste-waste", "same_pile"),
        ("t1-t11", "unknown_pile"),
        ("t1-f9", "unknown_pile"),
        ("r1-t3", "unknown_pile"),
        ("redeal", "no_redeal"),
        ("withdraw t1", "no_withdraw"),
    ],
)
def test_illegal_moves(move: str, rule: str) -> None:
    assert_rejected(base(), move, rule)


def test_fill_from_waste_only() -> None:
    state = base(OPTION)
    after = assert_applies(state, "waste-t3")
    assert changed(state, after) == {"waste": "8S", "t3": "6H"}
    assert_rejected(state, "t1-t3", "empty_pile_from_waste_only")
    assert_rejected(state, "t6-t3", "empty_pile_from_waste_only")
    assert_applies(state, "t1-t2")  # building is not affected


def test_empty_waste_is_no_source() -> None:
    state = pos(t={"t1": "7H"}, stock="6H", waste="")
    assert_rejected(state, "waste-t1", "empty_source")
    after = assert_applies(state, "deal")
    assert names(after.pile("waste")) == "6H" and after.stock_size == 0
    assert changed(after, assert_applies(after, "waste-t1")) == {"waste": "-", "t1": "7H6H"}
    to_foundation = assert_applies(after, "waste-f6")  # f6 holds AH..5H
    assert changed(after, to_foundation) == {"waste": "-", "f6": "AH2H3H4H5H6H"}


def test_deal_turns_the_top_card_and_reports_it() -> None:
    state = base()
    after, events = state.apply_with_events(patience.Move.deal())
    assert events == (CardMoved(card("JC"), "stock", 1, "waste", 2),)
    assert (after.stock_size, after.moves_made) == (state.stock_size - 1, state.moves_made + 1)


def test_stock_empty() -> None:
    state = pos(t={"t1": "7H"}, stock="", waste="6H")
    assert_rejected(state, "deal", "stock_empty")
    assert "deal" not in legal_texts(state)


def test_dealing_the_whole_stock_of_a_new_game() -> None:
    state = patience.get_variant(V).new_game(12)
    stock = state.pile("stock")
    for _ in range(64):
        state = assert_applies(state, "deal")
    assert state.pile("waste") == tuple(reversed(stock))
    assert (state.stock_size, state.moves_made) == (0, 64)
    assert_rejected(state, "deal", "stock_empty")


# --- status ----------------------------------------------------------------------------


def test_won_game_takes_no_move() -> None:
    state = pos()
    assert state.status is Status.WON and state.legal_moves() == ()
    assert_rejected(state, "deal", "game_over")
    assert_rejected(state, "t1-t2", "game_over")


# Ten columns whose top cards neither build on each other nor go to a foundation.
LOCKED = {
    "t1": "5H 7H",
    "t2": "6H 9H",
    "t3": "8H TH JH",
    "t4": "QH KH",
    "t5": "5S 7S",
    "t6": "6S 9S",
    "t7": "8S TS JS",
    "t8": "QS KS",
    "t9": "5D 6D 8D 7D",
    "t10": "TD JD QD KD 9D",
}
FIVES_NEEDED = {"f3": "4S", "f4": "KS", "f5": "4H", "f6": "KH", "f7": "4D", "f8": "KD"}


def test_stuck_when_the_stock_is_out() -> None:
    stuck = pos(t=LOCKED, f=FIVES_NEEDED, stock="", waste="", dump=None)
    assert stuck.status is Status.STUCK and stuck.legal_moves() == ()


def test_only_deal_keeps_a_game_going() -> None:
    almost = pos(t=LOCKED | {"t10": "TD JD QD 9D"}, f=FIVES_NEEDED, stock="KD", dump=None)
    assert almost.status is Status.PLAYING and legal_texts(almost) == {"deal"}


@pytest.mark.parametrize("options", [(), (OPTION,)])
def test_an_empty_column_takes_the_waste_card(options: tuple[str, ...]) -> None:
    state = pos(
        t=LOCKED | {"t10": ""},
        f=FIVES_NEEDED,
        stock="",
        waste="TD JD QD KD 9D",
        dump=None,
        options=options,
    )
    moves = legal_texts(state)
    assert "waste-t10" in moves
    assert ("t1-t10" in moves) is (OPTION not in options)
    assert all(m.startswith("waste-") for m in moves) is (OPTION in options)
