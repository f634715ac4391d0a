"""Both reply writers (patience_engine.encoding) write exactly protobuf's own bytes and
say the right things; tests/engine/test_speed_path.py holds the speed path to the
reference on every reply of every variant."""

from __future__ import annotations

import random

import patience
import pytest
from patience_engine.codec import CARD_NAMES, Position, encode_state
from patience_engine.encoding import REFERENCE, SPEED_PATH, ReplyWriter, fast
from patience_engine.views import player_view_bytes, view_of_state
from solitaire.v1 import engine_pb2, game_pb2


@pytest.fixture(
    params=[pytest.param(SPEED_PATH, id="speed-path"), pytest.param(REFERENCE, id="reference")]
)
def writer(request: pytest.FixtureRequest) -> ReplyWriter:
    """Each writer in turn."""
    found: ReplyWriter = request.param
    return found


def states(variant_id: str) -> list[patience.State]:
    """The opening and some random play of two deals, ending wherever play ends."""
    found = []
    for deal, seed in ((3, 1), (10**18 + 7, 2)):
        chooser = random.Random(seed)
        state = patience.get_variant(variant_id).new_game(deal)
        found.append(state)
        for step in range(200):
            legal = state.legal_moves()
            if not legal:
                break
            state = state.apply(chooser.choice(legal))
            if step % 25 == 0:
                found.append(state)
        found.append(state)
    return found


def canonical(message_type: type, data: bytes) -> object:
    """Parses `data` and checks protobuf writes the same values as the same bytes."""
    message = message_type.FromString(data)  # type: ignore[attr-defined]
    assert message.SerializeToString() == data
    return message


@pytest.mark.parametrize("variant_id", list(patience.VARIANTS))
def test_game_state_bytes_are_protobufs_own(variant_id: str, writer: ReplyWriter) -> None:
    for state in states(variant_id):
        for secret in (False, True):
            expected = game_pb2.GameState(
                variant=state.variant.id,
                options=sorted(state.options),
                piles=[game_pb2.PileCards(cards=bytes(pile)) for pile in state.piles],
                redeals_left=state.redeals_left,
                moves_made=state.moves_made,
                deal=str(state.deal),
                deal_secret=secret,
                draws=state.draws,
            )
            assert writer.game_state(state, secret) == expected.SerializeToString()


def test_options_are_in_the_state_and_the_view(writer: ReplyWriter) -> None:
    state = patience.get_variant("napoleon-at-st-helena").new_game(2, ["fill_from_waste_only"])
    message = canonical(game_pb2.GameState, encode_state(Position(state, False), writer))
    assert list(message.options) == ["fill_from_waste_only"]  # type: ignore[attr-defined]
    view = canonical(game_pb2.PlayerView, player_view_bytes(Position(state, False), writer=writer))
    assert list(view.options) == ["fill_from_waste_only"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("variant_id", list(patience.VARIANTS))
def test_player_view_bytes_are_canonical_and_right(variant_id: str, writer: ReplyWriter) -> None:
    for state in states(variant_id):
        view = canonical(
            game_pb2.PlayerView, player_view_bytes(Position(state, False), writer=writer)
        )
        assert isinstance(view, game_pb2.PlayerView)
        assert view.variant == variant_id
        assert [pile.id for pile in view.piles] == list(state.variant.pile_ids)
        for pile, cards in zip(view.piles, state.piles, strict=True):
            assert pile.size == len(cards)
            shown = (
                []
                if pile.kind == game_pb2.PILE_KIND_STOCK
                else [CARD_NAMES[card] for card in cards]
            )
            assert list(pile.cards) == shown
        assert view.status == game_pb2.GameStatus.Value("GAME_STATUS_" + state.status.name)
        assert [move.notation for move in view.legal_moves] == [
            str(move) for move in state.legal_moves()
        ]
        counters = view.counters
        assert (
            counters.moves_made,
            counters.foundation_cards,
            counters.redeals_left,
            counters.stock_size,
            counters.total_cards,
        ) == (
            state.moves_made,
            state.foundation_cards,
            state.redeals_left,
            state.stock_size,
            state.total_cards,
        )
        assert view.deal == str(state.deal)


def test_moves_and_events_are_canonical(writer: ReplyWriter) -> None:
    moves = [
        patience.Move.transfer("t4", "t7", count=3),
        patience.Move.transfer("waste", "t10"),
        patience.Move.deal(),
        patience.Move.redeal(),
        patience.Move.withdraw("t5", "t9"),
    ]
    for move in moves:
        message = canonical(game_pb2.Move, writer.move_message(move))
        assert isinstance(message, game_pb2.Move)
        assert message.notation == str(move)
        assert (message.source, message.target, message.count) == (
            move.source,
            move.target,
            move.count,
        )
        assert tuple(message.columns) == move.columns


# The game replies share their fields and numbers, so the speed path writes them alike.
@pytest.mark.parametrize(
    "reply_type",
    [
        engine_pb2.NewGameResponse,
        engine_pb2.ApplyMoveResponse,
        engine_pb2.ApplyMovesResponse,
        engine_pb2.AutoplayResponse,
    ],
)
def test_game_replies_are_protobufs_own(reply_type: type, writer: ReplyWriter) -> None:
    state = patience.get_variant("napoleon-at-st-helena").new_game(4)
    after, events = state.apply_with_events(patience.Move.deal())
    data = encode_state(Position(after, True), writer)
    view = player_view_bytes(Position(after, True), writer=writer)
    reply = canonical(
        reply_type,
        writer.game_response(
            reply_type,
            writer.sealed_state(data, b"\x01" * 32),
            view,
            [patience.Move.deal()],
            events,
        ),
    )
    assert isinstance(reply, reply_type)
    assert reply.state == game_pb2.SealedState(state=data, seal=b"\x01" * 32)
    assert reply.view == game_pb2.PlayerView.FromString(view)
    assert [move.notation for move in reply.applied] == ["deal"]
    assert [(e.card, e.source, e.source_index, e.target, e.target_index) for e in reply.events] == [
        (CARD_NAMES[e.card], e.source, e.source_index, e.target, e.target_index) for e in events
    ]


def test_player_view_reply_is_protobufs_own(writer: ReplyWriter) -> None:
    view = player_view_bytes(
        Position(patience.get_variant("usk").new_game(4), False), writer=writer
    )
    reply = canonical(engine_pb2.GetPlayerViewResponse, writer.player_view_response(view))
    assert isinstance(reply, engine_pb2.GetPlayerViewResponse)
    assert reply.view == game_pb2.PlayerView.FromString(view)


def test_long_fields_get_multi_byte_lengths() -> None:
    assert fast.varint(0) == b"\x00"
    assert fast.varint(127) == b"\x7f"
    assert fast.varint(128) == b"\x80\x01"
    assert fast.varint(300) == b"\xac\x02"
    assert fast.varint(2**32 - 1) == b"\xff\xff\xff\xff\x0f"
    long_text = "x" * 1000
    message = canonical(game_pb2.PileView, fast.text_field(1, long_text))
    assert message.id == long_text  # type: ignore[attr-defined]


def test_remembered_views_are_the_views_of_their_states(writer: ReplyWriter) -> None:
    for variant_id in ("cody", "napoleon-at-st-helena"):
        for state in states(variant_id)[:4]:
            position = Position(state, True)
            data = encode_state(position, writer)
            first = view_of_state(data, position, writer)
            assert first == player_view_bytes(position, writer=writer)
            assert view_of_state(data, position, writer) is first


def test_each_writer_remembers_only_the_views_it_wrote() -> None:
    position = Position(patience.get_variant("bisley").new_game(8), False)
    data = encode_state(position)
    fast_view = view_of_state(data, position, SPEED_PATH)
    reference_view = view_of_state(data, position, REFERENCE)
    assert reference_view == fast_view
    assert reference_view is not fast_view
