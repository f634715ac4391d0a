"""No input crashes the engine: random and mutated states and moves get a clean answer.

A bad state is always INVALID_ARGUMENT; a move may also be refused by the rules
(FAILED_PRECONDITION). Never INTERNAL or UNKNOWN.
"""

from __future__ import annotations

import functools

import grpc
import patience
from hypothesis import given
from hypothesis import strategies as st
from patience_contract.client import EngineError, SyncEngineClient
from patience_engine.codec import Position, encode_state
from patience_engine.sealing import OVERHEAD_BYTES
from solitaire.v1 import game_pb2

from tests.engine.helpers import mutated

INVALID = grpc.StatusCode.INVALID_ARGUMENT
# FAILED_PRECONDITION: an illegal move, or a state sealed with a key the engine lacks.
ILLEGAL = grpc.StatusCode.FAILED_PRECONDITION


@functools.cache
def base_states() -> tuple[bytes, ...]:
    """One early state of every variant, a few moves in, as engine bytes."""
    states = []
    for index, variant in enumerate(patience.VARIANTS.values()):
        state = variant.new_game(index + 1)
        for _ in range(3):
            legal = state.legal_moves()
            if legal:
                state = state.apply(legal[-1])
        states.append(encode_state(Position(state, index % 2 == 0)))
    return tuple(states)


def answer_code(call: object) -> grpc.StatusCode:
    try:
        call()  # type: ignore[operator]
    except EngineError as error:
        return error.code
    return grpc.StatusCode.OK


def state_answers(client: SyncEngineClient, data: bytes) -> set[grpc.StatusCode]:
    sealed = game_pb2.SealedState(state=data)
    return {
        answer_code(lambda: client.player_view(sealed)),
        answer_code(lambda: client.legal_moves(sealed)),
    }


@given(st.binary(max_size=600))
def test_random_bytes_are_refused_cleanly(sync_client: SyncEngineClient, data: bytes) -> None:
    # Bytes that start like an envelope are a state sealed with a key this engine lacks.
    unknown_key = {ILLEGAL} if data[:1] == b"\x01" else set()
    assert state_answers(sync_client, data) <= {INVALID, grpc.StatusCode.OK, *unknown_key}


@given(
    st.integers(min_value=0, max_value=8),
    st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), min_size=1, max_size=4),
    st.sampled_from(["flip", "insert", "delete", "truncate"]),
)
def test_mutated_state_bytes_are_refused_cleanly(
    sync_client: SyncEngineClient, which: int, edits: list[tuple[int, int]], how: str
) -> None:
    data = mutated(base_states()[which], edits, how)
    # Bytes that start like an envelope are a state sealed with a key this engine lacks.
    unknown_key = {ILLEGAL} if data[:1] == b"\x01" else set()
    assert state_answers(sync_client, data) <= {INVALID, grpc.StatusCode.OK, *unknown_key}


uint32 = st.integers(min_value=0, max_value=2**32 - 1)


@given(
    st.integers(min_value=0, max_value=8),
    st.fixed_dictionaries(
        {},
        optional={
            "variant": st.sampled_from([*patience.VARIANTS, "", "klondike"]),
            "options": st.lists(st.sampled_from(["fill_from_waste_only", "x", ""]), max_size=3),
            "pile": st.tuples(st.integers(0, 200), st.binary(max_size=120)),
            "drop_pile": st.integers(0, 200),
            "redeals_left": uint32,
            "moves_made": uint32,
            "deal": st.one_of(st.text(max_size=25), st.integers(0, 10**21).map(str)),
            "deal_secret": st.booleans(),
            "draws": uint32,
        },
    ),
)
def test_mutated_state_fields_are_refused_cleanly(
    sync_client: SyncEngineClient, which: int, changes: dict[str, object]
) -> None:
    message = game_pb2.GameState.FromString(base_states()[which])
    for name, value in changes.items():
        if name == "options":
            del message.options[:]
            message.options.extend(value)  # type: ignore[arg-type]
        elif name == "pile":
            assert isinstance(value, tuple)
            index, cards = value
            message.piles[index % len(message.piles)].cards = cards
        elif name == "drop_pile":
            del message.piles[value % len(message.piles)]  # type: ignore[operator]
        else:
            setattr(message, name, value)
    assert state_answers(sync_client, message.SerializeToString()) <= {
        INVALID,
        grpc.StatusCode.OK,
    }


pile_text = st.one_of(
    st.sampled_from(["t1", "t3", "t15", "t26", "t99", "r1", "r8", "f1", "f8", "stock", "waste"]),
    st.text(max_size=6),
)


@given(
    st.integers(min_value=0, max_value=8),
    st.one_of(
        st.builds(game_pb2.Move, notation=st.text(max_size=20)),
        st.builds(
            game_pb2.Move,
            notation=st.builds(
                "{}-{}/{}".format,
                pile_text,
                pile_text,
                st.text(alphabet="0123456789", min_size=1, max_size=6000),
            ),
        ),
        st.builds(
            game_pb2.Move,
            kind=st.integers(0, 6),
            source=pile_text,
            target=pile_text,
            count=st.integers(0, 60),
            columns=st.lists(pile_text, max_size=3),
            notation=st.one_of(st.just(""), st.text(max_size=12)),
        ),
    ),
)
def test_random_moves_are_answered_cleanly(
    sync_client: SyncEngineClient, which: int, move: game_pb2.Move
) -> None:
    state = game_pb2.SealedState(state=base_states()[which])
    code = answer_code(lambda: sync_client.apply_move(state, move))
    assert code in {INVALID, ILLEGAL, grpc.StatusCode.OK}


@given(st.binary(max_size=300), st.binary(max_size=40))
def test_sealed_engine_refuses_any_unsealed_bytes(
    sealed_sync_client: SyncEngineClient, data: bytes, seal: bytes
) -> None:
    try:
        sealed_sync_client.player_view(game_pb2.SealedState(state=data, seal=seal))
    except EngineError as error:
        if not data:
            assert (error.code, error.reason) == (INVALID, "MISSING_FIELD")
        elif data[:1] == b"\x01" and len(data) >= OVERHEAD_BYTES:
            # Shaped like an envelope, under a key id that is not the engine's.
            assert (error.code, error.reason) == (ILLEGAL, "STATE_KEY_UNKNOWN")
        else:
            assert (error.code, error.reason) == (INVALID, "STATE_SEAL_INVALID")
    else:
        raise AssertionError("an unsealed state was taken")
