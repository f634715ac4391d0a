"""The words of each refusal, as a player reads them.

The rule code says which rule a move broke; the message beside it is what the gateway
shows (problem+json `detail`) and what a player reads to see why: it names the piles and
cards concerned. The per-game modules check the codes; this one pins the words, one
refusal of each kind, so that a message that names the wrong pile, the wrong card or
nothing at all fails here."""

from __future__ import annotations

from functools import partial

import patience
import pytest
from patience import Move

from tests.oracle import assert_applies, assert_rejected, position
from tests.rules.test_rules_cody import BASE as CODY
from tests.rules.test_rules_usk import BASE as USK

cody = partial(position, "cody")


@pytest.mark.parametrize(
    ("move", "rule", "words"),
    [
        ("t1-t2", "not_a_target", "t2 never takes a card from t1"),  # fans never take cards
        ("r1-r2", "not_a_target", "r2 never takes a card from r1"),
        ("r1-t5", "reserve_to_foundation_only", "a reserve card may only go to a foundation"),
        ("t3-r2/2", "too_many_cards", "only one card moves at a time here"),
        ("t1-f1/9", "too_many_cards", "the pile holds only 3 cards"),
        ("r1-f3", "wrong_suit", "f3 takes only H cards"),  # 4S on 3H
        ("t2-f7", "wrong_suit", "f7 takes only H cards"),  # KC on the empty hearts down
        ("t2-f1", "wrong_rank", "f1 takes AC next, not KC"),  # an empty clubs up-foundation
        ("t1-f5", "wrong_rank", "f5 takes KC next, not AC"),  # an empty clubs down-foundation
        ("t3-f3", "wrong_rank", "f3 takes 4H next, not 2H"),
        ("f2-r2", "not_a_source", "cards never leave f2"),
        ("r2-f1", "empty_source", "r2 has no card"),
        ("t3-r1", "cell_occupied", "r1 already holds a card"),
        ("t1-t27", "unknown_pile", "Cody has no pile 't27'"),
        ("t27-t1", "unknown_pile", "Cody has no pile 't27'"),  # the source named
        ("t1-t1", "same_pile", "the source and the target are the same pile"),
        ("deal", "no_stock", "Cody has no stock"),
        ("redeal", "no_redeal", "Cody has no redeal"),
        ("withdraw t1", "no_withdraw", "Cody has no withdraw"),
    ],
)
def test_cody_refusals_say_why(move: str, rule: str, words: str) -> None:
    refused = assert_rejected(cody(**CODY), move, rule)
    assert str(refused) == words


def test_a_won_game_says_it_is_over() -> None:
    assert str(assert_rejected(cody(), "t1-r1", "game_over")) == "the game is over"


def test_a_move_of_no_known_kind_says_so() -> None:
    state = patience.get_variant("usk").new_game(5)
    refused = assert_rejected(state, Move("jump", "t1", "t2"), "unknown_move")
    assert str(refused) == "'jump' is not a move"


def test_a_complete_foundation_says_so() -> None:
    refused = assert_rejected(cody(t={"t1": "5S"}, f={"f2": "KS"}), "t1-f2", "wrong_rank")
    assert str(refused) == "f2 is complete"


def test_a_move_of_no_cards_says_so() -> None:
    state = patience.get_variant("cody").new_game(5)
    refused = assert_rejected(state, Move.transfer("t1", "r1", count=0), "too_many_cards")
    assert str(refused) == "a move takes at least one card"


@pytest.mark.parametrize(
    ("move", "rule", "words"),
    [
        ("t1-t2", "wrong_rank", "7C cannot go on TH: the tableau builds down in alternate colour"),
        ("t5-t2/2", "not_a_run", "the top 2 cards are not a run down in alternate colour"),
        (
            "t4-t3",
            "empty_pile_needs_king",
            "an empty tableau pile takes only a king, or a run headed by a king",
        ),
    ],
)
def test_usk_refusals_say_why(move: str, rule: str, words: str) -> None:
    refused = assert_rejected(position("usk", **USK), move, rule)
    assert str(refused) == words


def test_an_empty_stock_says_so() -> None:
    state = position("napoleon-at-st-helena", t={"t1": "7H"}, stock="", waste="6H")
    assert str(assert_rejected(state, "deal", "stock_empty")) == "the stock is empty"


def test_the_last_redeal_used_says_so() -> None:
    state = patience.get_variant("la-belle-lucie").new_game(42)
    state = state.apply(Move.redeal()).apply(Move.redeal())
    refused = assert_rejected(state, "redeal", "no_redeals_left")
    assert str(refused) == "every redeal has been used"


def test_withdraw_refusals_say_why() -> None:
    bad_card = assert_rejected(
        patience.get_variant("the-fifteen").new_game(168), "withdraw t1", "withdraw_bad_card"
    )
    assert str(bad_card) == (
        "withdraw takes an ace, a king, or one of each, from row 6 of a column where that "
        "card is not the top card"
    )
    state = patience.get_variant("the-fifteen").new_game(308627686)
    for move in ("t15-t11", "t13-t5", "t14-t13", "t9-t12", "t9-t7"):  # the ace of spades up
        state = assert_applies(state, move)
    not_now = assert_rejected(state, "withdraw t1", "withdraw_not_allowed")
    assert str(not_now) == (
        "withdraw is allowed only before any foundation is started and while no ace or "
        "king is available"
    )


def test_a_pile_the_game_does_not_have_is_named() -> None:
    with pytest.raises(KeyError) as info:
        patience.get_variant("cody").new_game(5).pile("x9")
    assert info.value.args == ("cody has no pile 'x9'",)
