"""Cody: two packs in 26 fans of 4 that never take cards, eight reserve cells (one fan
card each, out only to a foundation), an ace and a king foundation of each suit."""

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
    new_game_as_dealt,
    pile_ids,
    position,
)

V = "cody"
TABLEAU = pile_ids("t", 26)
CELLS = pile_ids("r", 8)
pos = partial(position, V)


# --- the deal -------------------------------------------------------------------------


@pytest.mark.parametrize("deal", [0, 1, 31999, 32000, 1234567890123, 10**20])
def test_deal_matches_rules(deal: int) -> None:
    state = new_game_as_dealt(V, deal)
    assert [len(state.pile(t)) for t in TABLEAU] == [4] * 26
    assert all(not state.pile(r) for r in CELLS)
    assert (state.foundation_cards, state.total_cards, state.draws) == (0, 104, 103)
    assert (state.redeals_left, state.moves_made) == (0, 0)
    assert state.status is Status.PLAYING  # eight empty cells take any fan's top card


# --- moves ----------------------------------------------------------------------------

BASE = dict(
    t={
        "t1": "9S 5H AC",
        "t2": "KC",
        "t3": "7D 2H",
        "t4": "",
        "t5": "6S",
    },
    r={"r1": "4S", "r2": "", "r3": "KH"},
    # f1..f4 up C S H D, f5..f8 down C S H D
    f={"f1": "-", "f2": "3S", "f3": "3H", "f4": "-", "f5": "-", "f6": "7S", "f7": "-", "f8": "-"},
)


@pytest.fixture
def base() -> patience.State:
    return pos(**BASE)


@pytest.mark.parametrize(
    ("move", "effect"),
    [
        ("t1-f1", {"t1": "9S5H", "f1": "AC"}),
        ("t2-f5", {"t2": "-", "f5": "KC"}),
        ("t5-f6", {"t5": "-", "f6": "KSQSJSTS9S8S7S6S"}),
        ("r1-f2", {"r1": "-", "f2": "AS2S3S4S"}),
        ("r3-f7", {"r3": "-", "f7": "KH"}),
        ("t3-r2", {"t3": "7D", "r2": "2H"}),  # a fan's top card to an empty cell
        ("t2-r2", {"t2": "-", "r2": "KC"}),
    ],
)
def test_legal_moves(base: patience.State, move: str, effect: dict[str, str]) -> None:
    after = assert_applies(base, move)
    assert changed(base, after) == effect


@pytest.mark.parametrize(
    ("move", "rule"),
    [
        ("t1-t2", "not_a_target"),  # fans never take cards
        ("t5-t3", "not_a_target"),
        ("r1-t5", "reserve_to_foundation_only"),
        ("r1-t4", "reserve_to_foundation_only"),
        ("r1-r2", "not_a_target"),  # a cell never takes a card from a cell
        ("t3-r1", "cell_occupied"),
        ("t3-r2/2", "too_many_cards"),
        ("t1-f1/2", "too_many_cards"),
        ("r2-f1", "empty_source"),
        ("t4-r2", "empty_source"),
        ("f2-r2", "not_a_source"),
        ("f6-t4", "not_a_source"),
        ("r1-f3", "wrong_suit"),  # 4S on 3H
        ("r1-f6", "wrong_rank"),  # 4S on 7S
        ("t1-f5", "wrong_rank"),  # AC on the empty clubs down-foundation
        ("t2-f1", "wrong_rank"),  # KC on the empty clubs up-foundation
        ("t2-f7", "wrong_suit"),  # KC on the empty hearts down-foundation
        ("t3-f3", "wrong_rank"),  # 2H on 3H
        ("t1-t1", "same_pile"),
        ("r1-r1", "same_pile"),
        ("t1-t27", "unknown_pile"),
        ("t1-r9", "unknown_pile"),
        ("t1-f9", "unknown_pile"),
        ("t1-waste", "unknown_pile"),
        ("deal", "no_stock"),
        ("redeal", "no_redeal"),
        ("withdraw t1", "no_withdraw"),
    ],
)
def test_illegal_moves(base: patience.State, move: str, rule: str) -> None:
    assert_rejected(base, move, rule)


def test_an_emptied_fan_stays_empty(base: patience.State) -> None:
    # RULES.md: fans never take cards and an emptied fan stays empty; the contract names
    # both codes for it (not_a_target: "a fan in Cody"; empty_pile_never_filled).
    assert_rejected(base, "t1-t4", {"not_a_target", "empty_pile_never_filled"})
    emptied = assert_applies(base, "t2-f5")
    assert_rejected(emptied, "t5-t2", {"not_a_target", "empty_pile_never_filled"})


def test_a_card_in_a_cell_stays_there_until_a_foundation_takes_it(
    base: patience.State,
) -> None:
    parked = assert_applies(base, "t2-r2")
    assert {m for m in legal_texts(parked) if m.startswith("r2-")} == {"r2-f5"}
    assert_rejected(parked, "r2-r4", "not_a_target")
    assert_rejected(parked, "t3-r2", "cell_occupied")
    after, events = parked.apply_with_events(patience.Move.parse("r2-f5"))
    assert events == (CardMoved(card("KC"), "r2", 0, "f5", 0),)
    assert changed(parked, after) == {"r2": "-", "f5": "KC"}


# --- status ----------------------------------------------------------------------------


def test_won_game_takes_no_move() -> None:
    state = pos()
    assert state.status is Status.WON and state.legal_moves() == ()
    assert state.foundation_cards == 104
    assert_rejected(state, "t1-r1", "game_over")


def full_cells(*cells: str) -> dict[str, str]:
    return dict(zip(CELLS, cells, strict=True))


def test_stuck_with_every_cell_full() -> None:
    # left: 5H..KH of one pack (the up-foundation needs 5H) and AS..4S (the down one needs 4S)
    state = pos(
        t={"t1": "4S 5H 9H", "t2": "6H TH"},
        r=full_cells("7H", "8H", "JH", "QH", "KH", "AS", "2S", "3S"),
        f={"f3": "4H", "f7": "AH", "f6": "5S"},
        dump=None,
    )
    assert state.status is Status.STUCK and state.legal_moves() == ()


def test_one_empty_cell_keeps_the_game_going() -> None:
    state = pos(
        t={"t1": "4S 5H 9H", "t2": "6H TH 8H"},
        r=full_cells("7H", "", "JH", "QH", "KH", "AS", "2S", "3S"),
        f={"f3": "4H", "f7": "AH", "f6": "5S"},
        dump=None,
    )
    assert state.status is Status.PLAYING
    assert legal_texts(state) == {"t1-r2", "t2-r2"}
