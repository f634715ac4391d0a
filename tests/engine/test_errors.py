"""Every error reason over a real channel: status code, reason, metadata, message."""

from __future__ import annotations

import grpc
import patience
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from patience_contract.client import EngineClient
from patience_engine import servicer
from patience_engine.codec import Position, encode_state
from patience_engine.servicer import MAX_BATCH_MOVES
from solitaire.v1 import engine_pb2, engine_pb2_grpc, game_pb2

from tests.engine.helpers import expect_error, unsealed

INVALID = grpc.StatusCode.INVALID_ARGUMENT


def library_refusal(state: patience.State, notation: str) -> patience.IllegalMove:
    with pytest.raises(patience.IllegalMove) as caught:
        state.apply(patience.Move.parse(notation))
    return caught.value


def test_errors_are_rich_statuses_with_error_info(
    raw_stub: engine_pb2_grpc.EngineServiceStub,
) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        raw_stub.GetVariant(engine_pb2.GetVariantRequest(name="klondike"))
    call = caught.value
    status = rpc_status.from_call(call)
    assert status is not None
    assert status.code == grpc.StatusCode.NOT_FOUND.value[0]
    assert len(status.details) == 1
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.domain == "engine.patience"
    assert info.reason == "UNKNOWN_VARIANT"
    assert info.metadata["variant"] == "klondike"


@pytest.mark.parametrize("name", ["klondike", "Bisley", "bisley "])
async def test_unknown_variant(client: EngineClient, name: str) -> None:
    for call in (client.new_game(name, deal=1), client.get_variant(name)):
        error = await expect_error(call)
        assert (error.code, error.reason) == (grpc.StatusCode.NOT_FOUND, "UNKNOWN_VARIANT")
        assert error.metadata == {"variant": name}
        assert "bisley" in error.message  # the known variants are listed


async def test_missing_fields(client: EngineClient) -> None:
    game = await client.new_game("bisley", deal=2)
    cases = [
        (client.new_game(""), "variant"),
        (client.get_variant(""), "variant"),
        (client.apply_move(game_pb2.SealedState(), "t1-f1"), "state"),
        (client.legal_moves(game_pb2.SealedState()), "state"),
        (client.player_view(game_pb2.SealedState()), "state"),
        (client.apply_move(game.state, game_pb2.Move()), "move"),
    ]
    for call, field in cases:
        error = await expect_error(call)
        assert (error.code, error.reason) == (INVALID, "MISSING_FIELD")
        assert error.metadata["field"] == field
    error = await expect_error(client.apply_moves(game.state, ["t1-f1", game_pb2.Move()]))
    assert error.metadata == {"field": "move", "index": "1"}


async def test_unknown_option(client: EngineClient) -> None:
    error = await expect_error(client.new_game("bisley", deal=1, options=["fill_from_waste_only"]))
    assert (error.code, error.reason) == (INVALID, "UNKNOWN_OPTION")
    assert error.metadata == {"option": "fill_from_waste_only"}


@pytest.mark.parametrize("deal", ["abc", "-5", "1.5", "+3", " 7", "٣", str(10**20 + 1), "9" * 60])
async def test_bad_deal_numbers(client: EngineClient, deal: str) -> None:
    error = await expect_error(client.new_game("usk", deal=deal))
    assert (error.code, error.reason) == (INVALID, "BAD_DEAL_NUMBER")
    assert error.metadata["deal"] == deal[:100]


async def test_deal_number_limits_are_accepted(client: EngineClient) -> None:
    for deal in (0, 10**20, "000042"):
        reply = await client.new_game("usk", deal=deal)
        assert reply.view.deal == str(int(deal))


@pytest.mark.parametrize("text", ["t3 to f1", "T3-F1", "t3-f1 ", "", "withdraw", "t1-t2/0"])
async def test_malformed_move_text(client: EngineClient, text: str) -> None:
    game = await client.new_game("the-fifteen", deal=3)
    error = await expect_error(client.apply_move(game.state, game_pb2.Move(notation=text)))
    if not text:
        assert error.reason == "MISSING_FIELD"
        return
    assert (error.code, error.reason) == (INVALID, "MALFORMED_MOVE")
    assert error.metadata == {"move": text}


async def test_huge_move_text_gets_a_short_answer(client: EngineClient) -> None:
    game = await client.new_game("usk", deal=3)
    for text in ("t1-t2/" + "9" * 5000, "x" * 500_000):
        error = await expect_error(client.apply_move(game.state, text))
        assert (error.code, error.reason) == (INVALID, "MALFORMED_MOVE")
        assert len(error.message) <= 1000
        assert error.metadata["move"] == text[:99] + "…"


async def test_malformed_move_in_a_batch_has_its_index(client: EngineClient) -> None:
    game = await client.new_game("the-fifteen", deal=3)
    first = game.view.legal_moves[0]
    error = await expect_error(client.apply_moves(game.state, [first, first, "t9->f1"]))
    assert error.reason == "MALFORMED_MOVE"
    assert error.metadata == {"move": "t9->f1", "index": "2"}


async def test_contradictory_move_fields(client: EngineClient) -> None:
    game = await client.new_game("bisley", deal=8)
    move = game_pb2.Move(
        kind=game_pb2.MOVE_KIND_TRANSFER, source="t1", target="f1", notation="t2-f1"
    )
    error = await expect_error(client.apply_move(game.state, move))
    assert error.reason == "MALFORMED_MOVE"


@pytest.mark.parametrize(
    ("variant_id", "notation", "rule"),
    [
        ("la-belle-lucie", "deal", "no_stock"),
        ("cody", "redeal", "no_redeal"),
        ("bisley", "withdraw t5", "no_withdraw"),
        ("bisley", "t1-t1", "same_pile"),
        ("bisley", "t99-f1", "unknown_pile"),
        ("bisley", "f1-t1", "not_a_source"),
        ("napoleon-at-st-helena", "waste-t1", "empty_source"),
    ],
)
async def test_illegal_move_names_its_rule(
    client: EngineClient, variant_id: str, notation: str, rule: str
) -> None:
    state = patience.get_variant(variant_id).new_game(6)
    refusal = library_refusal(state, notation)
    assert refusal.rule == rule
    error = await expect_error(client.apply_move(unsealed(state), notation))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL_MOVE")
    assert error.metadata == {"rule": rule, "move": notation}
    assert str(refusal) in error.message


async def test_illegal_move_in_a_batch_refuses_the_whole_batch(client: EngineClient) -> None:
    state = patience.get_variant("la-belle-lucie").new_game(1)
    good = [str(move) for move in state.legal_moves()[:1]]
    error = await expect_error(client.apply_moves(unsealed(state), [*good, "deal"]))
    assert error.reason == "ILLEGAL_MOVE"
    assert error.metadata == {"rule": "no_stock", "move": "deal", "index": "1"}
    assert "move 2" in error.message
    error = await expect_error(client.new_game("la-belle-lucie", deal=1, moves=[*good, "deal"]))
    assert error.metadata["index"] == "1"


async def test_too_many_moves(client: EngineClient) -> None:
    game = await client.new_game("napoleon-at-st-helena", deal=1)
    moves = ["deal"] * (MAX_BATCH_MOVES + 1)
    for call in (
        client.apply_moves(game.state, moves),
        client.new_game("napoleon-at-st-helena", deal=1, moves=moves),
    ):
        error = await expect_error(call)
        assert (error.code, error.reason) == (INVALID, "TOO_MANY_MOVES")
        assert error.metadata == {"limit": str(MAX_BATCH_MOVES), "count": str(len(moves))}


async def test_a_batch_of_exactly_the_limit_is_taken(client: EngineClient) -> None:
    """The limit is inclusive: a client replaying in batches of MAX_BATCH_MOVES (as the
    gateway does) must have every full batch taken. A card of The House on the Hill
    goes to another fan and back, so any number of moves stays legal."""
    moves = ["t2-t31", "t31-t2"] * (MAX_BATCH_MOVES // 2)
    assert len(moves) == MAX_BATCH_MOVES
    game = await client.new_game("house-on-the-hill", deal=1)
    replayed = await client.apply_moves(game.state, moves)
    assert len(replayed.applied) == MAX_BATCH_MOVES
    assert replayed.view.counters.moves_made == MAX_BATCH_MOVES
    dealt = await client.new_game("house-on-the-hill", deal=1, moves=moves)
    assert dealt.view.piles == replayed.view.piles == game.view.piles


async def test_malformed_state_bytes(client: EngineClient) -> None:
    for data in (b"\xff\xfe\xfd", b"\x0a\x05bis", b"garbage that is not protobuf"):
        error = await expect_error(client.player_view(game_pb2.SealedState(state=data)))
        assert (error.code, error.reason) == (INVALID, "MALFORMED_STATE")


def _with_piles(state: patience.State, piles: list[list[int]]) -> game_pb2.SealedState:
    message = game_pb2.GameState.FromString(encode_state(Position(state, False)))
    for pile, cards in zip(message.piles, piles, strict=True):
        pile.cards = bytes(cards)
    return game_pb2.SealedState(state=message.SerializeToString())


async def test_state_with_a_duplicated_or_missing_card(client: EngineClient) -> None:
    state = patience.get_variant("la-belle-lucie").new_game(1)
    piles = [list(pile) for pile in state.piles]
    duplicated = [list(pile) for pile in piles]
    duplicated[0][0] = duplicated[0][1]
    missing = [list(pile) for pile in piles]
    missing[2].pop()
    for bad in (duplicated, missing):
        error = await expect_error(client.apply_move(_with_piles(state, bad), "t1-f1"))
        assert (error.code, error.reason) == (INVALID, "INVALID_STATE")
        assert error.metadata["detail"] == "WRONG_CARDS"


async def test_state_with_an_impossible_foundation(client: EngineClient) -> None:
    state = patience.get_variant("bisley").new_game(4)
    clubs = state.variant.pile_ids.index("f1")
    piles = [list(pile) for pile in state.piles]
    two = patience.parse_card("2C")
    piles = [[card for card in pile if card != two] for pile in piles]
    piles[clubs] = [two, patience.parse_card("AC")]  # the two under the ace
    error = await expect_error(client.legal_moves(_with_piles(state, piles)))
    assert error.reason == "INVALID_STATE"
    assert error.metadata["detail"] == "BAD_FOUNDATION"


async def test_state_for_an_unknown_variant_is_invalid(client: EngineClient) -> None:
    state = patience.get_variant("usk").new_game(4)
    message = game_pb2.GameState.FromString(encode_state(Position(state, False)))
    message.variant = "klondike"
    sealed = game_pb2.SealedState(state=message.SerializeToString())
    error = await expect_error(client.player_view(sealed))
    assert (error.code, error.reason) == (INVALID, "INVALID_STATE")
    assert error.metadata == {"detail": "UNKNOWN_VARIANT"}


async def test_an_unexpected_fault_is_internal_and_says_nothing(
    client: EngineClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = await client.new_game("usk", deal=4)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret detail 7H")

    monkeypatch.setattr(servicer, "view_of_state", broken)
    error = await expect_error(client.player_view(game.state))
    assert error.code == grpc.StatusCode.INTERNAL
    assert error.message == "internal error"
    assert "7H" not in str(error)
    monkeypatch.undo()
    assert await client.player_view(game.state) == game.view
