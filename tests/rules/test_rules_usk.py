"""Usk: one pack, ten columns dealt in shrinking rows, runs down in alternate colour move
as a unit, an empty column takes only a king (or a run headed by one), one redeal."""

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
    expected_deal,
    legal_texts,
    names,
    new_game_as_dealt,
    pile_ids,
    position,
)

V = "usk"
TABLEAU = pile_ids("t", 10)
pos = partial(position, V)


def rows_redeal(before: dict[str, tuple[int, ...]]) -> dict[str, str]:
    """RULES.md: gather t10 down to t1, each bottom to top; deal again in rows of 10, 9, 8,
    ... cards, each row from t1, as far as the cards go."""
    gathered = [c for t in reversed(TABLEAU) for c in before[t]]
    columns: dict[str, list[int]] = {t: [] for t in TABLEAU}
    width = 10
    while gathered:
        for t in TABLEAU[:width]:
            if gathered:
                columns[t].append(gathered.pop(0))
        width -= 1
    return {t: names(columns[t]) for t in TABLEAU}


# --- the deal -------------------------------------------------------------------------


@pytest.mark.parametrize("deal", [0, 1, 2, 31999, 32000, 4242424242, 10**20])
def test_deal_matches_rules(deal: int) -> None:
    state = new_game_as_dealt(V, deal)
    assert [len(state.pile(t)) for t in TABLEAU] == [8, 8, 8, 7, 6, 5, 4, 3, 2, 1]
    assert (state.draws, state.redeals_left, state.moves_made) == (51, 1, 0)
    assert (state.foundation_cards, state.total_cards) == (0, 52)
    assert state.status is Status.PLAYING


def test_first_row_is_dealt_first() -> None:
    """Row 1 gives the first ten cards off the pack to t1..t10 (t1's bottom card first)."""
    state = patience.get_variant(V).new_game(1)
    pack = expected_deal(V, 1)
    assert [state.pile(t)[0] for t in TABLEAU] == [pack[t][0] for t in TABLEAU]
    assert state.pile("t10") == (card("KC"),)


# --- moves ----------------------------------------------------------------------------

BASE = dict(
    t={
        "t1": "KD 9S 8H 7C",  # run of three at the top
        "t2": "TH",
        "t3": "",
        "t4": "4S KS QH JC",  # run of three headed by a king
        "t5": "9D 8D",  # not a run: same colour
        "t6": "8C",
        "t7": "TS",
        "t8": "9H",
        "t9": "9C",
    },
    f={"f1": "6C", "f2": "-", "f3": "6H", "f4": "7D"},
)


@pytest.fixture
def base() -> patience.State:
    return pos(**BASE)


@pytest.mark.parametrize(
    ("move", "effect"),
    [
        ("t1-t2/3", {"t1": "KD", "t2": "TH9S8H7C"}),  # a whole run
        ("t1-t9/2", {"t1": "KD9S", "t9": "9C8H7C"}),  # the part of a run ending at the top
        ("t4-t3/3", {"t4": "4S", "t3": "KSQHJC"}),  # a run headed by a king to an empty column
        ("t1-f1", {"t1": "KD9S8H", "f1": "AC2C3C4C5C6C7C"}),
        ("t5-f4", {"t5": "9D", "f4": "AD2D3D4D5D6D7D8D"}),
    ],
)
def test_legal_moves(base: patience.State, move: str, effect: dict[str, str]) -> None:
    after = assert_applies(base, move)
    assert changed(base, after) == effect


def test_single_king_to_an_empty_column() -> None:
    state = pos(t={"t1": "9H KC", "t2": ""}, f={"f1": "QC"})
    after = assert_applies(state, "t1-t2")
    assert changed(state, after) == {"t1": "9H", "t2": "KC"}


@pytest.mark.parametrize(
    ("move", "rule"),
    [
        ("t1-t2", "wrong_rank"),  # 7C on TH
        ("t1-t8", "wrong_rank"),  # 7C on 9H
        ("t1-t6", "wrong_colour"),  # 7C on 8C
        ("t1-t7/3", "wrong_colour"),  # run headed by 9S on TS
        ("t1-t6/2", "wrong_rank"),  # run headed by 8H on 8C
        ("t5-t2/2", "not_a_run"),  # 9D 8D
        ("t4-t3/4", "not_a_run"),  # 4S KS QH JC
        ("t1-t2/4", "not_a_run"),  # KD 9S 8H 7C
        ("t4-t3/5", "too_many_cards"),
        ("t2-t7/2", "too_many_cards"),
        ("t4-t3/2", "empty_pile_needs_king"),  # QH JC
        ("t4-t3", "empty_pile_needs_king"),  # JC
        ("t9-t3", "empty_pile_needs_king"),
        ("t1-f3", "wrong_suit"),  # 7C on 6H
        ("t7-f2", "wrong_rank"),  # TS on the empty spade foundation
        ("t2-f3", "wrong_rank"),  # TH on 6H
        ("t1-f1/2", "too_many_cards"),  # only a top card goes to a foundation
        ("t3-t2", "empty_source"),
        ("f1-t3", "not_a_source"),
        ("t1-t1/2", "same_pile"),
        ("t1-t11", "unknown_pile"),
        ("t1-f5", "unknown_pile"),
        ("t1-r1", "unknown_pile"),
        ("deal", "no_stock"),
        ("withdraw t1", "no_withdraw"),
    ],
)
def test_illegal_moves(base: patience.State, move: str, rule: str) -> None:
    assert_rejected(base, move, rule)


@pytest.mark.parametrize(
    ("refused", "allowed"),
    [
        ("t1-t3", "t1-t6"),  # 7C on 8S (the other black suit) refused; on 8H it goes
        ("t2-t4", "t2-t3"),  # 7H on 8D (the other red suit) refused; on 8S it goes
        ("t5-t7/2", "t5-t6/2"),  # the run 7S 6D on 8C refused; on 8H it goes
    ],
)
def test_same_colour_of_another_suit_is_refused(refused: str, allowed: str) -> None:
    """Alternate colour means the other colour, not merely another suit."""
    state = pos(
        t={
            "t1": "QC 7C",
            "t2": "QH 7H",
            "t3": "8S",
            "t4": "8D",
            "t5": "KS 7S 6D",
            "t6": "8H",
            "t7": "8C",
        }
    )
    assert_rejected(state, refused, "wrong_colour")
    assert_applies(state, allowed)


def test_events_of_a_run_move(base: patience.State) -> None:
    after, events = base.apply_with_events(patience.Move.parse("t1-t2/3"))
    assert after == base.apply(patience.Move.parse("t1-t2/3"))
    moved = {(e.card, e.source, e.source_index, e.target, e.target_index) for e in events}
    assert moved == {
        (card("9S"), "t1", 1, "t2", 1),
        (card("8H"), "t1", 2, "t2", 2),
        (card("7C"), "t1", 3, "t2", 3),
    }
    assert all(isinstance(e, CardMoved) for e in events) and len(events) == 3


def test_every_part_of_a_run_is_listed(base: patience.State) -> None:
    assert {"t1-t2/3", "t1-t9/2", "t4-t3/3"} <= legal_texts(base)
    assert not {"t1-t2", "t1-t2/2", "t1-t9", "t1-t9/3", "t4-t3", "t4-t3/2"} & legal_texts(base)


# --- status ----------------------------------------------------------------------------

CLUBS_LEFT = {"t1": "5C 7C", "t2": "6C 9C", "t3": "KC 8C", "t4": "TC", "t5": "JC", "t6": "QC"}


def test_won_game_takes_no_move() -> None:
    state = pos()
    assert state.status is Status.WON and state.legal_moves() == ()
    assert_rejected(state, "redeal", "game_over")


def test_stuck_and_redeal_only() -> None:
    stuck = pos(t=CLUBS_LEFT, f={"f1": "4C"}, n=0, dump=None)
    assert stuck.status is Status.STUCK and stuck.legal_moves() == ()
    one_left = pos(t=CLUBS_LEFT, f={"f1": "4C"}, n=1, dump=None)
    assert one_left.status is Status.PLAYING and legal_texts(one_left) == {"redeal"}


# --- the redeal ------------------------------------------------------------------------


def test_redeal_of_a_position_matches_rules() -> None:
    state = pos(t=CLUBS_LEFT, f={"f1": "4C"}, n=1, dump=None)
    after = assert_applies(state, "redeal")
    expected = rows_redeal({t: state.pile(t) for t in TABLEAU})
    assert {t: names(after.pile(t)) for t in TABLEAU} == expected
    # gathered t6..t1: QC JC TC KC 8C 6C 9C 5C 7C, dealt in a row from t1
    assert expected["t1"] == "QC" and expected["t9"] == "7C" and expected["t10"] == "-"
    assert (after.redeals_left, after.draws) == (0, state.draws)
    assert after.foundation_cards == state.foundation_cards
    assert_rejected(after, "redeal", "no_redeals_left")


def test_redeal_of_a_larger_position_uses_shrinking_rows() -> None:
    layout = {t: "" for t in TABLEAU} | {"t2": "QH JS", "t9": "5D"}
    state = pos(t=layout, f={"f1": "-", "f2": "4S", "f3": "8H"}, dump="t5")
    count = sum(len(state.pile(t)) for t in TABLEAU)
    assert count > 19  # the deal reaches the third row
    after = assert_applies(state, "redeal")
    assert {t: names(after.pile(t)) for t in TABLEAU} == rows_redeal(
        {t: state.pile(t) for t in TABLEAU}
    )


def test_redeal_of_the_opening_deal() -> None:
    state = patience.get_variant(V).new_game(9)
    after = assert_applies(state, "redeal")
    assert {t: names(after.pile(t)) for t in TABLEAU} == rows_redeal(
        {t: state.pile(t) for t in TABLEAU}
    )
    assert [len(after.pile(t)) for t in TABLEAU] == [8, 8, 8, 7, 6, 5, 4, 3, 2, 1]
    assert after.moves_made == 1 and after.redeals_left == 0
