"""Little Billee: Cody with eight cards dealt to the reserve first, 24 fans of 4, and two
redeals that gather the fans last to first and deal them again in fours."""

from __future__ import annotations

from functools import partial

import patience
import pytest
from patience import Status

from tests.oracle import (
    assert_applies,
    assert_rejected,
    changed,
    legal_texts,
    names,
    new_game_as_dealt,
    pile_ids,
    position,
)

V = "little-billee"
TABLEAU = pile_ids("t", 24)
CELLS = pile_ids("r", 8)
pos = partial(position, V)


def fours_redeal(before: patience.State) -> dict[str, str]:
    """RULES.md: t24 back to t1, each fan bottom to top, dealt four at a time from t1."""
    gathered = [c for t in reversed(TABLEAU) for c in before.pile(t)]
    fans = {t: gathered[4 * i : 4 * i + 4] for i, t in enumerate(TABLEAU)}
    return {t: names(fan) for t, fan in fans.items()}


# --- the deal -------------------------------------------------------------------------


@pytest.mark.parametrize("deal", [0, 1, 31999, 32000, 86420864208642, 10**20])
def test_deal_matches_rules(deal: int) -> None:
    state = new_game_as_dealt(V, deal)
    assert [len(state.pile(t)) for t in TABLEAU] == [4] * 24
    assert [len(state.pile(r)) for r in CELLS] == [1] * 8
    assert (state.foundation_cards, state.total_cards, state.draws) == (0, 104, 103)
    assert (state.redeals_left, state.moves_made) == (2, 0)
    assert state.status is Status.PLAYING


# --- moves ----------------------------------------------------------------------------

BASE = dict(
    t={
        "t1": "9S 5H AC",
        "t2": "KC",
        "t3": "7D 2H",
        "t4": "",
        "t5": "6S",
    },
    r={"r1": "4S", "r2": "", "r3": "KH", "r4": "9D", "r5": "9D", "r6": "QC", "r7": "", "r8": "5D"},
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
        ("t3-r2", {"t3": "7D", "r2": "2H"}),  # an emptied cell takes a fan's top card
        ("t1-r7", {"t1": "9S5H", "r7": "AC"}),
    ],
)
def test_legal_moves(base: patience.State, move: str, effect: dict[str, str]) -> None:
    after = assert_applies(base, move)
    assert changed(base, after) == effect


@pytest.mark.parametrize(
    ("move", "rule"),
    [
        ("t1-t2", "not_a_target"),  # fans never take cards
        ("r1-t5", "reserve_to_foundation_only"),
        ("r1-r2", "not_a_target"),  # a cell from a cell
        ("t3-r1", "cell_occupied"),
        ("t3-r2/2", "too_many_cards"),
        ("r2-f1", "empty_source"),
        ("f2-r2", "not_a_source"),
        ("r1-f3", "wrong_suit"),  # 4S on 3H
        ("r1-f6", "wrong_rank"),  # 4S on 7S
        ("r6-f1", "wrong_rank"),  # QC on the empty clubs up-foundation
        ("r6-f5", "wrong_rank"),  # QC on the empty clubs down-foundation
        ("t2-f8", "wrong_suit"),  # KC on the empty diamonds down-foundation
        ("r1-r1", "same_pile"),
        ("t1-t25", "unknown_pile"),
        ("r9-f1", "unknown_pile"),
        ("deal", "no_stock"),
        ("withdraw t1", "no_withdraw"),
    ],
)
def test_illegal_moves(base: patience.State, move: str, rule: str) -> None:
    assert_rejected(base, move, rule)


def test_an_emptied_fan_stays_empty(base: patience.State) -> None:
    # fans never take cards; the contract names both codes for an empty fan
    assert_rejected(base, "t1-t4", {"not_a_target", "empty_pile_never_filled"})


# --- redeals ---------------------------------------------------------------------------

REDEAL_LAYOUT = {t: "" for t in TABLEAU} | {
    "t1": "9S 5H AC",
    "t3": "7D 2H",
    "t4": "KC",
    "t11": "QD JD TD 8C",
    "t23": "3S 3S",
    "t24": "6S 4H 6D",
}


def test_redeal_gathers_last_fan_first_and_deals_in_fours() -> None:
    state = pos(t=REDEAL_LAYOUT, r={"r1": "4S", "r4": "9D"}, dump="t17")
    expected = fours_redeal(state)
    after = assert_applies(state, "redeal")
    assert {t: names(after.pile(t)) for t in TABLEAU} == expected
    # t24 then t23 first: 6S 4H 6D 3S | 3S ...
    assert expected["t1"] == "6S4H6D3S" and expected["t2"].startswith("3S")
    assert [after.pile(p) for p in after.variant.pile_ids if p[0] in "rf"] == [
        state.pile(p) for p in state.variant.pile_ids if p[0] in "rf"
    ]
    assert (after.redeals_left, after.draws) == (state.redeals_left - 1, state.draws)


def test_the_last_fan_may_get_fewer_and_later_fans_stay_empty() -> None:
    state = pos(t={t: "" for t in TABLEAU} | {"t2": "AH 2H", "t9": "2C AC 3C"}, dump=None)
    after = assert_applies(state, "redeal")
    assert {t: names(after.pile(t)) for t in TABLEAU if after.pile(t)} == {
        "t1": "2CAC3CAH",
        "t2": "2H",
    }


def test_two_redeals_then_none() -> None:
    state = patience.get_variant(V).new_game(8)
    once = assert_applies(state, "redeal")
    assert {t: names(once.pile(t)) for t in TABLEAU} == fours_redeal(state)
    twice = assert_applies(once, "redeal")
    assert {t: names(twice.pile(t)) for t in TABLEAU} == fours_redeal(once)
    assert (twice.redeals_left, twice.moves_made, twice.draws) == (0, 2, 103)
    assert_rejected(twice, "redeal", "no_redeals_left")
    assert "redeal" not in legal_texts(twice)
    assert [twice.pile(r) for r in CELLS] == [state.pile(r) for r in CELLS]


# --- status ----------------------------------------------------------------------------


def test_won_game_takes_no_move() -> None:
    state = pos()
    assert state.status is Status.WON and state.legal_moves() == ()
    assert_rejected(state, "redeal", "game_over")


def test_stuck_only_when_no_redeal_is_left() -> None:
    cells = dict(zip(CELLS, ["7H", "8H", "JH", "QH", "KH", "AS", "2S", "3S"], strict=True))
    layout = {"t1": "4S 5H 9H", "t2": "6H TH"}
    found = {"f3": "4H", "f7": "AH", "f6": "5S"}
    stuck = pos(t=layout, r=cells, f=found, n=0, dump=None)
    assert stuck.status is Status.STUCK and stuck.legal_moves() == ()
    playing = pos(t=layout, r=cells, f=found, n=1, dump=None)
    assert playing.status is Status.PLAYING and legal_texts(playing) == {"redeal"}
