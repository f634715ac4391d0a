"""Hints: always a legal move of the position (never a hidden card), the first move of a
proven win when there is one, nothing when the game is proven lost, a labelled
best-effort move when the search runs out of budget."""

from __future__ import annotations

import patience
from patience.solver import Budget, HintKind, Verdict, hint

from tests.oracle import position
from tests.solver.test_verdicts import HEARTS_BLOCKED


def test_a_winning_hint_is_the_first_move_of_a_win() -> None:
    state = position("bisley", t={"t3": "7C"}, f={"f1": "6C", "f5": "8C"}, dump=None)
    given = hint(state)
    assert (given.kind, given.verdict, str(given.move)) == (
        HintKind.WINNING,
        Verdict.WON,
        "t3-f1",
    )


def test_no_hint_in_a_lost_position() -> None:
    state = position(
        "la-belle-lucie",
        t={**HEARTS_BLOCKED, "t3": "4S", "t4": "KS QS JS TS 9S 8S 7S 6S 5S"},
        f={"f2": "3S", "f3": "AH"},
        n=0,
        dump=None,
    )
    assert state.legal_moves()
    given = hint(state)
    assert (given.kind, given.move, given.verdict) == (HintKind.LOST, None, Verdict.LOST)


def test_a_best_effort_hint_is_labelled_and_playable() -> None:
    state = patience.get_variant("napoleon-at-st-helena").new_game(100)
    given = hint(state, Budget(nodes=300, seconds=30))
    assert given.kind is HintKind.BEST_EFFORT and given.verdict is Verdict.UNKNOWN
    assert given.move in state.legal_moves()


def test_hints_on_finished_games() -> None:
    won = position("bisley", dump=None)
    assert hint(won).kind is HintKind.NONE and hint(won).verdict is Verdict.WON
    stuck = position("la-belle-lucie", t=HEARTS_BLOCKED, f={"f3": "AH"}, n=0, dump=None)
    assert (hint(stuck).kind, hint(stuck).move) == (HintKind.NONE, None)


def test_hints_of_every_game_are_legal_moves() -> None:
    for variant_id, variant in patience.VARIANTS.items():
        state = variant.new_game(7)
        given = hint(state, Budget(nodes=2000, seconds=30))
        assert given.move in state.legal_moves(), variant_id
