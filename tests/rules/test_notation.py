"""Card, move and state notation: names, round trips, strict parsing, helpful errors."""

from __future__ import annotations

import dataclasses

import patience
import pytest
from patience import InvalidState, Move, MoveKind, NotationError

from tests.oracle import (
    RANKS,
    SHAPES,
    SUITS,
    card,
    cards,
    expected_deal,
    name,
    notation,
    position,
    rebuilt,
)

VARIANT_IDS = list(patience.VARIANTS)

# --- cards ----------------------------------------------------------------------------


def test_card_codes_and_names() -> None:
    for code in range(52):
        text = name(code)
        assert patience.card_name(code) == text
        assert patience.parse_card(text) == code
        assert patience.rank(code) == RANKS.index(text[0]) + 1
        assert patience.suit(code) == SUITS.index(text[1])
        assert patience.is_red(code) is (text[1] in "HD")


@pytest.mark.parametrize(
    ("code", "text"), [(0, "AC"), (12, "KC"), (13, "AS"), (35, "TH"), (49, "JD"), (51, "KD")]
)
def test_card_code_is_suit_times_13_plus_rank_less_one(code: int, text: str) -> None:
    assert patience.card_name(code) == text and patience.parse_card(text) == code


@pytest.mark.parametrize("text", ["", "A", "1H", "10H", "TX", "th", "aS", "AS ", " AS", "ASS"])
def test_bad_card_names(text: str) -> None:
    with pytest.raises(NotationError) as info:
        patience.parse_card(text)
    assert str(info.value)


# --- moves ----------------------------------------------------------------------------

NOTATION_TABLE = [
    (Move.transfer("t3", "f1"), "t3-f1"),
    (Move.transfer("t4", "t7", count=3), "t4-t7/3"),
    (Move.transfer("waste", "t2"), "waste-t2"),
    (Move.transfer("t5", "r1"), "t5-r1"),
    (Move.transfer("r1", "f5"), "r1-f5"),
    (Move.transfer("t12", "t10", count=12), "t12-t10/12"),
    (Move.deal(), "deal"),
    (Move.redeal(), "redeal"),
    (Move.withdraw("t5", "t9"), "withdraw t5 t9"),
    (Move.withdraw("t15"), "withdraw t15"),
]


@pytest.mark.parametrize(("move", "text"), NOTATION_TABLE)
def test_move_notation_round_trip(move: Move, text: str) -> None:
    assert str(move) == text
    assert Move.parse(text) == move
    assert hash(Move.parse(text)) == hash(move)


def test_move_fields() -> None:
    assert Move.parse("t4-t7/3") == Move(MoveKind.TRANSFER, "t4", "t7", 3)
    assert Move.parse("t3-f1") == Move(MoveKind.TRANSFER, "t3", "f1")
    assert Move.deal() == Move(MoveKind.DEAL)
    assert Move.redeal() == Move(MoveKind.REDEAL)
    withdraw = Move.parse("withdraw t5 t9")
    assert (withdraw.kind, withdraw.columns) == (MoveKind.WITHDRAW, ("t5", "t9"))
    assert {k.name for k in MoveKind} == {"TRANSFER", "DEAL", "REDEAL", "WITHDRAW"}


def test_count_one_is_not_written() -> None:
    assert Move.parse("t4-t7/1") == Move.transfer("t4", "t7")
    assert str(Move.parse("t4-t7/1")) == "t4-t7"


def test_withdraw_columns_are_written_in_pile_order() -> None:
    assert str(Move.withdraw("t9", "t5")) == "withdraw t5 t9"
    assert str(Move.withdraw("t10", "t9")) == "withdraw t9 t10"  # pile order, not text order


def test_moves_are_immutable_values() -> None:
    move = Move.transfer("t1", "t2")
    with pytest.raises((AttributeError, dataclasses.FrozenInstanceError, TypeError)):
        move.source = "t3"
    assert move == Move.transfer("t1", "t2") and move != Move.transfer("t1", "t3")
    assert len({Move.transfer("t1", "t2"), Move.parse("t1-t2"), Move.deal()}) == 2


MALFORMED_MOVES = [
    "",
    " ",
    "T3-F1",
    "t3-F1",
    "t3 - f1",
    "t3 -f1",
    " t3-f1",
    "t3-f1 ",
    "t3-",
    "-f1",
    "t3f1",
    "t3-f1-f2",
    "t4-t7/",
    "t4-t7/x",
    "t4-t7/-2",
    "t4-t7/0",
    "t4-t7/3/3",
    "t4-t7 /3",
    "deal now",
    "Deal",
    "DEAL",
    "deal/2",
    "redeal t1",
    "withdraw",
    "withdraw t5,t9",
    "withdraw t5 t9 t10",
    "withdraw-t5",
    "move t3 f1",
    "t3->f1",
    "3-1",
]


@pytest.mark.parametrize("text", MALFORMED_MOVES)
def test_malformed_moves_are_notation_errors(text: str) -> None:
    with pytest.raises(NotationError) as info:
        Move.parse(text)
    message = str(info.value)
    assert "expect" in message.lower(), message  # says what was expected
    assert info.value.code and isinstance(info.value.code, str)
    assert isinstance(info.value, patience.PatienceError)


# --- states ---------------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_new_game_notation_is_the_contract_format(variant_id: str) -> None:
    shape = SHAPES[variant_id]
    state = patience.get_variant(variant_id).new_game(2024)
    text = notation(
        variant_id, expected_deal(variant_id, 2024), n=shape.redeals, deal=2024,
        draws=shape.pack_size - 1,
    )  # fmt: skip
    assert str(state) == text == state.to_notation()
    assert patience.parse_state(text) == state
    assert "\n" not in text


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_from_parts_builds_the_same_state(variant_id: str) -> None:
    state = patience.get_variant(variant_id).new_game(77)
    again = rebuilt(state)
    assert again == state and hash(again) == hash(state) and str(again) == str(state)


def test_foundations_are_written_by_their_top_card() -> None:
    up = position("bisley", t={"t1": "6C"}, f={"f1": "5C", "f5": "7C"})
    assert up.pile("f1") == cards("AC 2C 3C 4C 5C")
    assert up.pile("f5") == cards("KC QC JC TC 9C 8C 7C")
    assert " f:5C/" in str(up) and "/7C/" in str(up)


def test_reserve_stock_and_waste_fields() -> None:
    cody = position("cody", r={"r3": "KH"})
    assert " r:-/-/KH/-/-/-/-/- " in str(cody)
    napoleon = position("napoleon-at-st-helena", t={"t1": "9S"}, stock="QC JC", waste="8S 6H")
    assert " s:QCJC w:8S6H " in str(napoleon)
    assert napoleon.pile("stock") == cards("QC JC") and napoleon.stock_size == 2
    assert "s:" not in str(position("usk")) and "r:" not in str(position("usk"))


def test_options_are_written_after_the_variant() -> None:
    state = patience.get_variant("napoleon-at-st-helena").new_game(
        5, options=["fill_from_waste_only"]
    )
    assert str(state).split(" ")[0] == "napoleon-at-st-helena+fill_from_waste_only"
    assert patience.parse_state(str(state)).options == frozenset({"fill_from_waste_only"})


GOOD = "la-belle-lucie t:JDKS4S/2D9DTH/9HQD8H/JCJS2C/5DASJH/7HAH7D/7C3C6D/5H4C8S/KD5C8D/KCTSQS/9SQH6C/5S4H3D/ADAC8C/QC4DTC/KH7S6S/3H3S9C/2STD2H/6H f:-/-/-/- n:2 m:0 d:1/51"  # noqa: E501


def test_good_state_text_parses() -> None:
    assert patience.parse_state(GOOD) == patience.get_variant("la-belle-lucie").new_game(1)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "la-belle-lucie",
        GOOD.replace(" n:2", ""),
        GOOD.replace(" d:1/51", ""),
        GOOD.replace("n:2", "n:x"),
        GOOD.replace("m:0", "m:"),
        GOOD.replace("d:1/51", "d:1"),
        GOOD.replace("d:1/51", "d:1/x"),
        GOOD.replace("d:1/51", "d:/51"),
        GOOD.replace("JDKS4S", "JDKS4"),  # half a card
        GOOD.replace("JDKS4S", "JDKS1S"),  # no such rank
        GOOD.replace("JDKS4S", "JDKS4X"),  # no such suit
        GOOD.replace("JDKS4S", "jdks4s"),
        GOOD.replace("t:", "T:"),
        GOOD.replace("t:", "t="),
        GOOD.replace(" f:-/-/-/-", ""),
        GOOD.replace("f:-/-/-/-", "f:AC2C/-/-/-"),  # a foundation is written by its top card
        GOOD.replace("f:-/-/-/-", "f:-/-/-/- r:-/-"),  # no reserve in this game
        GOOD.replace("f:-/-/-/-", "f:-/-/-/- s:- w:-"),  # no stock in this game
        GOOD + " x:1",
        GOOD + " garbage",
        GOOD.replace("la-belle-lucie ", "la-belle-lucie  "),
    ],
)
def test_malformed_states_are_notation_errors(text: str) -> None:
    with pytest.raises(NotationError) as info:
        patience.parse_state(text)
    assert len(str(info.value)) > 10


def test_napoleon_needs_its_stock_and_waste_fields() -> None:
    text = str(patience.get_variant("napoleon-at-st-helena").new_game(1))
    without_waste = " ".join(f for f in text.split(" ") if not f.startswith("w:"))
    with pytest.raises(NotationError):
        patience.parse_state(without_waste)


def test_unknown_variant_and_option_in_a_state() -> None:
    with pytest.raises((patience.UnknownVariant, NotationError)):
        patience.parse_state(GOOD.replace("la-belle-lucie", "klondike"))
    with pytest.raises((patience.UnknownOption, NotationError)):
        patience.parse_state(GOOD.replace("la-belle-lucie", "la-belle-lucie+fast"))


def test_card_helper_agrees_with_library() -> None:
    """The tests' own card codes are the contract's."""
    assert card("JD") == patience.parse_card("JD") == 3 * 13 + 10


def test_states_are_immutable_values_compared_on_every_field() -> None:
    state = patience.get_variant("la-belle-lucie").new_game(6)
    with pytest.raises((AttributeError, dataclasses.FrozenInstanceError, TypeError)):
        state.moves_made = 5
    parts = {
        "redeals_left": state.redeals_left,
        "moves_made": state.moves_made,
        "deal": state.deal,
        "draws": state.draws,
    }
    same = patience.State.from_parts(state.variant, state.piles, **parts)
    assert same == state and hash(same) == hash(state) and len({same, state}) == 1
    for field, value in (("moves_made", 3), ("deal", 7)):
        other = patience.State.from_parts(state.variant, state.piles, **(parts | {field: value}))
        assert other != state, field
    assert state.apply(Move.redeal()) != state


# --- what each refusal of a state's text says ---------------------------------------------

NAPOLEON = str(patience.get_variant("napoleon-at-st-helena").new_game(1))
CODY = str(patience.get_variant("cody").new_game(1))


def _field(text: str, name: str) -> str:
    return next(f for f in text.split(" ") if f.startswith(name + ":"))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "expected a state such as 'la-belle-lucie t:... f:... n:2 m:0 d:1/51'"),
        (
            GOOD.replace(" n:2", ""),
            "expected 6 space-separated fields for la-belle-lucie: the variant, "
            "then t: f: n: m: d:",
        ),
        (
            NAPOLEON.replace(" w:-", ""),
            "expected 8 space-separated fields for napoleon-at-st-helena: the variant, "
            "then t: f: s: w: n: m: d:",
        ),
        (GOOD.replace("t:", "T:"), "expected field 't:', got 'T:"),
        (GOOD.replace("n:2", "n:x"), "expected a whole number in field 'n:', got 'x'"),
        (GOOD.replace("m:0", "m:"), "expected a whole number in field 'm:', got ''"),
        (GOOD.replace("d:1/51", "d:x/51"), "expected a whole number in field 'd:', got 'x'"),
        (GOOD.replace("d:1/51", "d:1"), "in field 'd:<deal>/', got ''"),
        (GOOD.replace("d:1/51", "d:1/x"), "in field 'd:<deal>/', got 'x'"),
        (GOOD.replace("d:1/51", "d:1/51/3"), "in field 'd:<deal>/', got '51/3'"),
        (GOOD.replace("n:2", "n:²"), "expected a whole number in field 'n:', got '²'"),
    ],
)
def test_a_malformed_state_says_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(NotationError) as info:
        patience.parse_state(text)
    assert words in str(info.value), str(info.value)
    if not text:
        assert str(info.value) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (GOOD.replace("/6H ", "/6H/- "), "expected 18 tableau piles, got 19"),
        (
            CODY.replace(_field(CODY, "r"), "r:-/-/-/-/-/-/-"),
            "expected 8 reserve cells, got 7",
        ),
        (NAPOLEON.replace(" w:-", " w:-/-"), "expected 1 waste, got 2"),
        (
            NAPOLEON.replace(_field(NAPOLEON, "s"), "s:-/" + _field(NAPOLEON, "s")[2:]),
            "expected 1 stock, got 2",
        ),
        (GOOD.replace("f:-/-/-/-", "f:-/-/-"), "expected 4 foundations, got 3"),
    ],
)
def test_a_wrong_count_of_piles_says_which(text: str, words: str) -> None:
    with pytest.raises(InvalidState) as info:
        patience.parse_state(text)
    assert info.value.reason == "WRONG_PILE_COUNT"
    assert words in str(info.value), str(info.value)


def test_a_foundation_of_another_suit_is_named() -> None:
    with pytest.raises(InvalidState) as info:
        patience.parse_state(GOOD.replace("f:-/-/-/-", "f:5H/-/-/-"))
    assert info.value.reason == "BAD_FOUNDATION"
    assert "f1 cannot hold 5H" in str(info.value)


def test_an_unknown_option_is_named_before_the_fields_are_read() -> None:
    """The variant and its options come first: a client that misspells an option hears
    of that, not of a field count that follows from it."""
    text = GOOD.replace("la-belle-lucie", "napoleon-at-st-helena+fast").replace(" n:2", "")
    with pytest.raises(patience.UnknownOption):
        patience.parse_state(text)


def test_a_moves_repr_reads_back() -> None:
    move = Move.parse("t4-t7/3")
    assert repr(move) == "Move.parse('t4-t7/3')"
    assert eval(repr(move), {"Move": Move}) == move
