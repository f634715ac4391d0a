"""The codec on its own: states and moves to and from their messages, and what it refuses."""

from __future__ import annotations

import random

import patience
import pytest
from patience_contract.errors import Reason, Rejected
from patience_engine.codec import (
    RECENT_STATES,
    Position,
    decode_move,
    decode_state,
    encode_move,
    encode_state,
)
from patience_engine.memo import Memo
from solitaire.v1 import game_pb2


def played(variant_id: str, deal: int, moves: int, seed: int = 0) -> patience.State:
    """A state some random legal moves into a deal."""
    chooser = random.Random(seed)
    state = patience.get_variant(variant_id).new_game(deal)
    for _ in range(moves):
        legal = state.legal_moves()
        if not legal:
            break
        state = state.apply(chooser.choice(legal))
    return state


def message_of(state: patience.State, **changes: object) -> game_pb2.GameState:
    message = game_pb2.GameState.FromString(encode_state(Position(state, False)))
    for name, value in changes.items():
        if name == "piles":
            del message.piles[:]
            for pile in value:  # type: ignore[attr-defined]
                message.piles.add(cards=bytes(pile))
        elif name == "options":
            del message.options[:]
            message.options.extend(value)  # type: ignore[arg-type]
        else:
            setattr(message, name, value)
    return message


def rejection(data: bytes) -> Rejected:
    with pytest.raises(Rejected) as caught:
        decode_state(data)
    return caught.value


@pytest.mark.parametrize("variant_id", list(patience.VARIANTS))
def test_states_survive_the_round_trip(variant_id: str) -> None:
    for deal, moves, secret in ((1, 0, False), (32001, 15, True), (10**20, 40, False)):
        state = played(variant_id, deal, moves, seed=deal)
        position = decode_state(encode_state(Position(state, secret)))
        assert position.state == state
        assert position.deal_secret is secret


def test_encoding_is_one_byte_per_card_and_decimal_deal() -> None:
    state = patience.get_variant("la-belle-lucie").new_game(123456789012)
    message = message_of(state)
    assert message.variant == "la-belle-lucie"
    assert message.deal == "123456789012"
    assert [tuple(pile.cards) for pile in message.piles] == [tuple(p) for p in state.piles]
    assert message.redeals_left == state.redeals_left
    assert message.draws == state.draws


def test_options_are_written_sorted() -> None:
    state = patience.get_variant("napoleon-at-st-helena").new_game(5, ["fill_from_waste_only"])
    assert list(message_of(state).options) == ["fill_from_waste_only"]


def test_bytes_that_do_not_parse_are_malformed() -> None:
    assert rejection(b"\xff\xff\xff").reason == Reason.MALFORMED_STATE
    # A string field that is not UTF-8.
    assert rejection(b"\x0a\x02\xc3\x28").reason == Reason.MALFORMED_STATE


def test_unknown_and_repeated_fields_are_malformed() -> None:
    good = encode_state(Position(played("bisley", 3, 0), False))
    assert rejection(good + b"\x50\x01").reason == Reason.MALFORMED_STATE  # field 10
    assert rejection(good + b"\x0a\x06bisley").reason == Reason.MALFORMED_STATE  # variant again
    assert rejection(good + b"\x20\x00").reason == Reason.MALFORMED_STATE  # an explicit 0


def test_empty_state_is_missing() -> None:
    error = rejection(b"")
    assert error.reason == Reason.MISSING_FIELD
    assert error.metadata == {"field": "state"}


@pytest.mark.parametrize(
    ("changes", "detail"),
    [
        ({"variant": "klondike"}, "UNKNOWN_VARIANT"),
        ({"variant": ""}, "UNKNOWN_VARIANT"),
        ({"options": ["no_such_option"]}, "UNKNOWN_OPTION"),
        ({"deal": "007"}, "BAD_DEAL"),
        ({"deal": "-1"}, "BAD_DEAL"),
        ({"deal": ""}, "BAD_DEAL"),
        ({"deal": "1e5"}, "BAD_DEAL"),
        ({"deal": str(10**20 + 1)}, "BAD_DEAL"),
        ({"redeals_left": 99}, "BAD_COUNTER"),
    ],
)
def test_impossible_states_are_invalid(changes: dict[str, object], detail: str) -> None:
    state = played("la-belle-lucie", 1, 3)
    error = rejection(message_of(state, **changes).SerializeToString())
    assert error.reason == Reason.INVALID_STATE
    assert error.metadata["detail"] == detail


def test_options_must_be_distinct() -> None:
    state = patience.get_variant("napoleon-at-st-helena").new_game(5)
    message = message_of(state, options=["fill_from_waste_only", "fill_from_waste_only"])
    error = rejection(message.SerializeToString())
    assert error.metadata["detail"] == "BAD_OPTIONS"


def test_card_changes_are_invalid() -> None:
    state = played("usk", 9, 0)
    piles = [list(pile) for pile in state.piles]
    duplicated = [list(pile) for pile in piles]
    duplicated[0][-1] = duplicated[1][-1]
    missing = [list(pile) for pile in piles]
    missing[0].pop()
    out_of_range = [list(pile) for pile in piles]
    out_of_range[0][0] = 200
    for bad in (duplicated, missing, out_of_range):
        error = rejection(message_of(state, piles=bad).SerializeToString())
        assert error.reason == Reason.INVALID_STATE
        assert error.metadata["detail"] == "WRONG_CARDS"
    error = rejection(message_of(state, piles=piles[:-1]).SerializeToString())
    assert error.metadata["detail"] == "WRONG_PILE_COUNT"


def test_a_foundation_out_of_sequence_is_invalid() -> None:
    state = patience.get_variant("bisley").new_game(4)
    ids = state.variant.pile_ids
    piles = [list(pile) for pile in state.piles]
    clubs = ids.index("f1")
    assert piles[clubs] == [patience.parse_card("AC")]
    # Put the five of clubs straight on the ace, taking it from its column.
    five = patience.parse_card("5C")
    for pile in piles:
        if five in pile:
            pile.remove(five)
    piles[clubs].append(five)
    error = rejection(message_of(state, piles=piles).SerializeToString())
    assert error.reason == Reason.INVALID_STATE
    assert error.metadata["detail"] == "BAD_FOUNDATION"


# --------------------------------------------------------------------------- moves


@pytest.mark.parametrize(
    ("message", "notation"),
    [
        (game_pb2.Move(notation="t3-f1"), "t3-f1"),
        (game_pb2.Move(notation="t4-t7/1"), "t4-t7"),
        (
            game_pb2.Move(kind=game_pb2.MOVE_KIND_TRANSFER, source="t4", target="t7", count=3),
            "t4-t7/3",
        ),
        (game_pb2.Move(kind=game_pb2.MOVE_KIND_TRANSFER, source="waste", target="t2"), "waste-t2"),
        (game_pb2.Move(kind=game_pb2.MOVE_KIND_DEAL), "deal"),
        (game_pb2.Move(kind=game_pb2.MOVE_KIND_DEAL, notation="deal"), "deal"),
        (game_pb2.Move(kind=game_pb2.MOVE_KIND_REDEAL, count=1), "redeal"),
        (game_pb2.Move(kind=game_pb2.MOVE_KIND_WITHDRAW, columns=["t5", "t9"]), "withdraw t5 t9"),
        (
            game_pb2.Move(
                kind=game_pb2.MOVE_KIND_TRANSFER, source="r1", target="f5", notation="r1-f5"
            ),
            "r1-f5",
        ),
    ],
)
def test_moves_are_read_from_notation_or_fields(message: game_pb2.Move, notation: str) -> None:
    assert str(decode_move(message)) == notation


@pytest.mark.parametrize(
    "message",
    [
        game_pb2.Move(notation="t3 - f1"),
        game_pb2.Move(notation="T3-F1"),
        game_pb2.Move(notation="move the jack"),
        game_pb2.Move(source="t3", target="f1"),
        game_pb2.Move(kind=game_pb2.MOVE_KIND_TRANSFER, source="t3"),
        game_pb2.Move(kind=game_pb2.MOVE_KIND_TRANSFER, source="t3", target="f1", columns=["t2"]),
        game_pb2.Move(kind=game_pb2.MOVE_KIND_TRANSFER, source="t3-t4", target="f1"),
        game_pb2.Move(kind=game_pb2.MOVE_KIND_TRANSFER, source="t 3", target="f1"),
        game_pb2.Move(kind=game_pb2.MOVE_KIND_DEAL, source="stock"),
        game_pb2.Move(kind=game_pb2.MOVE_KIND_DEAL, count=2),
        game_pb2.Move(kind=game_pb2.MOVE_KIND_REDEAL, columns=["t1"]),
        game_pb2.Move(kind=game_pb2.MOVE_KIND_WITHDRAW),
        game_pb2.Move(kind=game_pb2.MOVE_KIND_WITHDRAW, columns=["x5"]),
        game_pb2.Move(kind=game_pb2.MOVE_KIND_TRANSFER, source="t3", target="f1", notation="t3-f2"),
        game_pb2.Move(kind=game_pb2.MOVE_KIND_DEAL, notation="redeal"),
        game_pb2.Move(kind=17),  # type: ignore[arg-type]
    ],
)
def test_malformed_moves_are_refused(message: game_pb2.Move) -> None:
    with pytest.raises(Rejected) as caught:
        decode_move(message, index=4)
    assert caught.value.reason == Reason.MALFORMED_MOVE
    assert caught.value.metadata["index"] == "4"
    assert caught.value.metadata["move"]


def test_an_empty_move_is_missing() -> None:
    with pytest.raises(Rejected) as caught:
        decode_move(game_pb2.Move())
    assert caught.value.reason == Reason.MISSING_FIELD
    assert caught.value.metadata == {"field": "move"}


def test_encoded_moves_have_every_field() -> None:
    move = encode_move(patience.Move.transfer("t4", "t7", count=3))
    assert (move.kind, move.source, move.target, move.count, move.notation) == (
        game_pb2.MOVE_KIND_TRANSFER,
        "t4",
        "t7",
        3,
        "t4-t7/3",
    )
    withdraw = encode_move(patience.Move.withdraw("t5", "t9"))
    assert list(withdraw.columns) == ["t5", "t9"]
    assert withdraw.notation == "withdraw t5 t9"
    for original in (
        patience.Move.transfer("t1", "f2"),
        patience.Move.deal(),
        patience.Move.withdraw("t3"),
    ):
        assert decode_move(encode_move(original)) == original


def test_recent_states_change_no_answer() -> None:
    state = played("cody", 12, 4)
    data = encode_state(Position(state, True))
    RECENT_STATES.clear()
    first = decode_state(data)
    assert decode_state(data) is first  # the second read is remembered
    assert first == Position(state, True)
    # Bytes that were refused are refused again, for the same reason.
    bad = message_of(state, redeals_left=7).SerializeToString()
    assert rejection(bad).metadata["detail"] == "BAD_COUNTER"
    assert rejection(bad).metadata["detail"] == "BAD_COUNTER"


def test_memo_forgets_the_oldest_when_full() -> None:
    table: Memo[bytes, Position] = Memo(2)
    positions = [Position(played("usk", deal, 0), False) for deal in (1, 2, 3)]
    for index, position in enumerate(positions):
        table.put(bytes([index]), position)
    assert table.get(b"\x00") is None
    assert table.get(b"\x01") is positions[1]
    assert table.get(b"\x02") is positions[2]
    assert len(table) == 2
    table.put(b"\x02", positions[0])  # replacing an entry evicts nothing
    assert table.get(b"\x01") is positions[1]


@pytest.mark.parametrize(
    "text",
    ["t" + "9" * 200 + "-t1", "t1-t2/" + "9" * 5000, "withdraw " + " ".join(["t5"] * 40)],
)
def test_overlong_notation_is_malformed(text: str) -> None:
    with pytest.raises(Rejected) as caught:
        decode_move(game_pb2.Move(notation=text))
    assert caught.value.reason == Reason.MALFORMED_MOVE
    assert len(caught.value.metadata["move"]) <= 100
    assert len(caught.value.message) < 200
